// Test databases: jest's global setup migrates one template database; every test that needs a
// database clones it (CREATE DATABASE ... TEMPLATE copies files, far faster than migrating).
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { createPrismaClient, type PrismaClient } from '@docfleet/db';
import { DEFAULT_MIGRATIONS_DIR, migrate, quoteIdent } from '@docfleet/db/src/migrate';

/**
 * The template is named after a hash of the migrations, so checkouts with different migrations
 * (two branches, or CI beside a working tree) sharing one PostgreSQL server never clone each other's.
 */
function templateName(): string {
  const h = createHash('sha256');
  for (const dir of readdirSync(DEFAULT_MIGRATIONS_DIR).sort()) {
    try {
      h.update(dir).update(readFileSync(path.join(DEFAULT_MIGRATIONS_DIR, dir, 'migration.sql')));
    } catch {
      // not a migration folder (migration_lock.toml)
    }
  }
  return `docfleet_test_template_${h.digest('hex').slice(0, 12)}`;
}
export const TEMPLATE_DB = templateName();
export const TEST_DB_PREFIX = 'docfleet_test_';
/** Serialises template swaps between jest runs started at the same time on one server. */
const TEMPLATE_LOCK_KEY = 72707370;

export interface TestDb {
  url: string;
  db: PrismaClient;
  drop(): Promise<void>;
}

/** A URL on the test server's `postgres` database (env TEST_DATABASE_ADMIN_URL). */
export function adminUrl(): string {
  return process.env.TEST_DATABASE_ADMIN_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
}

/** The same server and credentials as adminUrl(), on database `name`. */
export function testDbUrl(name: string): string {
  const u = new URL(adminUrl());
  u.pathname = `/${encodeURIComponent(name)}`;
  return u.toString();
}

async function withAdmin<T>(fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl(), connectionTimeoutMillis: 10_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Rebuilds the template from prisma/migrations: migrates a build database, then swaps it in, so
 * another jest run cloning the template meanwhile never sees it half-built (createTestDb retries
 * over the moment of the swap).
 */
export async function rebuildTemplate(log: (line: string) => void = () => {}): Promise<void> {
  const build = `${TEMPLATE_DB}_build_${process.pid}_${randomBytes(3).toString('hex')}`;
  try {
    await migrate(testDbUrl(build), { log });
    await withAdmin(async (admin) => {
      await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
      try {
        await admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(TEMPLATE_DB)} WITH (FORCE)`);
        await admin.query(`ALTER DATABASE ${quoteIdent(build)} RENAME TO ${quoteIdent(TEMPLATE_DB)}`);
      } finally {
        await admin.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]).catch(() => {});
      }
    });
  } catch (err) {
    await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(build)} WITH (FORCE)`)).catch(
      () => {},
    );
    throw err;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A fresh, fully migrated database of its own, with a Prisma client on it. */
export async function createTestDb(): Promise<TestDb> {
  const name = `${TEST_DB_PREFIX}${randomBytes(8).toString('hex')}`;
  await withAdmin(async (admin) => {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${quoteIdent(name)} TEMPLATE ${quoteIdent(TEMPLATE_DB)}`);
        return;
      } catch (err) {
        // 3D000: template missing during a swap; 55006: template in use (being swapped or migrated).
        const code = (err as { code?: string }).code;
        if ((code !== '3D000' && code !== '55006') || attempt >= 40) {
          const hint = code === '3D000' ? ' (jest globalSetup libs/testing/src/global-setup.ts builds it)' : '';
          throw new Error(`cannot create test database from ${TEMPLATE_DB}: ${(err as Error).message}${hint}`);
        }
        await sleep(250);
      }
    }
  });
  const url = testDbUrl(name);
  const db = createPrismaClient(url, { poolMax: 4 });
  let dropped = false;
  return {
    url,
    db,
    async drop() {
      if (dropped) return;
      dropped = true;
      await db.$disconnect().catch(() => {});
      await withAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${quoteIdent(name)} WITH (FORCE)`));
    },
  };
}

/**
 * A named database that outlives its user (benchmarks only, spawnGateway's `keepDatabase`): created
 * from the migrations when missing, migrated when present, and only disconnected by drop(), so a
 * benchmark can reuse data that takes minutes to build.
 */
export async function keptTestDb(name: string): Promise<TestDb> {
  if (!/^[a-z][a-z0-9_]{2,62}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const url = testDbUrl(name);
  await migrate(url);
  const db = createPrismaClient(url, { poolMax: 4 });
  return { url, db, drop: () => db.$disconnect() };
}
