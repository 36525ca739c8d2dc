import { recordPendingIndexJob, type Db } from '@docfleet/db';
import type { QueueClient } from '@docfleet/queue';

/** The parse manifest an index job indexes, as its row names it. */
export interface IndexedManifest {
  id: string;
  org_id: string;
  file_id: string;
  file_version_id: string;
}

/**
 * Queues `index.file-version` for a parse manifest under `jobId`, recording it in
 * index_pending_updates first (issue 13.6: search's snapshot counts it from the moment it exists, and
 * the index sweep re-queues one the queue lost). The one place that writes this job's payload: the
 * parse worker (a completed parse), the gateway (a restore) and the index sweep (a lost job) all come here.
 */
export async function enqueueIndexJob(
  deps: { db: Db; queues: QueueClient },
  jobId: string,
  m: IndexedManifest,
  kbId: string,
): Promise<void> {
  const payload = {
    orgId: m.org_id,
    fileId: m.file_id,
    fileVersionId: m.file_version_id,
    manifestId: m.id,
    pendingId: jobId,
  };
  await recordPendingIndexJob(deps.db, { jobId, orgId: m.org_id, kbId, name: 'index.file-version', payload });
  await deps.queues.enqueue('index.file-version', payload, { jobId });
}

/**
 * Enqueues the index job of a completed parse job (`index.file-version` for its manifest). The parse
 * worker calls it when a parse completes and again when a completed job is redelivered; the index
 * worker's tests call it the same way.
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
  await enqueueIndexJob(deps, indexJobId, m, file.knowledge_base_id);
}
