// Every write the extraction worker makes to a job row. Progress bumps updated_at (the index ETag
// is built from it) and never lowers percent; terminal writes lock the row and do nothing when it
// is already terminal, so a redelivered job or a racing cancel cannot end a job twice.
import { createHash } from 'node:crypto';
import type { Db, Prisma, Tx } from '@docfleet/db';
import { tail } from '@docfleet/errors';
import { emitJobEnded } from '@docfleet/webhooks';

export const TERMINAL = ['completed', 'failed', 'cancelled'];
export const STAGES = ['load-parse', 'build-evidence', 'extract', 'validate', 'write-artifacts'] as const;
export type Stage = (typeof STAGES)[number];
/** Percent reached when each stage starts (the model call dominates: extract spans 30 → 80). */
export const STAGE_PERCENT: Record<Stage, number> = {
  'load-parse': 5,
  'build-evidence': 20,
  extract: 30,
  validate: 80,
  'write-artifacts': 90,
};

/** A name-based UUID (version 5 layout, sha256) for the extract manifest of a job: a re-run rewrites the same bundle. */
export function extractManifestIdFor(jobId: string): string {
  const h = createHash('sha256').update(`docfleet:extract-manifest:${jobId}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export async function addEvent(
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

/** Takes the job (also on redelivery). False when it is terminal already. */
export async function claimJob(db: Db, jobId: string): Promise<boolean> {
  const n =
    await db.$executeRaw`UPDATE jobs SET status = 'running', started_at = COALESCE(started_at, now()), heartbeat_at = now(), updated_at = now()
    WHERE id = ${jobId}::uuid AND status IN ('queued', 'running')`;
  return n > 0;
}

export async function setStage(db: Db, jobId: string, stage: Stage): Promise<void> {
  await db.$executeRaw`UPDATE jobs SET stage = ${stage}, percent = GREATEST(percent, ${STAGE_PERCENT[stage]}::int), heartbeat_at = now(), updated_at = now()
    WHERE id = ${jobId}::uuid AND status = 'running'`;
}

export async function cancelRequested(db: Db, jobId: string): Promise<boolean> {
  const j = await db.job.findUnique({ where: { id: jobId }, select: { cancel_requested_at: true, status: true } });
  return !j || !!j.cancel_requested_at || TERMINAL.includes(j.status);
}

/** Locks the job row; returns it unless it is already terminal. */
export async function lockActive(tx: Tx, jobId: string) {
  await tx.$queryRaw`SELECT id FROM jobs WHERE id = ${jobId}::uuid FOR UPDATE`;
  const job = await tx.job.findUnique({ where: { id: jobId } });
  return job && !TERMINAL.includes(job.status) ? job : null;
}

export async function cancelTx(tx: Tx, jobId: string, stage: string | null) {
  await tx.job.update({
    where: { id: jobId },
    data: { status: 'cancelled', completed_at: new Date(), error: 'Cancelled on request.' },
  });
  await emitJobEnded(tx, jobId);
  await addEvent(tx, jobId, 'job.cancelled', stage, 'Cancelled on request; nothing was written.');
}

export async function finishCancelled(db: Db, jobId: string): Promise<'cancelled' | 'skipped'> {
  return db.$transaction(async (tx) => {
    const job = await lockActive(tx, jobId);
    if (!job) return 'skipped';
    await cancelTx(tx, jobId, job.stage);
    return 'cancelled';
  });
}

export async function finishFailed(
  db: Db,
  jobId: string,
  error: string,
  detail: { traceback: string; code?: string },
): Promise<'failed' | 'skipped'> {
  return db.$transaction(async (tx) => {
    const job = await lockActive(tx, jobId);
    if (!job) return 'skipped';
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
