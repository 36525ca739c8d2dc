import type { Job, JobPayload } from '@docfleet/queue';
import type { WorkerDeps } from '../runners/types';

/**
 * File-path extraction jobs (POST /v1/files/{fileId}/extract). Being built: until then a job that
 * reaches this worker is failed with a reason instead of waiting forever.
 */
export async function extractFileHandler(deps: WorkerDeps, payload: JobPayload<'extract.file'>, _job: Job): Promise<string> {
  await deps.db.job.updateMany({
    where: { id: payload.jobId, org_id: payload.orgId, status: { in: ['queued', 'running'] } },
    data: { status: 'failed', error: 'File-path extraction is not available in this worker version.', completed_at: new Date() },
  });
  return 'failed';
}
