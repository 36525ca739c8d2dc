// A shard whose worker was killed (kill -9, OOM) is handed to another worker within seconds, not
// when BullMQ would notice. BullMQ finds a dead worker's job only through its lock: the lock has to
// expire (PARSE_LOCK_SECONDS, 45 s, long because one page may hold the event loop for up to its
// 30 s budget and a shorter lock hands live shards on) and then two stalled-check passes
// (PARSE_STALLED_INTERVAL_SECONDS) must see it, so a killed worker's shard sat `running` for 45-75 s
// with nobody on it, and every kill of a long document cost that much.
//
// A dead process is known sooner: its Redis connections close with it. Every parse worker names its
// Redis connection `docfleet:parse-worker:<workerId>` (the id its shard rows carry); a running shard
// whose row has not moved for `quietMs` and whose worker has no connection left is moved back to the
// front of the queue with its lock token (BullMQ's own moveToWait), so the next free worker resumes
// it and skips the pages already stored. BullMQ's stalled check stays as the fallback (a Redis that
// does not answer CLIENT LIST, a worker whose connection is gone but not the process: the shard is
// then run twice, which is safe, as pages are stored by rename and debited idempotently).
//
// Each hand-on is one `parse.shard_resumed` event (payload `path` says which path moved the shard); a
// shard whose workers died PARSE_MAX_STALLED times (a page that kills every worker that reads it)
// fails the job with its page range instead. A killed worker's shard reaches another worker by one
// of two paths, and the event is written in the same transaction as the shard row change that
// decides the hand-on, so each hand-on has it exactly once whatever dies or fails in between:
// - 'lost-shard check' (resumeLostShards): the row goes `running` → `queued` together with the
//   event, then the queue entry is moved back to wait. The entry is moved only while it is still
//   active for a dead worker (BullMQ's `processedBy`, the worker name each parse worker gives
//   BullMQ): a shard a live worker has taken meanwhile is left to it. If the move fails (the lock
//   changed or expired in between) or the reaper itself is killed before it, the next pass of any
//   worker moves it (sweepOrphans: a `queued` row whose entry is still active for a dead worker),
//   seconds later, not when BullMQ's stalled check would.
// - 'queue redelivery' (takeShard, in the handler): BullMQ's stalled check moved the entry before
//   any lost-shard check did (none ran: no live worker, or CLIENT LIST refused) and a worker takes
//   a row still `running` for another worker; it takes the row and writes the event together.
// A worker that hands a shard back alive (grace period over, or a failed attempt to be retried)
// sets its row `queued` (releaseShard), so the next worker does not count it as lost.
import type { Tx } from '@docfleet/db';
import type { QueueClient } from '@docfleet/queue';
import { addJobEvent, failParseJob } from '@docfleet/jobs';
import type { WorkerDeps } from './deps';
import { shardQueueId } from './shards';

export const WORKER_CONNECTION_PREFIX = 'docfleet:parse-worker:';
export const workerConnectionName = (workerId: string) => `${WORKER_CONNECTION_PREFIX}${workerId}`;

const ACTIVE = ['started', 'in_progress', 'running'];

/** Worker ids with a live Redis connection, or null when the server will not list its clients. */
export async function liveWorkers(queue: ReturnType<QueueClient['queue']>): Promise<Set<string> | null> {
  // ioredis under BullMQ's client type (which leaves out CLIENT).
  const client = (await queue.client) as unknown as { call(...args: string[]): Promise<unknown> };
  let list: string;
  try {
    list = String(await client.call('CLIENT', 'LIST'));
  } catch {
    return null;
  }
  const ids = new Set<string>();
  for (const line of list.split('\n')) {
    const m = / name=(\S+)/.exec(line);
    if (m && m[1]!.startsWith(WORKER_CONNECTION_PREFIX)) ids.add(m[1]!.slice(WORKER_CONNECTION_PREFIX.length));
  }
  return ids;
}

export type HandOnPath = 'lost-shard check' | 'queue redelivery';

interface ShardRow {
  job_id: string;
  shard_no: number;
  first_page: number;
  last_page: number;
  done_pages: number;
  worker: string | null;
}

const rangeOf = (sh: Pick<ShardRow, 'first_page' | 'last_page'>) =>
  sh.first_page === sh.last_page ? `page ${sh.first_page}` : `pages ${sh.first_page}-${sh.last_page}`;

