import { createHash } from 'node:crypto';
import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient, Prisma } from './generated/client';

export { PrismaClient, Prisma };
export * from './generated/client';

export interface DbOptions {
  /** Maximum connections in this process's pool (env DB_POOL_MAX in the services). */
  poolMax?: number;
  /** How long a transaction may wait for a pooled connection (Prisma's maxWait; its default is 2 s). */
  txMaxWaitMs?: number;
  /** How long an interactive transaction may run before it is rolled back (Prisma's default is 5 s). */
  txTimeoutMs?: number;
}

/**
 * Under a burst a transaction queues for a connection: Prisma's 2 s default turned a busy pool into
 * 500s (issue 13.4), so the wait is 20 s; past it the caller gets a database-unavailable error
 * (isDatabaseUnavailable), which the gateway answers 503 service_unavailable.
 */
export const TX_MAX_WAIT_MS = 20_000;
export const TX_TIMEOUT_MS = 20_000;

/** A Prisma client over node-postgres: no query engine binary is needed (see prisma/README.md). */
export function createPrismaClient(url: string, opts: DbOptions = {}): PrismaClient {
  // connectionTimeoutMillis: an unreachable server fails a request in seconds instead of hanging it.
  const pool = new Pool({ connectionString: url, max: opts.poolMax ?? 10, connectionTimeoutMillis: 10_000 });
  // A connection the server drops while idle (a restart) emits 'error' on the pool: without a
  // listener that would end the process. The pool replaces it on the next checkout.
  pool.on('error', () => undefined);
  // disposeExternalPool: $disconnect ends the pool, as it does when the adapter owns it.
  const client = new PrismaClient({
    adapter: new PrismaPg(pool, { disposeExternalPool: true }),
    transactionOptions: { maxWait: opts.txMaxWaitMs ?? TX_MAX_WAIT_MS, timeout: opts.txTimeoutMs ?? TX_TIMEOUT_MS },
  });
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
export async function queryRows<T>(db: PrismaClient, stmt: Prisma.Sql, opts: QueryOptions = {}): Promise<T[]> {
  const pool = pools.get(db);
  if (!pool) return db.$queryRaw<T[]>(stmt);
  const name = opts.prepared ? statementName(stmt.text) : undefined;
  return (await pool.query({ name, text: stmt.text, values: stmt.values as unknown[] })).rows as T[];
}

/**
 * Runs `fn` in one transaction on one connection of the client's node-postgres pool (BEGIN, then
 * COMMIT, or ROLLBACK when `fn` throws), its statements skipping Prisma as queryRows does: for hot
 * paths where Prisma's per-statement work (query compilation, result mapping) costs more CPU than
 * the statement. Values come back as node-postgres types, as from queryRows.
 */
export async function rawTransaction<T>(
  db: PrismaClient,
  fn: (query: <R>(stmt: Prisma.Sql) => Promise<R[]>) => Promise<T>,
): Promise<T> {
  const pool = pools.get(db);
  if (!pool) return db.$transaction((tx) => fn((stmt) => tx.$queryRaw(stmt)));
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const out = await fn(
      async <R>(stmt: Prisma.Sql) =>
        (await client.query({ text: stmt.text, values: stmt.values as unknown[] })).rows as R[],
    );
    await client.query('COMMIT');
    return out;
  } catch (err) {
    // A connection that cannot even roll back is dropped from the pool, not reused mid-transaction.
    await client.query('ROLLBACK').catch((e: Error) => void (broken = e));
    throw err;
  } finally {
    client.release(broken);
  }
}

export interface QueryOptions {
  /**
   * Run as a named prepared statement: each pooled connection parses the text once and, after
   * PostgreSQL's five custom plans, may keep a generic plan, so a repeated statement skips parse and
   * planning (2–5 ms for the search statement; docs/benchmarks.md). The name is a hash of the text,
   * so the same text always has the same name and different texts never share one. Only for
   * statements whose text comes from a small set of shapes (numbers of our own, never caller text).
   */
  prepared?: boolean;
}

