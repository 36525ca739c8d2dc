import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFile, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import {
  DEFAULT_MIGRATIONS_DIR,
  checksumMatches,
  migrate,
  migrationChecksum,
  readMigrations,
  verifyMigrations,
} from '../src/migrate';
import { adminUrl, createTestDb, testDbUrl, type TestDb } from '../../testing/src';

const ROOT = path.resolve(__dirname, '../../..');
const INIT = '20261121000000_init';
/** Every real migration folder, in order (tests must not assume how many exist). */
let ALL: string[] = [];
beforeAll(async () => {
  ALL = (await readMigrations()).map((m) => m.name);
});

async function query<T extends Record<string, unknown>>(
  url: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const c = new Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<T>(sql, params)).rows;
  } finally {
    await c.end();
  }
}

/** A database name nobody created yet, dropped after the test. */
const fresh: string[] = [];
function freshUrl(): string {
  const name = `docfleet_test_${randomBytes(8).toString('hex')}`;
  fresh.push(name);
  return testDbUrl(name);
}
afterAll(async () => {
  for (const name of fresh) await query(adminUrl(), `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
});

/** A copy of prisma/migrations the test may change. */
async function migrationsCopy(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-migrations-'));
  await cp(DEFAULT_MIGRATIONS_DIR, dir, { recursive: true });
  return dir;
}
async function addMigration(dir: string, name: string, sql: string): Promise<void> {
  await mkdir(path.join(dir, name));
  await writeFile(path.join(dir, name, 'migration.sql'), sql);
}

function run(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  timeout = 60_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: unknown }).code as number | null) : 0;
      resolve({ code: typeof code === 'number' ? code : -1, stdout, stderr });
    });
  });
}

describe('checksums', () => {
  it('are sha256 hex of migration.sql, as Prisma computes them', async () => {
    expect(migrationChecksum('hello')).toBe('2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824');
    const [init] = await readMigrations();
    expect(init.name).toBe(INIT);
    expect(init.checksum).toBe(
      migrationChecksum(await readFile(path.join(DEFAULT_MIGRATIONS_DIR, INIT, 'migration.sql'))),
    );
  });

  it('match across line endings and the old unpadded format, like Prisma', () => {
    const sql = 'SELECT 1;\nSELECT 2;\n';
    expect(checksumMatches(sql.replace(/\n/g, '\r\n'), migrationChecksum(sql))).toBe(true);
    expect(checksumMatches(sql, migrationChecksum(sql.replace(/\n/g, '\r\n')))).toBe(true);
    const unpadded = [...Buffer.from(migrationChecksum(sql), 'hex')].map((b) => b.toString(16)).join('');
    expect(checksumMatches(sql, unpadded)).toBe(true);
    expect(checksumMatches(sql + ' ', migrationChecksum(sql))).toBe(false);
  });
});

describe('migrate()', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await createTestDb();
  });
  afterAll(async () => {
    await t?.drop();
  });

  it('creates a missing database, applies every migration once, then is a no-op', async () => {
    const url = freshUrl();
    const names = (await readMigrations()).map((m) => m.name);
    const lines: string[] = [];
    const first = await migrate(url, { log: (l) => lines.push(l) });
    expect(first).toEqual({ applied: names, skipped: [] });
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^created database docfleet_test_/),
        expect.stringMatching(new RegExp(`^applied ${INIT} \\(\\d+ ms\\)$`)),
      ]),
    );

    const rows = await query<{
      id: string;
      checksum: string;
      migration_name: string;
      finished_at: Date | null;
      logs: string | null;
      rolled_back_at: Date | null;
      applied_steps_count: number;
    }>(url, 'SELECT * FROM "_prisma_migrations" ORDER BY migration_name');
    const expectedRows = (await readMigrations()).map((m) => ({
      migration_name: m.name,
      checksum: m.checksum,
      logs: null,
      rolled_back_at: null,
      applied_steps_count: 1,
    }));
    expect(rows).toMatchObject(expectedRows);
    for (const r of rows) {
      expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(r.finished_at).toBeInstanceOf(Date);
    }

    expect(await migrate(url)).toEqual({ applied: [], skipped: names });
    expect(await query(url, 'SELECT count(*)::int AS n FROM "_prisma_migrations"')).toEqual([{ n: names.length }]);
    await expect(verifyMigrations(url)).resolves.toEqual({ recorded: names.length, folders: names.length });
  });

  it("creates the migrations table in Prisma's exact shape", async () => {
    const cols = await query(
      t.url,
      `SELECT column_name, data_type, character_maximum_length AS len, is_nullable, column_default
         FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(cols).toEqual([
      { column_name: 'id', data_type: 'character varying', len: 36, is_nullable: 'NO', column_default: null },
      { column_name: 'checksum', data_type: 'character varying', len: 64, is_nullable: 'NO', column_default: null },
      {
        column_name: 'finished_at',
        data_type: 'timestamp with time zone',
        len: null,
        is_nullable: 'YES',
        column_default: null,
      },
      {
        column_name: 'migration_name',
        data_type: 'character varying',
        len: 255,
        is_nullable: 'NO',
        column_default: null,
      },
      { column_name: 'logs', data_type: 'text', len: null, is_nullable: 'YES', column_default: null },
      {
        column_name: 'rolled_back_at',
        data_type: 'timestamp with time zone',
        len: null,
        is_nullable: 'YES',
        column_default: null,
      },
      {
        column_name: 'started_at',
        data_type: 'timestamp with time zone',
        len: null,
        is_nullable: 'NO',
        column_default: 'now()',
      },
      { column_name: 'applied_steps_count', data_type: 'integer', len: null, is_nullable: 'NO', column_default: '0' },
    ]);
  });

  it('finds a test database (cloned from the template) already migrated', async () => {
    expect(await migrate(t.url)).toEqual({ applied: [], skipped: ALL });
  });

  it('fails loudly when an applied migration.sql was edited', async () => {
    const dir = await migrationsCopy();
    try {
      await appendFile(path.join(dir, INIT, 'migration.sql'), '\n-- an innocent edit\n');
      await expect(migrate(t.url, { migrationsDir: dir })).rejects.toThrow(
        new RegExp(
          `^checksum mismatch for applied migration ${INIT}: recorded [0-9a-f]{64}, migration.sql now hashes to [0-9a-f]{64}\\. Applied migrations must never be edited`,
        ),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('fails loudly when the recorded checksum was tampered with', async () => {
    const d = await createTestDb();
    try {
      await query(d.url, `UPDATE "_prisma_migrations" SET checksum = repeat('0', 64) WHERE migration_name = $1`, [
        INIT,
      ]);
      await expect(migrate(d.url)).rejects.toThrow(
        `checksum mismatch for applied migration ${INIT}: recorded ${'0'.repeat(64)}`,
      );
    } finally {
      await d.drop();
    }
  });

  it('aborts on an SQL error with the migration name and the message, applying none of it', async () => {
    const dir = await migrationsCopy();
    try {
      await addMigration(
        dir,
        '20261122000000_broken',
        'CREATE TABLE routea_probe (id int);\n\nSELECT * FROM no_such_table;\n',
      );
      await expect(migrate(t.url, { migrationsDir: dir })).rejects.toThrow(
        'migration 20261122000000_broken failed and was rolled back: relation "no_such_table" does not exist [SQLSTATE 42P01] at line 3 of migration.sql',
      );
      expect(await query(t.url, `SELECT to_regclass('routea_probe') AS t`)).toEqual([{ t: null }]);
      expect(
        await query(
          t.url,
          `SELECT count(*)::int AS n FROM "_prisma_migrations" WHERE migration_name = '20261122000000_broken'`,
        ),
      ).toEqual([{ n: 0 }]);
      await expect(verifyMigrations(t.url, dir)).rejects.toThrow(
        `${ALL.length} finished migration(s) recorded but ${ALL.length + 1} folder(s) on disk; not applied: 20261122000000_broken`,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses to go on after a migration that never finished, and says how to resolve it', async () => {
    const d = await createTestDb();
    const dir = await migrationsCopy();
    try {
      await addMigration(dir, '20261123000000_second', 'CREATE TABLE routea_second (id int);\n');
      // What `prisma migrate deploy` leaves behind when a script fails half-way.
      await query(
        d.url,
        `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, logs, started_at, applied_steps_count) VALUES ($1, $2, '20261123000000_second', 'ERROR: boom', now(), 0)`,
        ['11111111-2222-3333-4444-555555555555', '0'.repeat(64)],
      );
      const err = await migrate(d.url, { migrationsDir: dir }).catch((e: Error) => e);
      expect(String(err)).toMatch(
        /migration 20261123000000_second started at .* and never finished \(ERROR: boom\)\. Undo or complete its changes by hand, then mark it rolled back: UPDATE "_prisma_migrations" SET rolled_back_at = now\(\)/,
      );

      // Following the instruction lets the runner apply it.
      await query(
        d.url,
        `UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = '20261123000000_second' AND finished_at IS NULL`,
      );
      expect(await migrate(d.url, { migrationsDir: dir })).toEqual({
        applied: ['20261123000000_second'],
        skipped: ALL,
      });
      await expect(verifyMigrations(d.url, dir)).resolves.toEqual({
        recorded: ALL.length + 1,
        folders: ALL.length + 1,
      });

      // That database is now ahead of the real migrations folder.
      await expect(migrate(d.url)).rejects.toThrow('the database has migration(s) 20261123000000_second that');
      await expect(verifyMigrations(d.url)).rejects.toThrow('unknown to this code: 20261123000000_second');
    } finally {
      await rm(dir, { recursive: true, force: true });
      await d.drop();
    }
  });

  it('serialises concurrent runners on a fresh database: all succeed, each migration applies once', async () => {
    const url = freshUrl();
    const results = await Promise.all([migrate(url), migrate(url), migrate(url)]);
    const names = (await readMigrations()).map((m) => m.name);
    expect(results.flatMap((r) => r.applied).sort()).toEqual(names);
    for (const r of results) expect([...r.applied, ...r.skipped].sort()).toEqual(names);
    expect(
      await query(url, 'SELECT migration_name, count(*)::int AS n FROM "_prisma_migrations" GROUP BY 1 ORDER BY 1'),
    ).toEqual(names.map((n) => ({ migration_name: n, n: 1 })));
  });
});

describe('pnpm db:migrate', () => {
  it('applies to a fresh database and prints one line per migration and a summary', async () => {
    const url = freshUrl();
    const r = await run('pnpm', ['--silent', 'db:migrate'], { DATABASE_URL: url });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(/^db:migrate: created database docfleet_test_/),
      ...ALL.map((n) => expect.stringMatching(new RegExp(`^db:migrate: applied ${n} \\(\\d+ ms\\)$`))),
      expect.stringMatching(
        new RegExp(
          `^db:migrate: \\S+/docfleet_test_\\w+ is up to date: ${ALL.length} applied now, 0 already applied, ${ALL.length}/${ALL.length} recorded$`,
        ),
      ),
    ]);
  });

  it('exits non-zero with one clear line when PostgreSQL is unreachable', async () => {
    const r = await run('pnpm', ['db:migrate'], { DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/docfleet' });
    expect(r.code).not.toBe(0);
    const ours = `${r.stdout}\n${r.stderr}`.split('\n').filter((l) => l.startsWith('db:migrate'));
    expect(ours).toEqual([
      'db:migrate failed: cannot connect to 127.0.0.1:1/docfleet: connection failed (ECONNREFUSED 127.0.0.1:1)',
    ]);
    expect(r.stdout).not.toMatch(/up to date/);
  });
});

describe('prisma migrate deploy with this repository environment', () => {
  it('exits non-zero (the schema engine stand-in) instead of reporting success', async () => {
    const d = await createTestDb();
    try {
      const r = await run(
        'pnpm',
        ['exec', 'prisma', 'migrate', 'deploy'],
        {
          DATABASE_URL: d.url,
          PRISMA_SCHEMA_ENGINE_BINARY: path.join(ROOT, 'scripts/no-schema-engine.sh'),
          CHECKPOINT_DISABLE: '1',
          PRISMA_HIDE_UPDATE_MESSAGE: '1',
        },
        45_000,
      );
      expect(r.code).not.toBe(0);
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/successfully applied|No pending migrations/i);
    } finally {
      await d.drop();
    }
  });
});
