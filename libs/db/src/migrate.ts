// Applies prisma/migrations/*/migration.sql and records them in `_prisma_migrations` exactly as
// `prisma migrate deploy` would, so either tool can take over a database (prisma/README.md).
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from 'pg';

/** Prisma Migrate's own advisory lock key: our runner and `prisma migrate deploy` exclude each other. */
export const MIGRATION_LOCK_KEY = 72707369;
/** How long a runner waits for another one to finish before giving up. */
const LOCK_WAIT_MS = 10 * 60_000;
const CONNECT_TIMEOUT_MS = 10_000;

export const DEFAULT_MIGRATIONS_DIR = path.resolve(__dirname, '../../../prisma/migrations');

// Prisma's DDL for the table, verbatim (sql-schema-connector, postgres flavour).
const CREATE_MIGRATIONS_TABLE = `
CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    id                      VARCHAR(36) PRIMARY KEY NOT NULL,
    checksum                VARCHAR(64) NOT NULL,
    finished_at             TIMESTAMPTZ,
    migration_name          VARCHAR(255) NOT NULL,
    logs                    TEXT,
    rolled_back_at          TIMESTAMPTZ,
    started_at              TIMESTAMPTZ NOT NULL DEFAULT now(),
    applied_steps_count     INTEGER NOT NULL DEFAULT 0
)`;

export class MigrationError extends Error {
  override name = 'MigrationError';
}

export interface MigrateOptions {
  migrationsDir?: string;
  log?: (line: string) => void;
}

export interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

interface MigrationRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
  started_at: Date;
  logs: string | null;
}

/** sha256 hex of the script, as Prisma stores it. */
export function migrationChecksum(sql: string | Buffer): string {
  return createHash('sha256').update(sql).digest('hex');
}

/**
 * Prisma's comparison: also accepts the script with other line endings (git may convert them)
 * and the non-zero-padded hex that old Prisma versions wrote.
 */
export function checksumMatches(sql: string, recorded: string): boolean {
  const variants = [sql, sql.replace(/\r\n/g, '\n'), sql.replace(/\n/g, '\r\n')];
  return variants.some((s) => {
    const digest = createHash('sha256').update(s).digest();
    if (recorded.length !== 64) return [...digest].map((b) => b.toString(16)).join('') === recorded;
    return digest.toString('hex') === recorded;
  });
}

/** The migration folders in lexical order, each with its script and checksum. */
export async function readMigrations(dir = DEFAULT_MIGRATIONS_DIR): Promise<MigrationFile[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    throw new MigrationError(`cannot read migrations directory ${dir}: ${(err as Error).message}`);
  }
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const out: MigrationFile[] = [];
  for (const name of names) {
    const file = path.join(dir, name, 'migration.sql');
    if (!existsSync(file)) throw new MigrationError(`migration folder ${name} has no migration.sql`);
    const bytes = await readFile(file);
    out.push({ name, sql: bytes.toString('utf8'), checksum: migrationChecksum(bytes) });
  }
  return out;
}

