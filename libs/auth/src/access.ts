import type { Db, Tx } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';

export type Role = 'admin' | 'member' | 'viewer';
export type Permission = 'files.read' | 'files.write' | 'parse.run' | 'extract.run';
export type AccessLevel = 'viewer' | 'manager';

export const ROLE_PERMISSIONS: Record<Role, readonly Permission[]> = {
  admin: ['files.read', 'files.write', 'parse.run', 'extract.run'],
  member: ['files.read', 'files.write', 'parse.run', 'extract.run'],
  viewer: ['files.read'],
};

/** Who is calling. API keys are organisation-root: every check passes for them (docs/api.md, Conventions). */
export interface Principal {
  kind: 'api_key' | 'session';
  orgId: string;
  role: Role;
  userId?: string;
  apiKeyId?: string;
}

export const isRoot = (p: Principal) => p.kind === 'api_key' || p.role === 'admin';

export function hasPermission(p: Principal, perm: Permission): boolean {
  return isRoot(p) || ROLE_PERMISSIONS[p.role].includes(perm);
}

export function requirePermission(p: Principal, perm: Permission): void {
  if (!hasPermission(p, perm)) throw new ApiError('permission_required', `This action needs the '${perm}' permission.`);
}

/**
 * The organisation-wide views (the credits ledger and its daily activity) belong to the organisation's
 * root callers: API keys and admin sessions. Members and viewers see the balance only; entries name the
 * files and knowledge bases of everything the organisation did, including ones they have no grant on.
 */
export function requireOrgAdmin(p: Principal, what: string): void {
  if (!isRoot(p))
    throw new ApiError('permission_required', `${what} is visible to organisation admins and API keys only.`);
}

/** The caller's access level on a knowledge base, or null. Root callers are managers everywhere. */
export async function kbAccessLevel(db: Db | Tx, p: Principal, kbId: string): Promise<AccessLevel | null> {
  if (isRoot(p)) return 'manager';
  if (!p.userId) return null;
  const grant = await db.rbacGrant.findFirst({
    where: { user_id: p.userId, org_id: p.orgId, resource_type: 'knowledge_base', resource_id: kbId },
    select: { access_level: true },
  });
  return (grant?.access_level as AccessLevel | undefined) ?? null;
}

/** Ids of the knowledge bases a non-root caller can reach (null = all of the organisation). */
export async function reachableKbIds(db: Db | Tx, p: Principal): Promise<string[] | null> {
  if (isRoot(p)) return null;
  if (!p.userId) return [];
  const grants = await db.rbacGrant.findMany({
    where: { user_id: p.userId, org_id: p.orgId, resource_type: 'knowledge_base' },
    select: { resource_id: true },
  });
  return grants.map((g) => g.resource_id);
}

/**
 * Throws knowledge_base_access_denied unless the caller has at least `level` on the knowledge
 * base. Existence and organisation are checked by the caller first (another organisation's id
 * must look exactly like an unknown one).
 */
export async function requireKbAccess(
  db: Db | Tx,
  p: Principal,
  kbId: string,
  level: AccessLevel = 'viewer',
): Promise<AccessLevel> {
  const have = await kbAccessLevel(db, p, kbId);
  if (!have || (level === 'manager' && have !== 'manager')) {
    throw new ApiError('knowledge_base_access_denied', `You need ${level} access to this knowledge base.`);
  }
  return have;
}