const statementNames = new Map<string, string>();

/** A stable name for a statement text (remembered for up to 1,000 texts, else recomputed). */
export function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `dq_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    if (statementNames.size < 1000) statementNames.set(text, name);
  }
  return name;
}

export type Db = PrismaClient;
export type Tx = Prisma.TransactionClient;

/** True when err is a unique-constraint violation (Prisma P2002 or raw SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; meta?: { code?: string }; cause?: { code?: string } };
  return e?.code === 'P2002' || e?.code === '23505' || e?.meta?.code === '23505' || e?.cause?.code === '23505';
}

// Prisma codes for "the database could not serve this now": unreachable (P1001/P1002), timed out
// (P1008), connection closed (P1017), pool or transaction start timeout (P2024/P2028), too many
// connections (P2037).
const UNAVAILABLE_PRISMA = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024', 'P2028', 'P2037']);
// SQLSTATEs of the same: connection exceptions (08…), too many connections (53300), shutdown or
// start-up in progress (57P01–57P03), query cancelled by a timeout (57014), lock timeout (55P03).
const UNAVAILABLE_SQLSTATE = /^(08...|53300|57P0[123]|57014|55P03)$/;
const UNAVAILABLE_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH']);
const UNAVAILABLE_KIND = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
const UNAVAILABLE_MESSAGE =
  /Unable to start a transaction in the given time|Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|terminating connection due to administrator command|the database system is (starting up|shutting down)|Cannot use a pool after calling end/i;

/**
 * True when err says the database is unreachable, restarting or too busy to serve the request in
 * time: a condition a retry can clear, never the request's fault (the gateway answers 503
 * service_unavailable; workers let the queue retry). Looks through Prisma's wrappers (meta, cause)
 * at the driver's own error.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const walk = (e: unknown, depth: number): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e) || depth > 6) return false;
    seen.add(e);
    const x = e as {
      code?: unknown;
      kind?: unknown;
      originalCode?: unknown;
      message?: unknown;
      name?: unknown;
      meta?: unknown;
      cause?: unknown;
      driverAdapterError?: unknown;
    };
    const code = typeof x.code === 'string' ? x.code : undefined;
    if (code && (UNAVAILABLE_PRISMA.has(code) || UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET.has(code)))
      return true;
    if (typeof x.originalCode === 'string' && UNAVAILABLE_SQLSTATE.test(x.originalCode)) return true;
    if (typeof x.kind === 'string' && UNAVAILABLE_KIND.has(x.kind)) return true;
    if (typeof x.message === 'string' && UNAVAILABLE_MESSAGE.test(x.message)) return true;
    return walk(x.meta, depth + 1) || walk(x.cause, depth + 1) || walk(x.driverAdapterError, depth + 1);
  };
  return walk(err, 0);
}

/** An index job about to be queued (issue 13.6): its queue job id, knowledge base, name and payload. */
export interface PendingIndexJob {
  jobId: string;
  orgId: string;
  kbId: string;
  name: 'index.file-version' | 'index.remove-file';
  payload: Record<string, unknown>;
}

/**
 * Records an index job as pending before it is queued, so search's snapshot.pending_updates counts
 * it from the moment it exists until the index worker applies it (clearPendingIndexJob in the same
 * transaction). Recording the same job id twice keeps one row.
 */
export async function recordPendingIndexJob(db: Db | Tx, j: PendingIndexJob): Promise<void> {
  await db.indexPendingUpdate.createMany({
    data: [
      {
        job_id: j.jobId,
        org_id: j.orgId,
        knowledge_base_id: j.kbId,
        name: j.name,
        payload: j.payload as Prisma.InputJsonValue,
      },
    ],
    skipDuplicates: true,
  });
}

/** The index job was applied (or skipped as having nothing to do): it is no longer pending. */
export async function clearPendingIndexJob(db: Db | Tx, jobId: string | undefined): Promise<void> {
  if (jobId) await db.indexPendingUpdate.deleteMany({ where: { job_id: jobId } });
}
