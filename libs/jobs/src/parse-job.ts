// Every write the parse worker makes to a parse job's row. Progress writes bump updated_at (the index ETag is
// built from it) and never lower percent; terminal writes close the credit reservation in the
// same transaction (libs/billing finalizeReservation), so a job can never end with credits held.
import { finalizeReservation, type JobOutcome } from '@docfleet/billing';
import type { Db, Prisma, Tx } from '@docfleet/db';
import { tail } from '@docfleet/errors';
import type { QueueClient } from '@docfleet/queue';
import { lockActiveJob as lockActive } from './cancel';
import { addJobEvent as addEvent } from './events';
import { enqueueIndexJob, indexJobIdOf } from './index-job';
import { emitJobEnded } from '@docfleet/webhooks';
import { endedRow, endingTransaction, reportJobProgress, type JobProgressRow } from './progress-sink';

export interface ParseProgress {
  stage?: string;
  percent?: number;
  /** Stored raw status while running: 'started' at claim, 'in_progress' once pages are parsed. */
  rawStatus?: 'started' | 'in_progress';
  totalPages?: number;
  completedPages?: number;
}

/** Takes the job for this worker (also on redelivery after a crash). False when it is already terminal. */
export async function claimParseJob(db: Db, jobId: string, workerId: string): Promise<boolean> {
  const n =
    await db.$executeRaw`UPDATE jobs SET status = 'started', started_at = COALESCE(started_at, now()), lease_owner = ${workerId},
      heartbeat_at = now(), updated_at = now()
    WHERE id = ${jobId}::uuid AND status IN ('queued', 'started', 'in_progress', 'running')`;
  return n > 0;
}

/**
 * The worker holding the job is alive. Only heartbeat_at moves: updated_at is the job's change
 * time (the index ETag is built from it), and a beat changes nothing a reader sees.
 */
export async function beatParseJob(db: Db, jobId: string, workerId: string): Promise<void> {
  await db.$executeRaw`UPDATE jobs SET heartbeat_at = now()
    WHERE id = ${jobId}::uuid AND status IN ('started', 'in_progress', 'running') AND lease_owner = ${workerId}`;
}

/**
 * A shard of a sharded parse is running (any worker may hold one, so no lease owner is checked).
 * Only heartbeat_at moves, as in beatParseJob.
 */
export async function beatShardedParseJob(db: Db, jobId: string): Promise<void> {
  await db.$executeRaw`UPDATE jobs SET heartbeat_at = now()
    WHERE id = ${jobId}::uuid AND status IN ('started', 'in_progress', 'running')`;
}

/**
 * A sharded parse's percent from the pages done across its shards (parse_shards.done_pages): 10 → 75
 * while pages are parsed. Written only when its integer value grows (GREATEST keeps it monotonic).
 */
export async function raiseShardedParsePercent(db: Db, jobId: string): Promise<void> {
  await db.$executeRaw`WITH t AS (
      SELECT COALESCE(SUM(done_pages), 0) AS done, GREATEST(COALESCE(SUM(cardinality(pages)), 0), 1) AS total
      FROM parse_shards WHERE job_id = ${jobId}::uuid)
    UPDATE jobs SET percent = GREATEST(percent, (10 + floor(65 * t.done / t.total))::int),
      heartbeat_at = now(), updated_at = now()
    FROM t
    WHERE jobs.id = ${jobId}::uuid AND jobs.status IN ('started', 'in_progress', 'running')
      AND jobs.percent < (10 + floor(65 * t.done / t.total))::int`;
}

/** Percent is monotonic (GREATEST); stage, counts and raw status only move while the job is active. */
export async function setParseProgress(db: Db, jobId: string, p: ParseProgress): Promise<void> {
  const rows = await db.$queryRaw<JobProgressRow[]>`UPDATE jobs SET
      stage = COALESCE(${p.stage ?? null}::text, stage),
      percent = GREATEST(percent, ${Math.min(100, Math.floor(p.percent ?? 0))}::int),
      status = COALESCE(${p.rawStatus ?? null}::text, status),
      total_pages = COALESCE(${p.totalPages ?? null}::int, total_pages),
      completed_pages = COALESCE(${p.completedPages ?? null}::int, completed_pages),
      heartbeat_at = now(), updated_at = now()
    WHERE id = ${jobId}::uuid AND status IN ('started', 'in_progress', 'running')
    RETURNING id, org_id, knowledge_base_id, file_id, kind, stage, percent`;
  reportJobProgress(rows);
}

export interface ParseCompletion {
  manifest: Omit<Prisma.ArtifactManifestUncheckedCreateInput, 'id' | 'manifest' | 'links'> & {
    /** parseManifestIdFor(job id): the index job queued with the completion names it. */
    id: string;
    manifest: object;
    links: unknown;
  };
  stage: 'completed' | 'reused';
  pageCount: number;
  /** page_versions rows for the version (documents; spreadsheets have none). */
  pageHashes?: string[];
  result: Record<string, unknown>;
  /** Where the time went (ms per stage), recorded on the job.completed event. */
  timings?: Record<string, number>;
}

export type FinishOutcome = JobOutcome | 'skipped';

/**
 * Completes the job: manifest, page hashes, page count, job row and reservation in one
 * transaction. A cancel requested meanwhile wins (the stage boundary is a cancel checkpoint).
 *
 * The manifest's index job is queued inside that transaction, last, so no reader ever sees the
 * parse completed without it (docs/api.md: "the update is enqueued automatically"): its
 * index_pending_updates row commits with the completion, and its queue entry exists before the
 * commit. A worker that dies at any point leaves either a completed job with its index job or a
 * running one that is delivered again; the queue entry's job id is the manifest's
 * (indexJobIdOf), so a retry queues nothing twice. An index worker that takes the job before the
 * commit waits for it (parseOfManifestRunning).
 */
