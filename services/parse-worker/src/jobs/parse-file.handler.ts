// The 'parse.file' job: claim the job row, run the document or spreadsheet flow, and end in
// exactly one terminal state with the reservation closed in the same transaction. Permanent
// failures (the file itself is the problem) fail at once; anything else is retried by BullMQ and
// fails on the last attempt. A worker killed mid-job is redelivered by BullMQ's stalled-job
// recovery: page debits are idempotent and the bundle is rewritten under the same names.
import fs from 'node:fs/promises';
import { isSpreadsheetKind } from '@docfleet/contracts';
import { isApiError, publicTraceback, redactDetail } from '@docfleet/errors';
import { enqueueIndexOfParse as enqueueIndex } from '@docfleet/jobs';
import { isParseError } from '@docfleet/pdf';
import { DelayedError, type Job as QueueJob, type JobPayload } from '@docfleet/queue';
import { startHeartbeat } from '@docfleet/runtime';
import { isSheetParseError } from '@docfleet/sheets';
import type { WorkerDeps } from '../deps';
import { CancelSignal, HandBackSignal, PermanentFailure, buildContext, type JobContext } from '../job-context';
import {
  TERMINAL_JOB_STATUSES,
  addJobEvent,
  beatParseJob,
  cancelParseJob,
  claimParseJob,
  failParseJob,
  handBackParseJob,
  type FinishOutcome,
} from '@docfleet/jobs';
import { parseDocument } from '../parse-document';
import { unitsOfResult } from '../parse-metrics';
import { parseSheets } from '../parse-spreadsheet';

/** The recognisable message for inputs that are not what their name claims (docs/errors.md, Job failures). */
const NO_ARTIFACTS = 'The parser finished without expected artifacts';

interface Failure {
  message: string;
  code: string;
  permanent: boolean;
  page?: number;
}

/** A readable sentence: capitalised, ending with a full stop. */
const sentence = (s: string) => {
  const t = s.trim().replace(/[.;,\s]+$/, '');
  return `${t.charAt(0).toUpperCase()}${t.slice(1)}.`;
};

export function classifyFailure(err: unknown): Failure {
  if (isParseError(err)) {
    let message = sentence(redactDetail(err.message));
    if ((err.code === 'not_a_pdf' || err.code === 'no_artifacts') && !err.message.startsWith(NO_ARTIFACTS)) {
      message = `${NO_ARTIFACTS}: ${redactDetail(err.message).replace(/\.$/, '')} (usually a file that is not what its extension claims).`;
    }
    if (err.code === 'page_timeout')
      message = `Page ${err.pageNumber ?? '?'} took too long (${redactDetail(err.message).replace(/\.$/, '')}). Raise timeout_seconds or split the document.`;
    // A page over its time limit would time out again: retrying only burns time.
    return { message, code: err.code, permanent: err.permanent || err.code === 'page_timeout', page: err.pageNumber };
  }
  if (isSheetParseError(err)) {
    const text = redactDetail(err.message).replace(/^[a-z_]+: /, '');
    const message =
      err.code === 'not_a_spreadsheet'
        ? `${NO_ARTIFACTS}: ${text} (usually a file that is not what its extension claims).`
        : err.code === 'zip_bomb'
          ? `The workbook was refused as a likely zip bomb: ${text}.`
          : sentence(text);
    return { message, code: err.code, permanent: true };
  }
  if (err instanceof PermanentFailure) return { message: err.message, code: err.code, permanent: true };
  if (isApiError(err) && err.code === 'reserved_credits_exhausted') {
    return {
      message: `${err.message} The document has more pages than were reserved when it was queued; parse it again.`,
      code: err.code,
      permanent: true,
    };
  }
  return {
    message: `Parsing failed: ${redactDetail((err as Error)?.message ?? String(err))}`,
    code: 'internal_error',
    permanent: false,
  };
}

/** Makes sure a completed parse's index job exists when the job is delivered again (libs/jobs owns it). */
export { enqueueIndex };

/** The event's traceback: the error itself, redacted (publicTraceback); the full chain is logged. */
function traceback(err: unknown): string {
  return publicTraceback(err);
}

