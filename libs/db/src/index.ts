import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient, Prisma } from './generated/client';

export { PrismaClient, Prisma };
export * from './generated/client';

export interface DbOptions {
  /** Maximum connections in this process's pool (env DB_POOL_MAX in the services). */
  poolMax?: number;
}

/** A Prisma client over node-postgres: no query engine binary is needed (see prisma/README.md). */
export function createPrismaClient(url: string, opts: DbOptions = {}): PrismaClient {
  const pool = new Pool({ connectionString: url, max: opts.poolMax ?? 10 });
  // disposeExternalPool: $disconnect ends the pool, as it does when the adapter owns it.
  const client = new PrismaClient({ adapter: new PrismaPg(pool, { disposeExternalPool: true }) });
  pools.set(client, pool);
  return client;
}

const pools = new WeakMap<PrismaClient, Pool>();

/**
 * Runs a raw statement straight on the client's node-postgres pool (the same connections Prisma
 * uses), skipping Prisma's result decoding. For hot read paths whose SQL already returns what the
 * caller needs (the search statement builds its hits as JSON text). Values come back as
 * node-postgres types: int8 as string, json as parsed objects unless cast to text.
 */
export async function queryRows<T>(db: PrismaClient, stmt: Prisma.Sql): Promise<T[]> {
  const pool = pools.get(db);
  if (!pool) return db.$queryRaw<T[]>(stmt);
  return (await pool.query({ text: stmt.text, values: stmt.values as unknown[] })).rows as T[];
}

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;

/** True when err is a unique-constraint violation (Prisma P2002 or raw SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; meta?: { code?: string }; cause?: { code?: string } };
  return e?.code === 'P2002' || e?.code === '23505' || e?.meta?.code === '23505' || e?.cause?.code === '23505';
}
