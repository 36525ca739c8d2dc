// 'index.file-version': the search index takes the newest parse of a file's current version
// (@docfleet/search-index's indexFileVersion, one transaction); then the job is no longer pending.
import { clearPendingIndexJob } from '@docfleet/db';
import type { JobPayload } from '@docfleet/queue';
import { indexFileVersion, type IndexOutcome } from '@docfleet/search-index';
import type { IndexDeps } from '../deps';

export async function indexFileVersionJob(
  deps: IndexDeps,
  payload: JobPayload<'index.file-version'>,
  jobId: string | undefined,
): Promise<IndexOutcome> {
  const out = await indexFileVersion(deps, payload);
  // A skipped job has nothing to apply: it is no longer pending either (applied ones cleared it in their transaction).
  await clearPendingIndexJob(deps.db, payload.pendingId);
  const log = deps.logger.child({ job_id: jobId, file_id: payload.fileId, manifest_id: payload.manifestId });
  if (out.status === 'indexed')
    log.info(
      {
        segments: out.segments,
        removed: out.removed,
        ms: out.ms,
        per_s: Math.round((out.segments / Math.max(out.ms, 1)) * 1000),
      },
      'file version indexed',
    );
  else log.info({ reason: out.reason }, 'index job skipped');
  return out;
}
