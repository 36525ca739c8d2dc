// Jobs the queue has given up on never reach the handler again: a job whose worker was killed
// more often than PARSE_MAX_STALLED allows is moved to BullMQ's failed set by its Lua script, and a
// queue entry can be lost with Redis. The reaper finds active job rows whose queue entry is
// failed, finished or gone, and fails them with their reservation closed.
import { redactDetail } from '@docfleet/errors';
import type { QueueClient } from '@docfleet/queue';
import type { WorkerDeps } from './deps';
import { failParseJob } from '@docfleet/jobs';

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
  for (const { id } of stale) {
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
