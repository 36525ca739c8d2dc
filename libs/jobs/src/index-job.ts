import { recordPendingIndexJob, type Db, type Tx } from '@docfleet/db';
import type { QueueClient } from '@docfleet/queue';
import { ACTIVE_JOB_STATUSES } from './status';
import { parseManifestIdFor } from './manifest-ids';

/** The parse manifest an index job indexes, as its row names it. */
export interface IndexedManifest {
  id: string;
  org_id: string;
  file_id: string;
  file_version_id: string;
}

/**
 * The queue's job id of a manifest's index job. One per manifest: queueing it again (a retried or
 * redelivered parse, the sweep) finds the job already there and adds nothing.
 */
export const indexJobIdOf = (manifestId: string) => `index-${manifestId}`;

/**
 * Queues `index.file-version` for a parse manifest under `jobId`, recording it in
 * index_pending_updates first (issue 13.6: search's snapshot counts it from the moment it exists, and
 * the index sweep re-queues one the queue lost). The one place that writes this job's payload: the
 * parse worker (inside the transaction that completes a parse), the gateway (a restore) and the index
 * sweep (a lost job) all come here. `db` may be that transaction: the pending row then commits with it.
 */
export async function enqueueIndexJob(
  deps: { db: Db | Tx; queues: QueueClient },
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
 * Makes sure the index job of a completed parse job exists (`index.file-version` for its manifest).
 * completeParseJob queues it before the completion commits; the parse worker calls this again when a
 * completed job is delivered again (a queue that lost the index job meanwhile gets it back), and the
 * index worker's tests call it the same way.
 */
export async function enqueueIndexOfParse(deps: { db: Db; queues: QueueClient }, jobId: string): Promise<void> {
  const m = await deps.db.artifactManifest.findFirst({ where: { job_id: jobId, artifact_type: 'parse' } });
  if (!m) return;
  const file = await deps.db.file.findUnique({ where: { id: m.file_id }, select: { knowledge_base_id: true } });
  if (!file) return;
  // One index job per manifest (BullMQ job id): a redelivered parse does not index twice, nor counts
  // as pending again once its index job completed (issue 13.6: pending rows are exact).
  const indexJobId = indexJobIdOf(m.id);
  const known = await deps.queues.queue('index').getJob(indexJobId);
  if (known && (await known.isCompleted())) return;
  await enqueueIndexJob(deps, indexJobId, m, file.knowledge_base_id);
}

/**
 * True while the parse that is to write an index job's manifest still runs: the manifest is not
 * there yet and a parse job of the file version whose manifest id (parseManifestIdFor) it is has not
 * ended. completeParseJob queues the index job just before its transaction commits, so an index
 * worker can take the job first; it waits for the commit rather than skip the parse for good
 * (`manifest_not_found`, or `manifest_not_newest` while an older parse's manifest is the newest).
 * Once the parse has ended, the manifest is committed with its completion or will never come.
 */
export async function parseOfManifestRunning(
  db: Db,
  p: { fileId: string; fileVersionId: string; manifestId: string },
): Promise<boolean> {
  if (await db.artifactManifest.findUnique({ where: { id: p.manifestId }, select: { id: true } })) return false;
  const running = await db.job.findMany({
    where: {
      file_id: p.fileId,
      file_version_id: p.fileVersionId,
      kind: 'parse',
      status: { in: ACTIVE_JOB_STATUSES },
    },
    select: { id: true },
  });
  return running.some((j) => parseManifestIdFor(j.id) === p.manifestId);
}