export async function completeParseJob(
  deps: { db: Db; queues: QueueClient },
  jobId: string,
  c: ParseCompletion,
): Promise<FinishOutcome> {
  return endingTransaction(deps.db, async (tx, ended) => {
    const job = await lockActive(tx, jobId);
    if (!job) return 'skipped';
    if (job.cancel_requested_at) {
      await cancelTx(tx, jobId, job.stage);
      ended(endedRow(job, 'cancelled'));
      return 'cancelled';
    }
    // Two parses of one version (different options) finishing together write page_versions in turn.
    await tx.$queryRaw`SELECT id FROM file_versions WHERE id = ${job.file_version_id}::uuid FOR UPDATE`;
    await tx.artifactManifest.create({
      data: {
        ...c.manifest,
        manifest: c.manifest.manifest as Prisma.InputJsonObject,
        links: c.manifest.links as Prisma.InputJsonObject,
      },
    });
    if (c.pageHashes) {
      await tx.pageVersion.deleteMany({ where: { file_version_id: job.file_version_id } });
      await tx.pageVersion.createMany({
        data: c.pageHashes.map((h, i) => ({
          file_version_id: job.file_version_id,
          page_number: i + 1,
          content_hash: h,
        })),
      });
    }
    await tx.fileVersion.update({ where: { id: job.file_version_id }, data: { page_count: c.pageCount } });
    await tx.job.update({
      where: { id: jobId },
      data: {
        status: 'completed',
        stage: c.stage,
        percent: 100,
        total_pages: c.pageCount,
        completed_pages: c.pageCount,
        result: c.result as Prisma.InputJsonValue,
        error: null,
        error_code: null,
        completed_at: new Date(),
        lease_owner: null,
      },
    });
    const res = await finalizeReservation(tx, { jobId, outcome: 'completed' });
    await emitJobEnded(tx, jobId);
    await addEvent(
      tx,
      jobId,
      'job.completed',
      c.stage,
      c.stage === 'reused'
        ? 'Nothing changed; the previous artifacts were kept and no credits were used.'
        : `Parsed; ${res?.debited_credits ?? 0} credit(s) charged.`,
      {
        artifact_manifest_id: c.manifest.id,
        credits_charged: res?.debited_credits ?? 0,
        reservation_status: res?.status ?? null,
        ...(c.timings ? { timings_ms: c.timings } : {}),
      },
    );
    const m = c.manifest;
    await enqueueIndexJob(
      { db: tx, queues: deps.queues },
      indexJobIdOf(m.id),
      { id: m.id, org_id: m.org_id, file_id: m.file_id, file_version_id: m.file_version_id },
      job.knowledge_base_id,
    );
    ended(endedRow(job, 'completed', { stage: c.stage }));
    return 'completed' as const;
  });
}

async function cancelTx(tx: Tx, jobId: string, stage: string | null) {
  await tx.job.update({
    where: { id: jobId },
    data: { status: 'cancelled', completed_at: new Date(), lease_owner: null },
  });
  const res = await finalizeReservation(tx, { jobId, outcome: 'cancelled' });
  await emitJobEnded(tx, jobId);
  await addEvent(
    tx,
    jobId,
    'job.cancelled',
    stage,
    `Cancelled; ${res?.debited_credits ?? 0} page(s) already processed stay charged.`,
    { credits_charged: res?.debited_credits ?? 0 },
  );
}

export async function cancelParseJob(db: Db, jobId: string): Promise<FinishOutcome> {
  return endingTransaction(db, async (tx, ended): Promise<FinishOutcome> => {
    const job = await lockActive(tx, jobId);
    if (!job) return 'skipped';
    await cancelTx(tx, jobId, job.stage);
    ended(endedRow(job, 'cancelled'));
    return 'cancelled';
  });
}

/** Fails the job with a readable reason; the reservation ends failed and its page debits are reversed. */
export async function failParseJob(
  db: Db,
  jobId: string,
  error: string,
  detail: { traceback: string; code?: string; page?: number },
): Promise<FinishOutcome> {
  return endingTransaction(db, async (tx, ended): Promise<FinishOutcome> => {
    const job = await lockActive(tx, jobId);
    if (!job) return 'skipped';
    ended(endedRow(job, 'failed'));
    await tx.job.update({
      where: { id: jobId },
      data: {
        status: 'failed',
        error,
        error_code: detail.code ?? 'internal_error',
        completed_at: new Date(),
        lease_owner: null,
      },
    });
    await finalizeReservation(tx, { jobId, outcome: 'failed' });
    await emitJobEnded(tx, jobId);
    await addEvent(tx, jobId, 'job.failed', job.stage, error, {
      traceback: tail(detail.traceback, 4000),
      ...(detail.code ? { code: detail.code } : {}),
      ...(detail.page ? { page: detail.page } : {}),
    });
    return 'failed';
  });
}

/** SIGTERM grace ran out: the job goes back to the queue for another worker; progress is kept. */
export async function handBackParseJob(db: Db, jobId: string, workerId: string): Promise<void> {
  await db.$executeRaw`UPDATE jobs SET status = 'queued', lease_owner = NULL, updated_at = now()
    WHERE id = ${jobId}::uuid AND status IN ('started', 'in_progress', 'running') AND lease_owner = ${workerId}`;
  await addEvent(
    db,
    jobId,
    'job.handed_back',
    null,
    'The worker shut down before finishing; the job went back to the queue.',
    { worker: workerId },
  );
}
