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
// Each hand-on is a `parse.shard_resumed` event; a shard whose workers died PARSE_MAX_STALLED times
// (a page that kills every worker that reads it) fails the job with its page range instead.
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
  const candidates = await db.parseShard.findMany({
    where: {
      status: 'running',
      worker: { not: null },
      updated_at: { lt: new Date(Date.now() - opts.quietMs) },
      job: { status: { in: ACTIVE } },
    },
    orderBy: { updated_at: 'asc' },
    take: 100,
  });
  if (!candidates.length) return [];
  const live = await liveWorkers(queue);
  if (!live) return [];
  const out: LostShard[] = [];
  for (const sh of candidates) {
    if (live.has(sh.worker!)) continue;
    const entry = await queue.getJob(shardQueueId(sh.job_id, sh.shard_no));
    if (!entry || (await entry.getState()) !== 'active') continue; // waiting or delayed: a worker will take it
    // One reaper wins the row (several workers run this loop).
    const won = await db.parseShard.updateMany({
      where: {
        job_id: sh.job_id,
        shard_no: sh.shard_no,
        status: 'running',
        worker: sh.worker,
        updated_at: sh.updated_at,
      },
      data: { status: 'queued', updated_at: new Date() },
    });
    if (!won.count) continue;
    const range = sh.first_page === sh.last_page ? `page ${sh.first_page}` : `pages ${sh.first_page}-${sh.last_page}`;
    const before = await db.jobEvent.count({
      where: {
        job_id: sh.job_id,
        event_type: 'parse.shard_resumed',
        payload: { path: ['shard_no'], equals: sh.shard_no },
      },
    });
    // The dead worker's lock token lets BullMQ's own script move the entry; a lock that already
    // expired needs none ('0').
    const client = await queue.client;
    const token = (await client.get(`${queue.toKey(entry.id!)}:lock`)) ?? '0';
    try {
      await entry.moveToWait(token);
    } catch (err) {
      deps.logger.warn({ err, job_id: sh.job_id, shard: sh.shard_no }, 'could not hand a lost shard back');
      continue;
    }
    if (before + 1 > opts.maxLost) {
      const outcome = await failParseJob(db, sh.job_id, `Shard ${range}: ${opts.killedMessage}`, {
        traceback: `the workers running this shard stopped ${before + 1} time(s); last ${sh.worker}`,
        code: 'worker_stopped',
      });
      deps.logger.warn({ job_id: sh.job_id, shard: sh.shard_no, outcome }, 'a shard lost its worker too often');
      out.push({ jobId: sh.job_id, shardNo: sh.shard_no, worker: sh.worker!, outcome: 'failed' });
      continue;
    }
    await addJobEvent(
      db,
      sh.job_id,
      'parse.shard_resumed',
      'parse',
      `Shard ${range}: its worker stopped after ${sh.done_pages} page(s); another worker resumes it from the pages already stored.`,
      {
        shard_no: sh.shard_no,
        first_page: sh.first_page,
        last_page: sh.last_page,
        done_pages: sh.done_pages,
        worker: sh.worker,
      },
    );
    deps.logger.warn({ job_id: sh.job_id, shard: sh.shard_no, worker: sh.worker }, 'resumed a shard whose worker died');
    out.push({ jobId: sh.job_id, shardNo: sh.shard_no, worker: sh.worker!, outcome: 'resumed' });
  }
  return out;
}
