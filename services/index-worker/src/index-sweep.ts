// Index jobs live only in Redis: a Redis that restarts empty (the quickstart keeps nothing on disk)
// loses the ones not yet run, and their parses would never reach the search index. The sweep finds
// the newest parse manifest of a live file's current version that has no index rows and no index
// queue entry, and queues its index job again (same job id, so a job still known to the queue is
// never doubled) (issue 13.3).
import { clearPendingIndexJob, type Db } from '@docfleet/db';
import { enqueueIndexJob, indexJobIdOf } from '@docfleet/jobs';
import type { Logger } from '@docfleet/logger';
import type { JobPayload, QueueClient } from '@docfleet/queue';

export interface SweepOptions {
  /** A manifest younger than this is left to the index job its parse queued. */
  graceMs: number;
  /**
   * Only manifests of this window are looked at: the queue keeps a completed job's entry an hour,
   * so within it "no entry and no rows" means lost, never "indexed and empty".
   */
  windowMs: number;
}

export async function sweepUnindexed(
  deps: { db: Db; queues: QueueClient; logger: Logger },
  o: SweepOptions,
): Promise<string[]> {
  const now = Date.now();
  const rows = await deps.db.$queryRaw<{ id: string; org_id: string; file_id: string; file_version_id: string }[]>`
    SELECT m.id::text, m.org_id::text, m.file_id::text, m.file_version_id::text
    FROM artifact_manifests m
    JOIN files f ON f.id = m.file_id AND f.current_version_id = m.file_version_id AND f.deleted_at IS NULL
    WHERE m.artifact_type = 'parse'
      AND m.created_at < ${new Date(now - o.graceMs)} AND m.created_at > ${new Date(now - o.windowMs)}
      AND NOT EXISTS (SELECT 1 FROM artifact_manifests n WHERE n.file_version_id = m.file_version_id AND n.artifact_type = 'parse'
        AND (n.created_at, n.id) > (m.created_at, m.id))
      AND NOT EXISTS (SELECT 1 FROM evidence_index_segments s WHERE s.file_version_id = m.file_version_id AND s.artifact_manifest_id = m.id)
    ORDER BY m.created_at LIMIT 200`;
  const queue = deps.queues.queue('index');
  const requeued: string[] = [];
  for (const m of rows) {
    const jobId = indexJobIdOf(m.id);
    if (await queue.getJob(jobId)) continue;
    const kb = await deps.db.file.findUnique({ where: { id: m.file_id }, select: { knowledge_base_id: true } });
    if (!kb) continue;
    await enqueueIndexJob(deps, jobId, m, kb.knowledge_base_id);
    requeued.push(m.id);
  }
  if (requeued.length) deps.logger.warn({ manifests: requeued }, 'index jobs lost by the queue were queued again');
  return [...requeued, ...(await sweepPending(deps, now - o.graceMs))];
}

/**
 * Pending index jobs (issue 13.6) older than the grace time: one the queue no longer knows (lost by a
 * Redis restart, or never queued because Redis was down) is queued again from its recorded name and
 * payload; one the queue completed without clearing its row (a parse redelivered after its index job
 * ran) is cleared. Returns the job ids queued again.
 */
async function sweepPending(deps: { db: Db; queues: QueueClient; logger: Logger }, before: number): Promise<string[]> {
  const rows = await deps.db.indexPendingUpdate.findMany({
    where: { created_at: { lt: new Date(before) } },
    orderBy: { created_at: 'asc' },
    take: 200,
  });
  const queue = deps.queues.queue('index');
  const requeued: string[] = [];
  for (const r of rows) {
    const job = await queue.getJob(r.job_id);
    if (job) {
      if (await job.isCompleted()) await clearPendingIndexJob(deps.db, r.job_id);
      continue;
    }
    const payload = { ...(r.payload as Record<string, unknown>), pendingId: r.job_id };
    if (r.name === 'index.remove-file')
      await deps.queues.enqueue('index.remove-file', payload as JobPayload<'index.remove-file'>, { jobId: r.job_id });
    else
      await deps.queues.enqueue('index.file-version', payload as JobPayload<'index.file-version'>, {
        jobId: r.job_id,
      });
    requeued.push(r.job_id);
  }
  if (requeued.length) deps.logger.warn({ jobs: requeued }, 'pending index jobs the queue lost were queued again');
  return requeued;
}
