import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDb, type TestDb } from '@docfleet/testing';
import { hashToken } from '@docfleet/auth';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../../..');
let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(() => t.drop());

function docfleet(args: string[], input?: string) {
  const p = run('pnpm', ['--silent', 'docfleet', 'admin', ...args], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'silent' },
  });
  if (input !== undefined) {
    p.child.stdin!.write(input);
    p.child.stdin!.end();
  }
  return p;
}

describe('pnpm docfleet admin', () => {
  it('creates an organisation with credits, a quota and a working key; grants; rotates keys; adds users', async () => {
    const { stdout } = await docfleet([
      'create-org',
      '--name',
      'Acme',
      '--credits',
      '25',
      '--monthly-quota',
      '100',
      '--json',
    ]);
    const out = JSON.parse(stdout);
    expect(Object.keys(out).sort()).toEqual(['api_key', 'org_id']);
    expect(out.api_key).toMatch(/^dfk_/);
    const key = await t.db.apiKey.findUniqueOrThrow({ where: { key_hash: hashToken(out.api_key) } });
    expect(key.org_id).toBe(out.org_id);
    expect(await t.db.creditAccount.findUniqueOrThrow({ where: { org_id: out.org_id } })).toMatchObject({
      balance_credits: 25,
      monthly_quota_credits: 100,
    });

    const grant = JSON.parse(
      (await docfleet(['grant-credits', '--org', out.org_id, '--amount', '10', '--json'])).stdout,
    );
    expect(grant.balance_credits).toBe(35);

    const k2 = JSON.parse((await docfleet(['create-key', '--org', out.org_id, '--name', 'ci', '--json'])).stdout);
    expect(k2.api_key).toMatch(/^dfk_/);
    await docfleet(['revoke-key', '--key-id', k2.key_id, '--json']);
    expect((await t.db.apiKey.findUniqueOrThrow({ where: { id: k2.key_id } })).revoked_at).not.toBeNull();

    const user = JSON.parse(
      (
        await docfleet(
          [
            'create-user',
            '--org',
            out.org_id,
            '--email',
            'Ada@Example.test',
            '--role',
            'member',
            '--password-stdin',
            '--json',
          ],
          'a long passphrase\n',
        )
      ).stdout,
    );
    expect(user).toMatchObject({ email: 'ada@example.test', role: 'member' });
    const m = await t.db.membership.findFirstOrThrow({ where: { user_id: user.user_id } });
    expect(m.role).toBe('member');
    const u = await t.db.user.findUniqueOrThrow({ where: { id: user.user_id } });
    expect(u.password_hash).not.toContain('a long passphrase');
  });

  it('fails with one clear line and a non-zero exit on bad usage', async () => {
    await expect(docfleet(['create-org', '--json'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--name is required'),
    });
    await expect(
      docfleet(['grant-credits', '--org', '00000000-0000-4000-8000-000000000000', '--amount', '-3']),
    ).rejects.toMatchObject({ code: 2 });
    await expect(
      docfleet(
        [
          'create-user',
          '--org',
          '00000000-0000-4000-8000-000000000000',
          '--email',
          'x@y.z',
          '--role',
          'owner',
          '--password-stdin',
        ],
        'password123',
      ),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('role must be') });
  });
});