/** Hand-ons of this shard recorded so far. */
const resumedCount = (tx: Tx, jobId: string, shardNo: number) =>
  tx.jobEvent.count({
    where: { job_id: jobId, event_type: 'parse.shard_resumed', payload: { path: ['shard_no'], equals: shardNo } },
  });

/** The `parse.shard_resumed` event: call it only in the transaction that changes the shard row. */
async function recordResumed(tx: Tx, sh: ShardRow, path: HandOnPath) {
  await addJobEvent(
    tx,
    sh.job_id,
    'parse.shard_resumed',
    'parse',
    `Shard ${rangeOf(sh)}: its worker stopped after ${sh.done_pages} page(s); another worker resumes it from the pages already stored.`,
    {
      shard_no: sh.shard_no,
      first_page: sh.first_page,
      last_page: sh.last_page,
      done_pages: sh.done_pages,
      worker: sh.worker,
      path,
    },
  );
}

/**
 * The handler takes its shard: the row becomes `running` for this worker. A row still `running` for
 * another worker means that worker lost it and BullMQ redelivered the entry before a lost-shard check
 * handed it on: that hand-on is recorded here, in the same transaction (the job row is locked first,
 * as markShardDone does). Returns false when the shard is already done.
 */
export async function takeShard(deps: Pick<WorkerDeps, 'db' | 'logger' | 'workerId'>, jobId: string, shardNo: number) {
  return deps.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM jobs WHERE id = ${jobId}::uuid FOR UPDATE`;
    const [row] = await tx.$queryRaw<Array<ShardRow & { status: string }>>`
      SELECT job_id::text, shard_no, first_page, last_page, done_pages, worker, status FROM parse_shards
      WHERE job_id = ${jobId}::uuid AND shard_no = ${shardNo} FOR UPDATE`;
    if (!row || row.status === 'done') return false;
    await tx.parseShard.update({
      where: { job_id_shard_no: { job_id: jobId, shard_no: shardNo } },
      data: { status: 'running', worker: deps.workerId, attempts: { increment: 1 }, updated_at: new Date() },
    });
    if (row.status === 'running' && row.worker && row.worker !== deps.workerId) {
      await recordResumed(tx, row, 'queue redelivery');
      deps.logger.warn(
        { job_id: jobId, shard: shardNo, worker: row.worker, path: 'queue redelivery' },
        'resumed a shard whose worker died',
      );
    }
    return true;
  });
}

/** A live worker hands its shard back (grace over, attempt to be retried): not a lost shard. */
export async function releaseShard(deps: Pick<WorkerDeps, 'db' | 'workerId'>, jobId: string, shardNo: number) {
  await deps.db.parseShard.updateMany({
    where: { job_id: jobId, shard_no: shardNo, status: 'running', worker: deps.workerId },
    data: { status: 'queued', updated_at: new Date() },
  });
}

/**
 * Moves an entry that is active for a dead worker back to the front of the queue (BullMQ's own
 * moveToWait). The lock token is read first, then who holds the entry (`processedBy`, or `holder`
 * for an entry taken by a worker that does not name itself), then which workers are alive (a fresh
 * CLIENT LIST: a worker's named connection opens before it takes any job, so a holder missing from
 * it is dead). A worker taking the entry after the token was read has another token, and BullMQ
 * refuses the move; only an entry whose lock had already expired is moved without a token. False
 * when it was not moved (held by a live worker, not active any more); the next pass looks again.
 */
async function moveBack(queue: ReturnType<QueueClient['queue']>, entryId: string, holder?: string): Promise<boolean> {
  const client = await queue.client;
  const token = await client.get(`${queue.toKey(entryId)}:lock`);
  const entry = await queue.getJob(entryId);
  if (!entry || (await entry.getState()) !== 'active') return false;
  const by = entry.processedBy ?? holder;
  const live = await liveWorkers(queue);
  if (!by || !live || live.has(by)) return false;
  await entry.moveToWait(token ?? '0');
  return true;
}

export interface LostShard {
  jobId: string;
  shardNo: number;
  worker: string;
  outcome: 'resumed' | 'failed';
}

export async function resumeLostShards(
  deps: Pick<WorkerDeps, 'db' | 'logger'>,
  queue: ReturnType<QueueClient['queue']>,
  opts: { quietMs: number; maxLost: number; killedMessage: string },
): Promise<LostShard[]> {
  const db = deps.db;
  const quietSince = new Date(Date.now() - opts.quietMs);
  const candidates = await db.parseShard.findMany({
    where: {
      status: 'running',
      worker: { not: null },
      updated_at: { lt: quietSince },
      job: { status: { in: ACTIVE } },
    },
    orderBy: { updated_at: 'asc' },
    take: 100,
  });
  // Rows a lost-shard check handed back whose entry it did not get to move (the move failed, or that
  // worker was killed in between).
  const orphans = await db.parseShard.findMany({
    where: { status: 'queued', worker: { not: null }, updated_at: { lt: quietSince }, job: { status: { in: ACTIVE } } },
    orderBy: { updated_at: 'asc' },
    take: 100,
  });
  if (!candidates.length && !orphans.length) return [];
  const live = await liveWorkers(queue);
  if (!live) return [];
  const dead = (worker: string) => !live.has(worker);
  const out: LostShard[] = [];
  for (const sh of orphans) {
    const entry = await queue.getJob(shardQueueId(sh.job_id, sh.shard_no));
    if (!entry?.processedBy || !dead(entry.processedBy) || (await entry.getState()) !== 'active') continue;
    try {
      if (await moveBack(queue, entry.id!))
        deps.logger.warn({ job_id: sh.job_id, shard: sh.shard_no }, 'moved a handed-back shard to the queue');
    } catch (err) {
      deps.logger.warn({ err, job_id: sh.job_id, shard: sh.shard_no }, 'could not hand a lost shard back');
    }
  }
  for (const sh of candidates) {
    if (!dead(sh.worker!)) continue;
    const entry = await queue.getJob(shardQueueId(sh.job_id, sh.shard_no));
    // Waiting or delayed: a worker will take it (and record the hand-on, takeShard).
    if (!entry || (await entry.getState()) !== 'active') continue;
    // Active for a live worker (BullMQ redelivered it): that worker's takeShard records the hand-on.
    if (entry.processedBy && !dead(entry.processedBy)) continue;
    // One reaper wins the row (several workers run this loop), and writes the event with it.
    const decided = await db.$transaction(async (tx) => {
      await tx.$queryRaw`SELECT id FROM jobs WHERE id = ${sh.job_id}::uuid FOR UPDATE`;
      const won = await tx.parseShard.updateMany({
        where: {
          job_id: sh.job_id,
          shard_no: sh.shard_no,
          status: 'running',
          worker: sh.worker,
          updated_at: sh.updated_at,
        },
        data: { status: 'queued', updated_at: new Date() },
      });
      if (!won.count) return null;
      const before = await resumedCount(tx, sh.job_id, sh.shard_no);
      if (before + 1 > opts.maxLost) return { fail: before + 1 };
      await recordResumed(tx, sh, 'lost-shard check');
      return { fail: 0 };
    });
    if (!decided) continue;
    try {
      await moveBack(queue, entry.id!, sh.worker!);
    } catch (err) {
      // The row is `queued` and the hand-on recorded: the next pass moves the entry (orphans above).
      deps.logger.warn({ err, job_id: sh.job_id, shard: sh.shard_no }, 'could not hand a lost shard back');
    }
    if (decided.fail) {
      const outcome = await failParseJob(db, sh.job_id, `Shard ${rangeOf(sh)}: ${opts.killedMessage}`, {
        traceback: `the workers running this shard stopped ${decided.fail} time(s); last ${sh.worker}`,
        code: 'worker_stopped',
      });
      deps.logger.warn({ job_id: sh.job_id, shard: sh.shard_no, outcome }, 'a shard lost its worker too often');
      out.push({ jobId: sh.job_id, shardNo: sh.shard_no, worker: sh.worker!, outcome: 'failed' });
      continue;
    }
    deps.logger.warn(
      { job_id: sh.job_id, shard: sh.shard_no, worker: sh.worker, path: 'lost-shard check' },
      'resumed a shard whose worker died',
    );
    out.push({ jobId: sh.job_id, shardNo: sh.shard_no, worker: sh.worker!, outcome: 'resumed' });
  }
  return out;
}
