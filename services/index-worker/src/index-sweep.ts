// Index jobs live only in Redis: a Redis that restarts empty (the quickstart keeps nothing on disk)
// loses the ones not yet run, and their parses would never reach the search index. The sweep finds
// the newest parse manifest of a live file's current version that has no index rows and no index
// queue entry, and queues its index job again (same job id, so a job still known to the queue is
// never doubled) (issue 13.3).
import type { Db } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
import type { QueueClient } from '@docfleet/queue';

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
    if (await queue.getJob(`index-${m.id}`)) continue;
    await deps.queues.enqueue(
      'index.file-version',
      { orgId: m.org_id, fileId: m.file_id, fileVersionId: m.file_version_id, manifestId: m.id },
      { jobId: `index-${m.id}` },
    );
    requeued.push(m.id);
  }
  if (requeued.length) deps.logger.warn({ manifests: requeued }, 'index jobs lost by the queue were queued again');
  return requeued;
}
