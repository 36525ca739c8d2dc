import type { Db, Prisma, Tx } from '@docfleet/db';

/** One line of a job's history (GET …/jobs/{jobId}/events), in the caller's transaction when given one. */
export async function addJobEvent(
  db: Db | Tx,
  jobId: string,
  eventType: string,
  stage: string | null,
  message: string,
  payload: Record<string, unknown> = {},
) {
  await db.jobEvent.create({
    data: { job_id: jobId, event_type: eventType, stage, message, payload: payload as Prisma.InputJsonValue },
  });
}
