// Cooperative cancel (docs/api.md, States). A queued job is cancelled at once and its reservation closed
// as cancelled in the same transaction; a running job gets cancel_requested_at and its worker stops
// at its next page or stage boundary (cancelRequested); a terminal job is returned as it is.
import { finalizeReservation } from '@docfleet/billing';
import type { Db, Job, Tx } from '@docfleet/db';
import { addJobEvent } from './events';
import { TERMINAL_JOB_STATUSES } from './status';
import { emitJobEnded } from '@docfleet/webhooks';

export interface CancelRequest {
  job: Job;
  /** The job was cancelled while queued: its queue entry may be removed (best effort). */
  removeFromQueue: boolean;
}

export async function requestJobCancel(db: Db, jobId: string): Promise<CancelRequest> {
  return db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM jobs WHERE id = ${jobId}::uuid FOR UPDATE`;
    const fresh = await tx.job.findUniqueOrThrow({ where: { id: jobId } });
    if (TERMINAL_JOB_STATUSES.includes(fresh.status)) return { job: fresh, removeFromQueue: false };
    const now = new Date();
    if (fresh.status === 'queued') {
      const cancelled = await tx.job.update({
        where: { id: fresh.id },
        data: {
          status: 'cancelled',
          cancel_requested_at: fresh.cancel_requested_at ?? now,
          completed_at: now,
          error: 'Cancelled before it started.',
        },
      });
      await finalizeReservation(tx, { jobId: fresh.id, outcome: 'cancelled' });
      await emitJobEnded(tx, fresh.id);
      await addJobEvent(
        tx,
        fresh.id,
        'job.cancelled',
        fresh.stage,
        'Cancelled before a worker started it; the reservation was cancelled.',
      );
      return { job: cancelled, removeFromQueue: true };
    }
    const requested = await tx.job.update({
      where: { id: fresh.id },
      data: { cancel_requested_at: fresh.cancel_requested_at ?? now },
    });
    if (!fresh.cancel_requested_at) {
      await addJobEvent(
        tx,
        fresh.id,
        'job.cancel_requested',
        fresh.stage,
        'Cancellation requested; the worker stops at the next page or stage.',
      );
    }
    return { job: requested, removeFromQueue: false };
  });
}

/** The worker's checkpoint: stop when a cancel was asked for, or the row is gone or already terminal. */
export async function cancelRequested(db: Db, jobId: string): Promise<boolean> {
  const j = await db.job.findUnique({ where: { id: jobId }, select: { cancel_requested_at: true, status: true } });
  return !j || !!j.cancel_requested_at || TERMINAL_JOB_STATUSES.includes(j.status);
}

/** Locks the job row; returns it unless it is already terminal (then the caller does nothing). */
export async function lockActiveJob(tx: Tx, jobId: string) {
  await tx.$queryRaw`SELECT id FROM jobs WHERE id = ${jobId}::uuid FOR UPDATE`;
  const job = await tx.job.findUnique({ where: { id: jobId } });
  return job && !TERMINAL_JOB_STATUSES.includes(job.status) ? job : null;
}
