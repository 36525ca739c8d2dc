// A job row is born 'queued' with its 'job.queued' event, in the caller's transaction (a parse's
// reservation is made in the same one). One that never reached the queue is failed at once.
import { finalizeReservation } from '@docfleet/billing';
import type { Db, Prisma, Tx } from '@docfleet/db';
import { publicTraceback, tail } from '@docfleet/errors';
import { addJobEvent } from './events';
import type { DispatchedJobKind } from './idempotency';
import { emitJobEnded } from '@docfleet/webhooks';

export interface NewJob {
  orgId: string;
  knowledgeBaseId: string;
  fileId: string;
  fileVersionId: string;
  kind: DispatchedJobKind;
  options: Prisma.InputJsonValue;
  idempotencyKey: string;
  retryOfJobId?: string | null;
  createdByUserId?: string | null;
  apiKeyId?: string | null;
}

export function createQueuedJob(tx: Tx, j: NewJob) {
  return tx.job.create({
    data: {
      org_id: j.orgId,
      knowledge_base_id: j.knowledgeBaseId,
      file_id: j.fileId,
      file_version_id: j.fileVersionId,
      kind: j.kind,
      status: 'queued',
      options: j.options,
      idempotency_key: j.idempotencyKey,
      retry_of_job_id: j.retryOfJobId ?? null,
      created_by_user_id: j.createdByUserId ?? null,
      api_key_id: j.apiKeyId ?? null,
    },
  });
}

export const addQueuedEvent = (tx: Tx, jobId: string, message: string, payload: Record<string, unknown>) =>
  addJobEvent(tx, jobId, 'job.queued', null, message, payload);

/**
 * The job was created but never reached the queue: fail it (`service_unavailable`) and, when it
 * holds a reservation, close it in the same transaction. The event's traceback is the error's name
 * and message, redacted (no stack frames or paths: docs/errors.md); the caller logs the whole error.
 */
export async function failUnqueuedJob(
  db: Db,
  jobId: string,
  err: Error,
  opts: { error: string; closeReservation: boolean },
): Promise<void> {
  await db
    .$transaction(async (tx) => {
      const n = await tx.job.updateMany({
        where: { id: jobId, status: 'queued' },
        data: { status: 'failed', error: opts.error, error_code: 'service_unavailable', completed_at: new Date() },
      });
      if (!n.count) return;
      if (opts.closeReservation) await finalizeReservation(tx, { jobId, outcome: 'failed' });
      await emitJobEnded(tx, jobId);
      await addJobEvent(tx, jobId, 'job.failed', null, 'The job could not be queued.', {
        code: 'service_unavailable',
        traceback: tail(publicTraceback(err), 4000),
      });
    })
    .catch(() => undefined);
}
