// Keeps the search index in step with trash and restore. Search hides trashed files at query time
// anyway; these jobs remove their rows (and refresh the snapshot) or bring them back.
// Every index job is recorded in index_pending_updates before it is queued (issue 13.6): search's
// snapshot.pending_updates counts those rows, and the index sweep re-queues one the queue lost.
import { randomUUID } from 'node:crypto';
import { recordPendingIndexJob } from '@docfleet/db';
import { enqueueIndexJob } from '@docfleet/jobs';
import type { Deps } from '../../deps';

/** After a soft or permanent delete: the index worker drops the file's segments. */
export async function unindexFile(
  deps: Pick<Deps, 'db' | 'queues' | 'logger'>,
  file: { org_id: string; id: string; knowledge_base_id: string },
): Promise<void> {
  const jobId = `remove-${randomUUID()}`;
  const payload = { orgId: file.org_id, fileId: file.id, pendingId: jobId };
  try {
    await recordPendingIndexJob(deps.db, {
      jobId,
      orgId: file.org_id,
      kbId: file.knowledge_base_id,
      name: 'index.remove-file',
      payload,
    });
    await deps.queues.enqueue('index.remove-file', payload, { jobId });
  } catch (err) {
    // The file is already hidden from search; only clean-up is late (a recorded job that could not be
    // queued is queued by the index sweep). Do not fail the request.
    deps.logger.warn({ err, file_id: file.id }, 'could not enqueue index.remove-file');
  }
}

/** After a restore: re-index the newest parse of the current version, if there is one. */
export async function reindexFile(
  deps: Pick<Deps, 'db' | 'queues'>,
  file: { org_id: string; id: string; knowledge_base_id: string; current_version_id: string | null },
): Promise<void> {
  if (!file.current_version_id) return;
  const manifest = await deps.db.artifactManifest.findFirst({
    where: { file_id: file.id, file_version_id: file.current_version_id, artifact_type: 'parse' },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    select: { id: true },
  });
  if (!manifest) return;
  // Not `index-<manifest>`: that job may have completed already (a restore indexes the same parse again).
  const jobId = `reindex-${randomUUID()}`;
  await enqueueIndexJob(
    deps,
    jobId,
    { id: manifest.id, org_id: file.org_id, file_id: file.id, file_version_id: file.current_version_id },
    file.knowledge_base_id,
  );
}
