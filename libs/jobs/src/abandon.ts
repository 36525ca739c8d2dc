// Jobs that died without a terminal state (their worker was killed and the queue lost them): run on
// a schedule by services/billing beside the ledger's duties.
import { finalizeReservation } from '@docfleet/billing';
import type { Db } from '@docfleet/db';
import { redactDetail } from '@docfleet/errors';
import { addJobEvent } from './events';
import { RUNNING_JOB_STATUSES, TERMINAL_JOB_STATUSES } from './status';
import { emitJobEnded } from '@docfleet/webhooks';

export interface AbandonOptions {
  now?: Date;
  /** A running job with no progress write for this long is dead (workers bump updated_at on progress). */
  runningStaleMs: number;
  /** A queued job older than this lost its queue entry (e.g. Redis was flushed). */
  queuedStaleMs: number;
}

/** Fails jobs that died without a terminal state and closes their reservations in the same transaction. */
export async function failAbandonedJobs(db: Db, opts: AbandonOptions): Promise<string[]> {
  const now = opts.now ?? new Date();
  const running = new Date(now.getTime() - opts.runningStaleMs);
  const queued = new Date(now.getTime() - opts.queuedStaleMs);
  const stale = await db.job.findMany({
    where: {
      OR: [
        { status: { in: RUNNING_JOB_STATUSES }, updated_at: { lt: running } },
        { status: 'queued', updated_at: { lt: queued } },
      ],
    },
    select: { id: true },
    take: 500,
  });
  const jobsFailed: string[] = [];
  for (const { id } of stale) {
    const done = await db.$transaction(async (tx) => {
      // SKIP LOCKED: a worker finishing this job right now wins; we look again next round.
      const rows = await tx.$queryRaw<{ id: string; status: string; updated_at: Date }[]>`
        SELECT id, status, updated_at FROM jobs WHERE id = ${id}::uuid FOR UPDATE SKIP LOCKED`;
      const job = rows[0];
      if (!job || TERMINAL_JOB_STATUSES.includes(job.status)) return false;
      const minutes = Math.round((now.getTime() - job.updated_at.getTime()) / 60000);
      const reason =
        job.status === 'queued'
          ? `abandoned: queued for ${minutes} minutes without a worker picking it up (its queue entry was lost); dispatch it again`
          : `abandoned: the worker stopped reporting progress ${minutes} minutes ago (it was probably killed); dispatch it again`;
      // The failure carries its code (docs/errors.md, Job failures) and a sentence of ours, redacted
      // like every job failure: nothing of the host (paths) or the code (stack frames).
      const error = redactDetail(reason);
      await tx.job.update({
        where: { id },
        data: { status: 'failed', error, error_code: 'abandoned', completed_at: now },
      });
      await addJobEvent(tx, id, 'job.failed', null, error, { code: 'abandoned', traceback: error, reaped: true });
      await finalizeReservation(tx, { jobId: id, outcome: 'failed' });
      await emitJobEnded(tx, id);
      return true;
    });
    if (done) jobsFailed.push(id);
  }
  return jobsFailed;
}
