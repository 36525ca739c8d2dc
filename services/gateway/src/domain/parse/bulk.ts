import { ApiError } from '@docfleet/errors';

/**
 * The error of a bulk dispatch that stopped at one file (docs/api.md, "Bulk requests": bulk is not atomic; the first
 * failure aborts, earlier jobs keep running): it names the failing file and the jobs already queued.
 */
export function bulkAborted(err: ApiError, fileId: string, queuedJobIds: string[]): ApiError {
  return new ApiError(err.code, `${err.message} (file ${fileId}; ${queuedJobIds.length} earlier job(s) stay queued)`, {
    ...err.extra,
    details: { failed_file_id: fileId, queued_job_ids: queuedJobIds },
  });
}
