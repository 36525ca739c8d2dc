import type { Db } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { hashToken } from './keys';
import type { ApiKeyCache, KeyRow } from './key-cache';
import type { Principal, Role } from './access';

export interface AuthInput {
  apiKey?: string;
  bearer?: string;
  /** x-service-org-id header or org_id query parameter. */
  orgId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AuthOptions {
  /** Cache of key rows by hash (see key-cache.ts); without one every request reads the database. */
  keyCache?: ApiKeyCache;
}

/** last_used_at is advisory: written at most once a minute per key (and per process). */
export const LAST_USED_RESOLUTION_MS = 60_000;

const KEY_COLUMNS = { id: true, org_id: true, revoked_at: true, expires_at: true, last_used_at: true } as const;

/** Resolves the caller from an API key, or from a session token plus x-service-org-id. */
export async function authenticate(db: Db, input: AuthInput, opts: AuthOptions = {}): Promise<Principal> {
  if (input.apiKey) {
    const hash = hashToken(input.apiKey);
    const load = () =>
      db.apiKey.findUnique({ where: { key_hash: hash }, select: KEY_COLUMNS }) as Promise<KeyRow | null>;
    let key: KeyRow | null;
    let lastUsed: { lastUsedMs: number } | undefined;
    if (opts.keyCache) {
      const found = await opts.keyCache.lookup(hash, load);
      key = found?.row ?? null;
      lastUsed = found?.entry;
    } else {
      key = await load();
      lastUsed = key ? { lastUsedMs: key.last_used_at?.getTime() ?? 0 } : undefined;
    }
    const now = new Date();
    if (!key || key.revoked_at || (key.expires_at && key.expires_at <= now)) {
      throw new ApiError('invalid_api_key', 'The API key is wrong, revoked or expired.', {
        message: 'Send a valid key in the x-api-key header.',
      });
    }
    if (input.orgId !== undefined && input.orgId !== key.org_id) {
      throw new ApiError('api_key_org_mismatch', 'The organisation in the request does not match the API key.');
    }
    if (lastUsed && now.getTime() - lastUsed.lastUsedMs > LAST_USED_RESOLUTION_MS) {
      // Marked before the write, so concurrent requests do not all write. The condition in the
      // UPDATE keeps replicas from writing the same minute again.
      lastUsed.lastUsedMs = now.getTime();
      void db.apiKey
        .updateMany({
          where: {
            id: key.id,
            OR: [{ last_used_at: null }, { last_used_at: { lt: new Date(now.getTime() - LAST_USED_RESOLUTION_MS) } }],
          },
          data: { last_used_at: now },
        })
        .catch(() => undefined);
    }
    return { kind: 'api_key', orgId: key.org_id, role: 'admin', apiKeyId: key.id };
  }
  if (input.bearer) {
    const session = await db.session.findUnique({ where: { token_hash: hashToken(input.bearer) } });
    if (!session || session.revoked_at || session.expires_at <= new Date()) {
      throw new ApiError('unauthenticated', 'The session is invalid or expired.', {
        message: 'Log in again with POST /v1/auth/login.',
      });
    }
    if (!input.orgId || !UUID.test(input.orgId)) {
      throw new ApiError(
        'org_access_denied',
        'Session requests must name an organisation in the x-service-org-id header.',
      );
    }
    const membership = await db.membership.findUnique({
      where: { org_id_user_id: { org_id: input.orgId, user_id: session.user_id } },
    });
    if (!membership) throw new ApiError('org_access_denied', 'You are not a member of this organisation.');
    return { kind: 'session', orgId: input.orgId, role: membership.role as Role, userId: session.user_id };
  }
  throw new ApiError('invalid_api_key', 'No credentials were sent.', {
    message: 'Send an API key in the x-api-key header.',
  });
}
