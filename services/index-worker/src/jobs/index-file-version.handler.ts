// 'index.file-version': the search index takes the newest parse of a file's current version
// (@docfleet/search-index's indexFileVersion, one transaction); then the job is no longer pending.
// A parse queues this job inside the transaction that completes it, just before the commit
// (libs/jobs completeParseJob): a job taken before its manifest is committed waits for the parse to
// end instead of skipping it for good.
import { clearPendingIndexJob } from '@docfleet/db';
import { parseOfManifestRunning } from '@docfleet/jobs';
import { DelayedError, type Job as QueueJob, type JobPayload } from '@docfleet/queue';
import { indexFileVersion, type IndexOutcome } from '@docfleet/search-index';
import type { IndexDeps } from '../deps';

/** The wait before a deferred job runs again: short at first (a commit takes milliseconds), then up to 30 s. */
export const deferMs = (starts: number) => Math.min(250 * 2 ** Math.max(0, Math.min(starts - 1, 7)), 30_000);

export async function indexFileVersionJob(
  deps: IndexDeps,
  payload: JobPayload<'index.file-version'>,
  job: Pick<QueueJob, 'id' | 'token' | 'attemptsStarted' | 'moveToDelayed'>,
): Promise<IndexOutcome> {
  const log = deps.logger.child({ job_id: job.id, file_id: payload.fileId, manifest_id: payload.manifestId });
  if (await parseOfManifestRunning(deps.db, payload)) {
    // Parked, not failed: waiting spends none of the job's attempts, and its pending row stays.
    const ms = deferMs(job.attemptsStarted);
    log.info({ defer_ms: ms }, 'the parse of this manifest has not committed yet; index job deferred');
    await job.moveToDelayed(Date.now() + ms, job.token);
    throw new DelayedError();
  }
  const out = await indexFileVersion(deps, payload);
  // A skipped job has nothing to apply: it is no longer pending either (applied ones cleared it in their transaction).
  await clearPendingIndexJob(deps.db, payload.pendingId);
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
