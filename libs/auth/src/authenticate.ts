import type { Db } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { hashToken } from './keys';
import type { Principal, Role } from './access';

export interface AuthInput {
  apiKey?: string;
  bearer?: string;
  /** x-service-org-id header or org_id query parameter. */
  orgId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Resolves the caller from an API key, or from a session token plus x-service-org-id. */
export async function authenticate(db: Db, input: AuthInput): Promise<Principal> {
  if (input.apiKey) {
    const key = await db.apiKey.findUnique({ where: { key_hash: hashToken(input.apiKey) } });
    const now = new Date();
    if (!key || key.revoked_at || (key.expires_at && key.expires_at <= now)) {
      throw new ApiError('invalid_api_key', 'The API key is wrong, revoked or expired.', { message: 'Send a valid key in the x-api-key header.' });
    }
    if (input.orgId !== undefined && input.orgId !== key.org_id) {
      throw new ApiError('api_key_org_mismatch', 'The organisation in the request does not match the API key.');
    }
    // last_used_at is advisory: update at most once a minute per key to keep requests cheap.
    if (!key.last_used_at || now.getTime() - key.last_used_at.getTime() > 60_000) {
      void db.apiKey.update({ where: { id: key.id }, data: { last_used_at: now } }).catch(() => undefined);
    }
    return { kind: 'api_key', orgId: key.org_id, role: 'admin', apiKeyId: key.id };
  }
  if (input.bearer) {
    const session = await db.session.findUnique({ where: { token_hash: hashToken(input.bearer) } });
    if (!session || session.revoked_at || session.expires_at <= new Date()) {
      throw new ApiError('unauthenticated', 'The session is invalid or expired.', { message: 'Log in again with POST /v1/auth/login.' });
    }
    if (!input.orgId || !UUID.test(input.orgId)) {
      throw new ApiError('org_access_denied', 'Session requests must name an organisation in the x-service-org-id header.');
    }
    const membership = await db.membership.findUnique({ where: { org_id_user_id: { org_id: input.orgId, user_id: session.user_id } } });
    if (!membership) throw new ApiError('org_access_denied', 'You are not a member of this organisation.');
    return { kind: 'session', orgId: input.orgId, role: membership.role as Role, userId: session.user_id };
  }
  throw new ApiError('invalid_api_key', 'No credentials were sent.', { message: 'Send an API key in the x-api-key header.' });
}
