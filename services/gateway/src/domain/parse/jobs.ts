import { requirePermission, type Principal } from '@docfleet/auth';
import { finalizeReservation } from '@docfleet/billing';
import type { Db } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import type { Deps } from '../../deps';
import { loadFile } from '../files/files';
import { emitJobEnded } from '@docfleet/webhooks';

export const TERMINAL_JOB_STATUSES = ['completed', 'failed', 'cancelled'];

/** A job of a file the caller can see; another file's or organisation's job looks unknown. */
export async function loadJob(db: Db, p: Principal, fileId: string, jobId: string) {
  const file = await loadFile(db, p, fileId);
  const job = await db.job.findFirst({ where: { id: jobId, file_id: file.id, org_id: p.orgId } });
  if (!job) throw new ApiError('job_not_found', 'Job not found.');
  return { file, job };
}

/** Newest first, parse and extract jobs together. */
export async function listJobs(db: Db, p: Principal, fileId: string) {
  const file = await loadFile(db, p, fileId);
  return db.job.findMany({
    where: { file_id: file.id, org_id: p.orgId },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    take: 500,
  });
}

/** Oldest first (the serial id orders them). */
export async function listJobEvents(db: Db, p: Principal, fileId: string, jobId: string) {
  const { job } = await loadJob(db, p, fileId, jobId);
  return db.jobEvent.findMany({ where: { job_id: job.id }, orderBy: { id: 'asc' } });
}

/**
 * Cooperative cancel (decisions.md). A queued job is cancelled at once and its reservation closed
 * as cancelled in the same transaction; a running job gets cancel_requested_at and the worker stops
 * at its next page or stage boundary; a terminal job is returned as it is.
 */
export async function cancelJob(
  deps: Pick<Deps, 'db' | 'queues' | 'logger'>,
  p: Principal,
  fileId: string,
  jobId: string,
) {
  const { job } = await loadJob(deps.db, p, fileId, jobId);
  requirePermission(p, job.kind === 'extract' ? 'extract.run' : 'parse.run');
  if (TERMINAL_JOB_STATUSES.includes(job.status)) return job;
  const out = await deps.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM jobs WHERE id = ${job.id}::uuid FOR UPDATE`;
    const fresh = await tx.job.findUniqueOrThrow({ where: { id: job.id } });
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
      await tx.jobEvent.create({
        data: {
          job_id: fresh.id,
          event_type: 'job.cancelled',
          stage: fresh.stage,
          message: 'Cancelled before a worker started it; the reservation was cancelled.',
          payload: {},
        },
      });
      return { job: cancelled, removeFromQueue: true };
    }
    const requested = await tx.job.update({
      where: { id: fresh.id },
      data: { cancel_requested_at: fresh.cancel_requested_at ?? now },
    });
    if (!fresh.cancel_requested_at) {
      await tx.jobEvent.create({
        data: {
          job_id: fresh.id,
          event_type: 'job.cancel_requested',
          stage: fresh.stage,
          message: 'Cancellation requested; the worker stops at the next page or stage.',
          payload: {},
        },
      });
    }
    return { job: requested, removeFromQueue: false };
  });
  if (out.removeFromQueue) {
    // Best effort: a worker that still picks it up sees the cancelled row and skips it.
    try {
      await (await deps.queues.queue(job.kind === 'extract' ? 'workflow' : 'parse').getJob(job.id))?.remove();
    } catch (err) {
      deps.logger.debug({ err: (err as Error).message, job_id: job.id }, 'cancel: queue entry not removed');
    }
  }
  return out.job;
}

/** Removes failed parse and extract jobs of a file and their events (manager access). */
export async function clearFailedJobs(db: Db, p: Principal, fileId: string) {
  const file = await loadFile(db, p, fileId, { level: 'manager' });
  const failed = await db.job.findMany({
    where: { file_id: file.id, org_id: p.orgId, status: 'failed', kind: { in: ['parse', 'extract'] } },
    select: { id: true, kind: true },
  });
  const ids = failed.map((j) => j.id);
  if (ids.length) {
    await db.$transaction(async (tx) => {
      await tx.jobEvent.deleteMany({ where: { job_id: { in: ids } } });
      await tx.job.deleteMany({ where: { id: { in: ids }, status: 'failed' } });
    });
  }
  return {
    cleaned: ids.length,
    cleaned_job_ids: ids,
    cleaned_kinds: [...new Set(failed.map((j) => j.kind as 'parse' | 'extract'))],
  };
}