/** host:port/database of a URL, never its password, for messages. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}/${decodeURIComponent(u.pathname.slice(1))}`;
  } catch {
    return '(unparsable DATABASE_URL)';
  }
}

function databaseName(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new MigrationError('DATABASE_URL is not a valid URL (expected postgresql://user@host:port/database)');
  }
  const name = decodeURIComponent(u.pathname.slice(1));
  if (!name) throw new MigrationError(`database URL ${describeUrl(url)} names no database`);
  return name;
}

/** The same server's maintenance database `postgres`. */
export function adminUrlFor(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** One line: PostgreSQL's message, its detail and, for a script, the line it points at. */
export function pgErrorText(err: unknown, script?: string): string {
  const e = err as {
    message?: string;
    code?: string;
    detail?: string;
    position?: string;
    address?: string;
    port?: number;
  };
  if (e?.code === 'ECONNREFUSED' || e?.code === 'ENOTFOUND' || e?.code === 'ETIMEDOUT' || e?.code === 'EHOSTUNREACH') {
    return `connection failed (${e.code}${e.address ? ` ${e.address}${e.port ? `:${e.port}` : ''}` : ''})`;
  }
  let text = e?.message || String(err);
  if (e?.code && /^[0-9A-Z]{5}$/.test(e.code)) text += ` [SQLSTATE ${e.code}]`;
  if (e?.detail) text += ` (${e.detail})`;
  if (script && e?.position) {
    const line = script.slice(0, Number(e.position)).split('\n').length;
    text += ` at line ${line} of migration.sql`;
  }
  return text.replace(/\s*\n\s*/g, ' ');
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  // A server-side termination must surface as a query error, not crash the process.
  client.on('error', () => {});
  await client.connect();
  return client;
}

/** Connects to url, creating its database first (from the `postgres` database) when missing. */
async function connectCreatingDatabase(url: string, log: (line: string) => void): Promise<Client> {
  const name = databaseName(url);
  try {
    return await connect(url);
  } catch (err) {
    if ((err as { code?: string }).code !== '3D000') {
      throw new MigrationError(`cannot connect to ${describeUrl(url)}: ${pgErrorText(err)}`);
    }
  }
  let admin: Client;
  try {
    admin = await connect(adminUrlFor(url));
  } catch (err) {
    throw new MigrationError(
      `database ${name} does not exist and the server's postgres database is unreachable: ${pgErrorText(err)}`,
    );
  }
  try {
    await admin.query(`CREATE DATABASE ${quoteIdent(name)}`);
    log(`created database ${name}`);
  } catch (err) {
    // 42P04 duplicate_database, 23505 pg_database's unique index: a concurrent runner won the race.
    const code = (err as { code?: string }).code;
    if (code !== '42P04' && code !== '23505') {
      throw new MigrationError(`cannot create database ${name}: ${pgErrorText(err)}`);
    }
  } finally {
    await admin.end().catch(() => {});
  }
  try {
    return await connect(url);
  } catch (err) {
    throw new MigrationError(`cannot connect to ${describeUrl(url)}: ${pgErrorText(err)}`);
  }
}

async function lock(client: Client, log: (line: string) => void): Promise<void> {
  const { rows } = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [MIGRATION_LOCK_KEY]);
  if (rows[0]?.ok) return;
  log('another migration runner is working on this database; waiting for it');
  try {
    await client.query(`SET lock_timeout = ${LOCK_WAIT_MS}`);
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query('RESET lock_timeout');
  } catch (err) {
    if ((err as { code?: string }).code === '55P03') {
      throw new MigrationError(
        `another migration runner held the lock (pg_advisory_lock ${MIGRATION_LOCK_KEY}) for over ${LOCK_WAIT_MS / 60_000} minutes; see pg_locks`,
      );
    }
    throw err;
  }
}

async function recordedRows(client: Client): Promise<MigrationRow[]> {
  const { rows } = await client.query<MigrationRow>(
    'SELECT migration_name, checksum, finished_at, rolled_back_at, started_at, logs FROM "_prisma_migrations" ORDER BY started_at, migration_name',
  );
  return rows;
}

/**
 * Applies every pending migration, each in one transaction with its `_prisma_migrations` row.
 * Throws MigrationError (one-line message) on anything that is not a clean, complete run.
 */
