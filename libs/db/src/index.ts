import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, Prisma } from './generated/client';

export { PrismaClient, Prisma };
export * from './generated/client';

export interface DbOptions {
  /** Maximum connections in this process's pool (env DB_POOL_MAX in the services). */
  poolMax?: number;
}

/** A Prisma client over node-postgres: no query engine binary is needed (see prisma/README.md). */
export function createPrismaClient(url: string, opts: DbOptions = {}): PrismaClient {
  const adapter = new PrismaPg({ connectionString: url, max: opts.poolMax ?? 10 });
  return new PrismaClient({ adapter });
}

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;

/** True when err is a unique-constraint violation (Prisma P2002 or raw SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; meta?: { code?: string }; cause?: { code?: string } };
  return e?.code === 'P2002' || e?.code === '23505' || e?.meta?.code === '23505' || e?.cause?.code === '23505';
}
