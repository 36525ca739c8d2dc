// 'index.remove-file': a trashed or deleted file leaves the search index (@docfleet/search-index's
// removeFile, one transaction); then the job is no longer pending.
import { clearPendingIndexJob } from '@docfleet/db';
import type { JobPayload } from '@docfleet/queue';
import { removeFile, type RemoveOutcome } from '@docfleet/search-index';
import type { IndexDeps } from '../deps';

export async function removeFileJob(
  deps: IndexDeps,
  payload: JobPayload<'index.remove-file'>,
  jobId: string | undefined,
): Promise<RemoveOutcome> {
  const out = await removeFile(deps, payload);
  await clearPendingIndexJob(deps.db, payload.pendingId);
  deps.logger.info({ job_id: jobId, file_id: payload.fileId, ...out }, 'file removed from the index');
  return out;
}
