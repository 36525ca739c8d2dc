// Jobs the queue has given up on never reach the handler again: a job whose worker was killed
// more often than PARSE_MAX_STALLED allows is moved to BullMQ's failed set by its Lua script, and a
// queue entry can be lost with Redis. The reaper finds active job rows whose queue entry is
// failed, finished or gone, and fails them with their reservation closed.
import { redactDetail } from '@docfleet/errors';
import type { QueueClient } from '@docfleet/queue';
import type { WorkerDeps } from './deps';
import { failParseJob } from '@docfleet/jobs';
import { shardQueueId } from './shards';

export const KILLED_MESSAGE =
  'The parse worker was stopped while processing this document (for example killed by the container runtime for insufficient memory) and the retry stopped too. The input may be fine: parse it again, or on-premises give the worker more memory.';

/**
 * `staleMs`: a running job is a candidate once its heartbeat is this old (its worker is gone or
 * stuck), a queued one once it has waited this long; either is reaped only when its queue entry can
 * no longer run it. A job whose worker still beats is left alone even when its entry is gone (Redis
 * restarted under it): the worker finishes it.
 */
export async function reapOnce(
  deps: Pick<WorkerDeps, 'db' | 'logger'>,
  queue: ReturnType<QueueClient['queue']>,
  staleMs: number,
): Promise<string[]> {
  const before = new Date(Date.now() - staleMs);
  const stale = await deps.db.job.findMany({
    where: {
      kind: 'parse',
      OR: [
        { status: 'queued', updated_at: { lt: before } },
        { status: { in: ['started', 'in_progress', 'running'] }, heartbeat_at: { lt: before } },
        { status: { in: ['started', 'in_progress', 'running'] }, heartbeat_at: null, updated_at: { lt: before } },
      ],
    },
    select: { id: true },
    orderBy: { updated_at: 'asc' },
    take: 200,
  });
  const reaped: string[] = [];
  const gaveUp = (state: string) =>
    state === 'failed' || state === 'completed' || state === 'missing' || state === 'unknown';
  const reap = async (id: string, message: string, code: string, traceback: string, extra: object) => {
    const outcome = await failParseJob(deps.db, id, message, { traceback, code });
    if (outcome === 'failed') {
      reaped.push(id);
      deps.logger.warn({ job_id: id, ...extra }, 'reaped a parse job the queue gave up on');
    }
  };

  // Sharded parses: a shard whose worker died more often than allowed (or whose entry is gone)
  // fails the job with its page range, even while other shards keep the job's heartbeat fresh.
  const staleShards = await deps.db.parseShard.findMany({
    where: {
      status: { not: 'done' },
      updated_at: { lt: before },
      job: { status: { in: ['started', 'in_progress', 'running'] } },
    },
    orderBy: { updated_at: 'asc' },
    take: 200,
  });
  for (const sh of staleShards) {
    if (reaped.includes(sh.job_id)) continue;
    const entry = await queue.getJob(shardQueueId(sh.job_id, sh.shard_no));
    const state = entry ? await entry.getState() : 'missing';
    if (!gaveUp(state)) continue;
    const stalled = /stalled/i.test(entry?.failedReason ?? '');
    const range = sh.first_page === sh.last_page ? `page ${sh.first_page}` : `pages ${sh.first_page}-${sh.last_page}`;
    await reap(
      sh.job_id,
      stalled
        ? `Shard ${range}: ${KILLED_MESSAGE}`
        : `Shard ${range} was lost by the queue (its entry is ${state}); nothing was charged. Parse the file again.`,
      stalled ? 'worker_stopped' : 'queue_entry_lost',
      redactDetail(entry?.failedReason || `queue entry ${state}`),
      { shard: sh.shard_no, state, failed_reason: entry?.failedReason },
    );
  }

  for (const { id } of stale) {
    if (reaped.includes(id)) continue;
    const shards = await deps.db.parseShard.findMany({
      where: { job_id: id },
      select: { shard_no: true, status: true },
    });
    if (shards.length) {
      // Open shards are watched above; with every shard done, the one assembling may have died for good.
      if (shards.some((x) => x.status !== 'done')) continue;
      let failed: string | undefined;
      for (const x of shards) {
        const e = await queue.getJob(shardQueueId(id, x.shard_no));
        if (e && (await e.getState()) === 'failed') failed = e.failedReason;
      }
      if (failed === undefined) continue;
      await reap(id, `Assembling the bundle: ${KILLED_MESSAGE}`, 'worker_stopped', redactDetail(failed), {
        failed_reason: failed,
      });
      continue;
    }
    const entry = await queue.getJob(id);
    const state = entry ? await entry.getState() : 'missing';
    if (state !== 'failed' && state !== 'completed' && state !== 'missing' && state !== 'unknown') continue;
    const stalled = /stalled/i.test(entry?.failedReason ?? '');
    const message = stalled
      ? KILLED_MESSAGE
      : `The parse job was lost by the queue (its entry is ${state}); nothing was charged. Parse the file again.`;
    // BullMQ's failedReason and stack trace go to the log below; the event gets the reason, redacted.
    const traceback = redactDetail(entry?.failedReason || `queue entry ${state}`);
    const outcome = await failParseJob(deps.db, id, message, {
      traceback,
      code: stalled ? 'worker_stopped' : 'queue_entry_lost',
    });
    if (outcome === 'failed') {
      reaped.push(id);
      deps.logger.warn(
        { job_id: id, state, failed_reason: entry?.failedReason, stacktrace: entry?.stacktrace },
        'reaped a parse job the queue gave up on',
      );
    }
  }
  return reaped;
}