export async function handleParseFile(
  deps: WorkerDeps,
  payload: JobPayload<'parse.file'>,
  queueJob: QueueJob,
): Promise<{ outcome: FinishOutcome | 'missing' | 'dispatched' }> {
  const log = deps.logger.child({ job_id: payload.jobId });
  const job = await deps.db.job.findUnique({ where: { id: payload.jobId } });
  if (!job || job.org_id !== payload.orgId || job.kind !== 'parse') {
    log.warn('parse.file for an unknown job; dropped');
    return { outcome: 'missing' };
  }
  if (TERMINAL_JOB_STATUSES.includes(job.status)) {
    // Redelivered after the terminal write: the completion queued the index job, but the queue may
    // have lost it since (a Redis restart); make sure it exists (same job id), then stop.
    if (job.status === 'completed') await enqueueIndex(deps, job.id);
    return { outcome: 'skipped' };
  }
  if (job.cancel_requested_at) return { outcome: await cancelParseJob(deps.db, job.id) };
  if (!(await claimParseJob(deps.db, job.id, deps.workerId))) return { outcome: 'skipped' };
  const attempt = queueJob.attemptsMade + 1;
  await addJobEvent(
    deps.db,
    job.id,
    'job.started',
    job.stage,
    attempt > 1 || job.status !== 'queued'
      ? `Resumed by worker ${deps.workerId}.`
      : `Started by worker ${deps.workerId}.`,
    { worker: deps.workerId, attempt },
  );

  let ctx: JobContext | undefined;
  const started = Date.now();
  // Between progress writes (a long OCR page) the heartbeat still says this worker is alive.
  const stopBeating = startHeartbeat(
    () => beatParseJob(deps.db, job.id, deps.workerId),
    deps.heartbeatMs ?? 10_000,
    (err) => log.warn({ err }, 'job heartbeat failed'),
  );
  try {
    ctx = await buildContext(deps, job, log);
    const outcome = isSpreadsheetKind(ctx.kind) ? await parseSheets(ctx) : await parseDocument(ctx);
    // The index job was queued inside the completion (completeParseJob), before any reader could see it.
    if (outcome === 'completed') {
      if (deps.metrics) {
        // Metrics never fail a finished job (a throw here would mean a retry).
        const done = await deps.db.job
          .findUnique({ where: { id: job.id }, select: { result: true } })
          .catch(() => null);
        if (done) {
          const u = unitsOfResult(done.result);
          deps.metrics.units(ctx.kind, u.parsed, u.reused);
        }
      }
    }
    if (outcome === 'cancelled') await fs.rm(ctx.outDir, { recursive: true, force: true });
    log.info({ outcome, ms: Date.now() - started }, 'parse finished');
    return { outcome };
  } catch (err) {
    if (err instanceof HandBackSignal) {
      log.info('grace period over: handing the job back to the queue');
      await handBackParseJob(deps.db, job.id, deps.workerId);
      await queueJob.moveToDelayed(Date.now() + 1000, queueJob.token);
      throw new DelayedError();
    }
    if (
      err instanceof CancelSignal ||
      (isParseError(err) && err.code === 'cancelled') ||
      (isSheetParseError(err) && err.code === 'cancelled')
    ) {
      const outcome = await cancelParseJob(deps.db, job.id);
      if (ctx) await fs.rm(ctx.outDir, { recursive: true, force: true });
      log.info({ outcome }, 'parse cancelled');
      return { outcome };
    }
    const f = classifyFailure(err);
    const last = attempt >= (queueJob.opts.attempts ?? 1);
    if (f.permanent || last) {
      const outcome = await failParseJob(deps.db, job.id, f.message, {
        traceback: traceback(err),
        code: f.code,
        page: f.page,
      });
      if (ctx) await fs.rm(ctx.outDir, { recursive: true, force: true });
      // The whole error (stack, causes, tool output) is for the log only.
      log.info({ outcome, code: f.code, err }, 'parse failed');
      return { outcome };
    }
    log.warn({ err, attempt }, 'parse attempt failed; it will be retried');
    await addJobEvent(
      deps.db,
      job.id,
      'parse.attempt_failed',
      null,
      `Attempt ${attempt} failed (${f.message}); retrying.`,
      { attempt, traceback: traceback(err).slice(-4000) },
    ).catch(() => undefined);
    throw err;
  } finally {
    stopBeating();
  }
}
