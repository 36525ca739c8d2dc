import { recordPendingIndexJob, type Db } from '@docfleet/db';
import type { QueueClient } from '@docfleet/queue';

/**
 * Enqueues the index job of a completed parse job (`index.file-version` for its manifest), recording
 * it in index_pending_updates first. The parse worker calls it when a parse completes and again when
 * a completed job is redelivered; the index worker's tests call it the same way.
 */
export async function enqueueIndexOfParse(deps: { db: Db; queues: QueueClient }, jobId: string): Promise<void> {
  const m = await deps.db.artifactManifest.findFirst({ where: { job_id: jobId, artifact_type: 'parse' } });
  if (!m) return;
  const file = await deps.db.file.findUnique({ where: { id: m.file_id }, select: { knowledge_base_id: true } });
  if (!file) return;
  // One index job per manifest (BullMQ job id): a redelivered parse does not index twice, nor counts
  // as pending again once its index job completed (issue 13.6: pending rows are exact).
  const indexJobId = `index-${m.id}`;
  const known = await deps.queues.queue('index').getJob(indexJobId);
  if (known && (await known.isCompleted())) return;
  const payload = {
    orgId: m.org_id,
    fileId: m.file_id,
    fileVersionId: m.file_version_id,
    manifestId: m.id,
    pendingId: indexJobId,
  };
  await recordPendingIndexJob(deps.db, {
    jobId: indexJobId,
    orgId: m.org_id,
    kbId: file.knowledge_base_id,
    name: 'index.file-version',
    payload,
  });
  await deps.queues.enqueue('index.file-version', payload, { jobId: indexJobId });
}
