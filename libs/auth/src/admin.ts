import type { Db } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { generateApiKey } from './keys';
import { hashPassword } from './passwords';
import type { Role } from './access';

/** Operator actions behind `pnpm docfleet admin …` (and test factories). */
export async function createOrganization(db: Db, name: string) {
  return db.organization.create({ data: { name } });
}

export async function createOrgApiKey(db: Db, orgId: string, name = 'default') {
  const org = await db.organization.findUnique({ where: { id: orgId } });
  if (!org) throw new ApiError('invalid_request', `No organisation ${orgId}.`);
  const k = generateApiKey();
  const row = await db.apiKey.create({ data: { org_id: orgId, name, prefix: k.prefix, key_hash: k.hash } });
  return { id: row.id, prefix: row.prefix, secret: k.secret };
}

export async function revokeOrgApiKey(db: Db, keyId: string) {
  const row = await db.apiKey.findUnique({ where: { id: keyId } });
  if (!row) throw new ApiError('api_key_not_found', `No API key ${keyId}.`);
  return row.revoked_at ? row : db.apiKey.update({ where: { id: keyId }, data: { revoked_at: new Date() } });
}

export async function createOrgUser(
  db: Db,
  args: { orgId: string; email: string; role: Role; password: string; name?: string },
) {
  if (!['admin', 'member', 'viewer'].includes(args.role))
    throw new ApiError('invalid_request', 'role must be admin, member or viewer');
  if (args.password.length < 8) throw new ApiError('invalid_request', 'password must have at least 8 characters');
  const email = args.email.trim().toLowerCase();
  const password_hash = await hashPassword(args.password);
  return db.$transaction(async (tx) => {
    const user = await tx.user.upsert({
      where: { email },
      create: { email, password_hash, name: args.name ?? null },
      update: { password_hash },
    });
    await tx.membership.upsert({
      where: { org_id_user_id: { org_id: args.orgId, user_id: user.id } },
      create: { org_id: args.orgId, user_id: user.id, role: args.role },
      update: { role: args.role },
    });
    return user;
  });
}

export async function grantKbAccess(
  db: Db,
  args: { orgId: string; userId: string; kbId: string; level: 'viewer' | 'manager' },
) {
  return db.rbacGrant.upsert({
    where: {
      user_id_resource_type_resource_id: {
        user_id: args.userId,
        resource_type: 'knowledge_base',
        resource_id: args.kbId,
      },
    },
    create: {
      org_id: args.orgId,
      user_id: args.userId,
      resource_type: 'knowledge_base',
      resource_id: args.kbId,
      access_level: args.level,
    },
    update: { access_level: args.level },
  });
}
