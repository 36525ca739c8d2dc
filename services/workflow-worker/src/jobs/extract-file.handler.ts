// The 'extract.file' job (POST /v1/files/{fileId}/extract and the bulk endpoint): claim the job,
// run the stages load-parse → build-evidence → extract → validate → write-artifacts with a cancel
// checkpoint before each, and end in exactly one terminal state. The result_json artifact, its
// `extract` manifest, the ExtractionResult row and the completed job are written in one
// transaction, so a worker killed mid-job leaves nothing half-written and its redelivery rewrites
// the same bundle. An unreadable parse or a bad option fails the job with a reason at once; an
// unexpected error is retried by BullMQ and fails the job on the last attempt.
import type { Job as JobRow } from '@docfleet/db';
import { isApiError, publicTraceback, redactDetail } from '@docfleet/errors';
import { isModelError } from '@docfleet/models';
import { DelayedError, type Job, type JobPayload } from '@docfleet/queue';
import { pageCountOf, runExtractFile } from '@docfleet/workflows';
import type { WorkerDeps } from '../deps';
import {
  EXTRACT_STAGES,
  TERMINAL_JOB_STATUSES,
  addJobEvent,
  cancelExtractJob,
  cancelRequested,
  failExtractJob,
  setExtractStage,
  type ExtractStage,
} from '@docfleet/jobs';
import {
  CancelSignal,
  PermanentFailure,
  claimStage,
  loadStage,
  readOptions,
  writeArtifactsStage,
} from './extract-stages';

export { PARSE_WAIT_MS } from './extract-stages';

type Log = WorkerDeps['logger'];

/** The event's traceback: the error itself, redacted (no stack frames, paths or causes); the log has it whole. */
function traceback(err: unknown): string {
  return publicTraceback(err);
}

/** The stage the job is in; `enter` is the cancel checkpoint, progress write and event at each boundary. */
function stageTracker(deps: WorkerDeps, jobId: string) {
  const { db } = deps;
  const t = {
    current: null as ExtractStage | null,
    enter: async (s: ExtractStage) => {
      if (await cancelRequested(db, jobId)) throw new CancelSignal();
      t.current = s;
      await setExtractStage(db, jobId, s);
      await addJobEvent(
        db,
        jobId,
        `extract.${s}`,
        s,
        `Stage ${EXTRACT_STAGES.indexOf(s) + 1}/${EXTRACT_STAGES.length}: ${s}.`,
      );
    },
  };
  return t;
}

export async function extractFileHandler(
  deps: WorkerDeps,
  payload: JobPayload<'extract.file'>,
  queueJob: Job,
): Promise<string> {
  const { db } = deps;
  const log = deps.logger.child({ job_id: payload.jobId });
  const job = await db.job.findUnique({ where: { id: payload.jobId } });
  if (!job || job.org_id !== payload.orgId || job.kind !== 'extract') {
    log.warn('extract.file for an unknown job; dropped');
    return 'missing';
  }
  if (TERMINAL_JOB_STATUSES.includes(job.status)) return 'skipped';
  if (job.cancel_requested_at) return cancelExtractJob(db, job.id);

  const attempt = queueJob.attemptsMade + 1;
  const stages = stageTracker(deps, job.id);
  try {
    return await runStages(deps, job, queueJob, attempt, stages, log);
  } catch (err) {
    if (err instanceof DelayedError) throw err;
    if (err instanceof CancelSignal) return cancelExtractJob(db, job.id);
    return failOrRetry(deps, job, err, { attempt, attempts: queueJob.opts.attempts ?? 1, stage: stages.current, log });
  }
}

/** The job's stages in order: claim → load-parse → (the model's stages) → write-artifacts. */
async function runStages(
  deps: WorkerDeps,
  job: JobRow,
  queueJob: Job,
  attempt: number,
  stages: ReturnType<typeof stageTracker>,
  log: Log,
): Promise<string> {
  const started = Date.now();
  const options = readOptions(job.options);
  if (!(await claimStage(deps, job, options, queueJob, attempt))) return 'skipped';

  await stages.enter('load-parse');
  const { bundle, selected, model } = await loadStage(deps, job, options);

  // build-evidence → extract → validate: runExtractFile enters each stage itself.
  const doc = await runExtractFile({
    jsonSchema: options.schema,
    schemaName: options.schema_name,
    allSegments: bundle.segments,
    segments: selected,
    ...(bundle.grounding ? { grounding: bundle.grounding } : {}),
    pageCount: pageCountOf(bundle),
    model,
    stage: (s) => stages.enter(s),
  });

  await stages.enter('write-artifacts');
  const outcome = await writeArtifactsStage(deps, job, bundle, doc);
  log.info({ outcome, ms: Date.now() - started }, 'extraction finished');
  return outcome;
}

/**
 * A failed attempt: a permanent failure (or the last attempt) fails the job with a redacted reason;
 * any other records extract.attempt_failed and rethrows so BullMQ retries it.
 */
async function failOrRetry(
  deps: WorkerDeps,
  job: JobRow,
  err: unknown,
  a: { attempt: number; attempts: number; stage: ExtractStage | null; log: Log },
): Promise<string> {
  const { db } = deps;
  const { attempt, stage, log } = a;
  const permanent = err instanceof PermanentFailure || isApiError(err) || (isModelError(err) && !err.retryable);
  const last = attempt >= a.attempts;
  // What the job's error and events say: no paths, tool output or stack frames (docs/errors.md);
  // the log has the whole error.
  const message = redactDetail(
    err instanceof PermanentFailure
      ? err.message
      : isModelError(err) || isApiError(err)
        ? `${err.code}: ${err.message}`
        : `Extraction failed: ${(err as Error)?.message ?? String(err)}`,
  );
  if (permanent || last) {
    const outcome = await failExtractJob(db, job.id, message, {
      traceback: traceback(err),
      code: (err as { code?: string }).code ?? 'internal_error',
    });
    log.info({ outcome, stage, err }, 'extraction failed');
    return outcome;
  }
  log.warn({ err, attempt }, 'extraction attempt failed; it will be retried');
  await addJobEvent(db, job.id, 'extract.attempt_failed', stage, `Attempt ${attempt} failed (${message}); retrying.`, {
    attempt,
    traceback: traceback(err).slice(-4000),
  }).catch(() => undefined);
  throw err;
}