export async function migrate(
  url: string,
  opts: MigrateOptions = {},
): Promise<{ applied: string[]; skipped: string[] }> {
  const log = opts.log ?? (() => {});
  const dir = opts.migrationsDir ?? DEFAULT_MIGRATIONS_DIR;
  const migrations = await readMigrations(dir);
  if (migrations.length === 0) throw new MigrationError(`no migrations found in ${dir}`);

  const client = await connectCreatingDatabase(url, log);
  const applied: string[] = [];
  const skipped: string[] = [];
  try {
    await lock(client, log);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const rows = (await recordedRows(client)).filter((r) => r.rolled_back_at === null);

    // Prisma refuses to go on after a failed migration (P3009); so do we, naming the way out.
    const failed = rows.find((r) => r.finished_at === null);
    if (failed) {
      throw new MigrationError(
        `migration ${failed.migration_name} started at ${failed.started_at.toISOString()} and never finished` +
          (failed.logs ? ` (${failed.logs.split('\n')[0]})` : '') +
          `. Undo or complete its changes by hand, then mark it rolled back: UPDATE "_prisma_migrations" SET rolled_back_at = now() WHERE migration_name = '${failed.migration_name}' AND finished_at IS NULL; and run pnpm db:migrate again`,
      );
    }
    const known = new Set(migrations.map((m) => m.name));
    const unknown = [...new Set(rows.map((r) => r.migration_name))].filter((n) => !known.has(n));
    if (unknown.length > 0) {
      throw new MigrationError(
        `the database has migration(s) ${unknown.join(', ')} that ${dir} does not: this code is older than the database`,
      );
    }

    for (const m of migrations) {
      const done = rows.find((r) => r.migration_name === m.name);
      if (done) {
        if (!checksumMatches(m.sql, done.checksum)) {
          throw new MigrationError(
            `checksum mismatch for applied migration ${m.name}: recorded ${done.checksum}, migration.sql now hashes to ${m.checksum}. ` +
              'Applied migrations must never be edited: restore the file and put the change in a new migration',
          );
        }
        skipped.push(m.name);
        continue;
      }
      const started = Date.now();
      try {
        await client.query('BEGIN');
        await client.query(m.sql);
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
           VALUES ($1, $2, clock_timestamp(), $3, NULL, NULL, now(), 1)`,
          [randomUUID(), m.checksum, m.name],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw new MigrationError(`migration ${m.name} failed and was rolled back: ${pgErrorText(err, m.sql)}`);
      }
      applied.push(m.name);
      log(`applied ${m.name} (${Date.now() - started} ms)`);
    }
  } catch (err) {
    if (err instanceof MigrationError) throw err;
    throw new MigrationError(`migrating ${describeUrl(url)} failed: ${pgErrorText(err)}`);
  } finally {
    await client.query('SELECT pg_advisory_unlock_all()').catch(() => {});
    await client.end().catch(() => {});
  }
  return { applied, skipped };
}

/**
 * Compares the finished migrations recorded in the database with the folders on disk; throws
 * unless they are the same set, so a migration that did not run can never pass for success.
 */
export async function verifyMigrations(
  url: string,
  dir = DEFAULT_MIGRATIONS_DIR,
): Promise<{ recorded: number; folders: number }> {
  const migrations = await readMigrations(dir);
  let client: Client;
  try {
    client = await connect(url);
  } catch (err) {
    throw new MigrationError(`cannot connect to ${describeUrl(url)}: ${pgErrorText(err)}`);
  }
  try {
    const { rows } = await client.query<{ migration_name: string }>(
      'SELECT DISTINCT migration_name FROM "_prisma_migrations" WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
    );
    const recorded = new Set(rows.map((r) => r.migration_name));
    const missing = migrations.filter((m) => !recorded.has(m.name)).map((m) => m.name);
    const extra = [...recorded].filter((n) => !migrations.some((m) => m.name === n));
    if (missing.length > 0 || extra.length > 0) {
      throw new MigrationError(
        `${recorded.size} finished migration(s) recorded but ${migrations.length} folder(s) on disk` +
          (missing.length ? `; not applied: ${missing.join(', ')}` : '') +
          (extra.length ? `; unknown to this code: ${extra.join(', ')}` : ''),
      );
    }
    return { recorded: recorded.size, folders: migrations.length };
  } catch (err) {
    if (err instanceof MigrationError) throw err;
    throw new MigrationError(`verifying ${describeUrl(url)} failed: ${pgErrorText(err)}`);
  } finally {
    await client.end().catch(() => {});
  }
}
