import { requirePermission, type Principal } from '@docfleet/auth';
import type { Db } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { TERMINAL_JOB_STATUSES, requestJobCancel } from '@docfleet/jobs';
import type { Deps } from '../../deps';
import { loadFile } from '../files/files';

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

/** Cooperative cancel (libs/jobs requestJobCancel); a job cancelled while queued leaves the queue too. */
export async function cancelJob(
  deps: Pick<Deps, 'db' | 'queues' | 'logger'>,
  p: Principal,
  fileId: string,
  jobId: string,
) {
  const { job } = await loadJob(deps.db, p, fileId, jobId);
  requirePermission(p, job.kind === 'extract' ? 'extract.run' : 'parse.run');
  if (TERMINAL_JOB_STATUSES.includes(job.status)) return job;
  const out = await requestJobCancel(deps.db, job.id);
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
