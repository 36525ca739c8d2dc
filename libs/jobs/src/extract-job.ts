// Every write the extraction worker makes to an extraction job's row. Progress bumps updated_at (the index ETag
// is built from it) and never lowers percent; terminal writes lock the row and do nothing when it
// is already terminal, so a redelivered job or a racing cancel cannot end a job twice.
import type { Db, Prisma, Tx } from '@docfleet/db';
import { tail } from '@docfleet/errors';
import { lockActiveJob as lockActive } from './cancel';
import { addJobEvent as addEvent } from './events';
import { emitJobEnded } from '@docfleet/webhooks';
import { endedRow, endingTransaction, reportJobProgress, type JobProgressRow } from './progress-sink';

export const EXTRACT_STAGES = ['load-parse', 'build-evidence', 'extract', 'validate', 'write-artifacts'] as const;
export type ExtractStage = (typeof EXTRACT_STAGES)[number];
/** Percent reached when each stage starts (the model call dominates: extract spans 30 → 80). */
export const EXTRACT_STAGE_PERCENT: Record<ExtractStage, number> = {
  'load-parse': 5,
  'build-evidence': 20,
  extract: 30,
  validate: 80,
  'write-artifacts': 90,
};

/** Takes the job (also on redelivery). False when it is terminal already. */
export async function claimExtractJob(db: Db, jobId: string): Promise<boolean> {
  const n =
    await db.$executeRaw`UPDATE jobs SET status = 'running', started_at = COALESCE(started_at, now()), heartbeat_at = now(), updated_at = now()
    WHERE id = ${jobId}::uuid AND status IN ('queued', 'running')`;
  return n > 0;
}

export async function setExtractStage(db: Db, jobId: string, stage: ExtractStage): Promise<void> {
  const rows = await db.$queryRaw<
    JobProgressRow[]
  >`UPDATE jobs SET stage = ${stage}, percent = GREATEST(percent, ${EXTRACT_STAGE_PERCENT[stage]}::int), heartbeat_at = now(), updated_at = now()
    WHERE id = ${jobId}::uuid AND status = 'running'
    RETURNING id, org_id, knowledge_base_id, file_id, kind, stage, percent`;
  reportJobProgress(rows);
}

/**
 * Completes the job inside the transaction that writes its manifest and extraction result (the
 * caller locked the row with lockActiveJob and saw no cancel).
 */
export async function completeExtractJobTx(
  tx: Tx,
  jobId: string,
  c: { result: Record<string, unknown>; message: string; payload: Record<string, unknown> },
) {
  await tx.job.update({
    where: { id: jobId },
    data: {
      status: 'completed',
      percent: 100,
      error: null,
      completed_at: new Date(),
      result: c.result as Prisma.InputJsonValue,
    },
  });
  await emitJobEnded(tx, jobId);
  await addEvent(tx, jobId, 'job.completed', 'write-artifacts', c.message, c.payload);
}

export async function cancelExtractJobTx(tx: Tx, jobId: string, stage: string | null) {
  await tx.job.update({
    where: { id: jobId },
    data: { status: 'cancelled', completed_at: new Date(), error: 'Cancelled on request.' },
  });
  await emitJobEnded(tx, jobId);
  await addEvent(tx, jobId, 'job.cancelled', stage, 'Cancelled on request; nothing was written.');
}

export async function cancelExtractJob(db: Db, jobId: string): Promise<'cancelled' | 'skipped'> {
  return endingTransaction(db, async (tx, ended): Promise<'cancelled' | 'skipped'> => {
    const job = await lockActive(tx, jobId);
    if (!job) return 'skipped';
    await cancelExtractJobTx(tx, jobId, job.stage);
    ended(endedRow(job, 'cancelled'));
    return 'cancelled';
  });
}

export async function failExtractJob(
  db: Db,
  jobId: string,
  error: string,
  detail: { traceback: string; code?: string },
): Promise<'failed' | 'skipped'> {
  return endingTransaction(db, async (tx, ended): Promise<'failed' | 'skipped'> => {
    const job = await lockActive(tx, jobId);
    if (!job) return 'skipped';
    ended(endedRow(job, 'failed'));
    await tx.job.update({
      where: { id: jobId },
      data: { status: 'failed', error, error_code: detail.code ?? 'internal_error', completed_at: new Date() },
    });
    await emitJobEnded(tx, jobId);
    await addEvent(tx, jobId, 'job.failed', job.stage, error, {
      traceback: tail(detail.traceback, 4000),
      ...(detail.code ? { code: detail.code } : {}),
    });
    return 'failed';
  });
}
