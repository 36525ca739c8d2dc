import { randomUUID } from 'node:crypto';
import { createOrgApiKey, createOrganization, createOrgUser, revokeOrgApiKey, type Role } from '@docfleet/auth';
import { grantCredits, setMonthlyQuota } from '@docfleet/billing';
import type { Db } from '@docfleet/db';
import { parseArgs } from 'node:util';

const USAGE = `usage:
  docfleet admin create-org --name NAME [--credits N] [--monthly-quota N] [--json]
  docfleet admin grant-credits --org ID --amount N [--json]
  docfleet admin create-key --org ID [--name N] [--json]
  docfleet admin revoke-key --key-id ID [--json]
  docfleet admin create-user --org ID --email E --role admin|member|viewer --password-stdin [--json]`;

export class UsageError extends Error {}

function intArg(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a non-negative integer`);
  return n;
}
function need(v: string | undefined, name: string): string {
  if (!v) throw new UsageError(`--${name} is required\n${USAGE}`);
  return v;
}

/** Runs one admin command and returns what to print (an object for --json, a line otherwise). */
export async function runAdmin(
  db: Db,
  argv: string[],
  readStdin: () => Promise<string>,
): Promise<{ json: Record<string, unknown>; text: string }> {
  const [cmd, ...rest] = argv;
  let parsed;
  try {
    parsed = parseArgs({
      args: rest,
      options: {
        name: { type: 'string' },
        credits: { type: 'string' },
        'monthly-quota': { type: 'string' },
        org: { type: 'string' },
        amount: { type: 'string' },
        'key-id': { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        json: { type: 'boolean' },
      },
      strict: true,
    });
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\n${USAGE}`);
  }
  const { values } = parsed;
  switch (cmd) {
    case 'create-org': {
      const name = need(values.name, 'name');
      const credits = intArg(values.credits, 'credits');
      const quota = intArg(values['monthly-quota'], 'monthly-quota');
      const org = await createOrganization(db, name);
      if (credits)
        await grantCredits(db, {
          orgId: org.id,
          amount: credits,
          idempotencyKey: `admin:create-org:${org.id}`,
          reason: 'initial credits',
        });
      if (quota !== undefined) await setMonthlyQuota(db, org.id, quota);
      const key = await createOrgApiKey(db, org.id, 'default');
      return {
        json: { org_id: org.id, api_key: key.secret },
        text: `created organisation ${org.id}\napi key (shown once): ${key.secret}`,
      };
    }
    case 'grant-credits': {
      const org = need(values.org, 'org');
      const amount = intArg(need(values.amount, 'amount'), 'amount')!;
      const r = await grantCredits(db, {
        orgId: org,
        amount,
        idempotencyKey: `admin:grant:${randomUUID()}`,
        reason: 'granted by operator',
      });
      return {
        json: { org_id: org, granted: amount, balance_credits: r.entry.balance_after },
        text: `granted ${amount} credits; balance ${r.entry.balance_after}`,
      };
    }
    case 'create-key': {
      const org = need(values.org, 'org');
      const key = await createOrgApiKey(db, org, values.name ?? 'default');
      return {
        json: { org_id: org, key_id: key.id, api_key: key.secret },
        text: `created key ${key.id}\napi key (shown once): ${key.secret}`,
      };
    }
    case 'revoke-key': {
      const id = need(values['key-id'], 'key-id');
      const row = await revokeOrgApiKey(db, id);
      return { json: { key_id: row.id, revoked_at: row.revoked_at?.toISOString() }, text: `revoked key ${row.id}` };
    }
    case 'create-user': {
      const org = need(values.org, 'org');
      const email = need(values.email, 'email');
      const role = need(values.role, 'role') as Role;
      if (!values['password-stdin'])
        throw new UsageError('--password-stdin is required (passwords never go on the command line)');
      const password = (await readStdin()).replace(/\r?\n$/, '');
      const user = await createOrgUser(db, { orgId: org, email, role, password });
      return {
        json: { user_id: user.id, org_id: org, email: user.email, role },
        text: `user ${user.email} is ${role} of ${org}`,
      };
    }
    default:
      throw new UsageError(USAGE);
  }
}
