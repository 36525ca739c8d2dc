import { generateApiKey, generateSessionToken, verifyPassword, type Principal } from '@docfleet/auth';
import { ApiError } from '@docfleet/errors';
import type { Deps } from '../../deps';

export async function login(deps: Pick<Deps, 'db' | 'env'>, email: string, password: string) {
  const user = await deps.db.user.findUnique({ where: { email: email.toLowerCase() }, include: { memberships: true } });
  // Verify against a dummy hash when the user is unknown so timing does not reveal accounts.
  const ok = user
    ? await verifyPassword(user.password_hash, password)
    : (await verifyPassword(DUMMY_HASH, password), false);
  if (!user || !ok) throw new ApiError('invalid_credentials', 'Wrong email or password.');
  const { token, hash } = generateSessionToken();
  const expires = new Date(Date.now() + deps.env.SESSION_TTL_HOURS * 3600_000);
  await deps.db.session.create({ data: { user_id: user.id, token_hash: hash, expires_at: expires } });
  return {
    token,
    expires_at: expires.toISOString(),
    user: {
      id: user.id,
      email: user.email,
      name: user.name,
      memberships: user.memberships.map((m) => ({ org_id: m.org_id, role: m.role })),
    },
  };
}
// argon2id hash of a random throwaway password.
const DUMMY_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c29tZXNhbHRzb21lc2FsdA$yqTMcsb2ot8Yv7oHUspUJTp12jf+Qs3p2FpUlpNG2Z0';

/** Key management is for an organisation admin signed in as a person (staff cannot; docs/errors.md). */
function requireAdminSession(p: Principal) {
  if (p.kind !== 'session' || p.role !== 'admin')
    throw new ApiError('permission_required', 'Only an organisation admin, signed in, can manage API keys.');
}

export async function createApiKey(deps: Pick<Deps, 'db'>, p: Principal, name: string) {
  requireAdminSession(p);
  const k = generateApiKey();
  const row = await deps.db.apiKey.create({
    data: { org_id: p.orgId, name, prefix: k.prefix, key_hash: k.hash, created_by_user_id: p.userId ?? null },
  });
  return { api_key: serializeKey(row), secret: k.secret };
}

export async function listApiKeys(deps: Pick<Deps, 'db'>, p: Principal) {
  requireAdminSession(p);
  const rows = await deps.db.apiKey.findMany({ where: { org_id: p.orgId }, orderBy: { created_at: 'desc' } });
  return { api_keys: rows.map(serializeKey) };
}

export async function revokeApiKey(deps: Pick<Deps, 'db'>, p: Principal, id: string) {
  requireAdminSession(p);
  const row = await deps.db.apiKey.findFirst({ where: { id, org_id: p.orgId } });
  if (!row) throw new ApiError('api_key_not_found', 'API key not found.');
  const updated = row.revoked_at
    ? row
    : await deps.db.apiKey.update({ where: { id }, data: { revoked_at: new Date() } });
  return { api_key: serializeKey(updated) };
}

function serializeKey(k: {
  id: string;
  name: string;
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    created_at: k.created_at.toISOString(),
    last_used_at: k.last_used_at?.toISOString() ?? null,
    revoked_at: k.revoked_at?.toISOString() ?? null,
  };
}
