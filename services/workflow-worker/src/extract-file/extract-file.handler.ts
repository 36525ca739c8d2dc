// The 'extract.file' job (POST /v1/files/{fileId}/extract and the bulk endpoint): claim the job,
// run the stages load-parse → build-evidence → extract → validate → write-artifacts with a cancel
// checkpoint before each, and end in exactly one terminal state. The result_json artifact, its
// `extract` manifest, the ExtractionResult row and the completed job are written in one
// transaction, so a worker killed mid-job leaves nothing half-written and its redelivery rewrites
// the same bundle. An unreadable parse or a bad option fails the job with a reason at once; an
// unexpected error is retried by BullMQ and fails the job on the last attempt.
import { BUNDLE } from '@docfleet/contracts';
import type { Job as JobRow, Prisma } from '@docfleet/db';
import { isApiError, publicTraceback, redactDetail } from '@docfleet/errors';
import { isModelError } from '@docfleet/models';
import { DelayedError, type Job, type JobPayload } from '@docfleet/queue';
import { artifactPrefix } from '@docfleet/storage';
import {
  applyScope,
  describeScope,
  loadParseBundle,
  pageCountOf,
  runExtractFile,
  type ExtractScope,
  type ParseBundle,
} from '@docfleet/workflows';
import type { WorkerDeps } from '../runners/types';
import {
  EXTRACT_STAGES,
  TERMINAL_JOB_STATUSES,
  addJobEvent,
  cancelExtractJob,
  cancelExtractJobTx,
  cancelRequested,
  claimExtractJob,
  completeExtractJobTx,
  extractManifestIdFor,
  failExtractJob,
  lockActiveJob,
  setExtractStage,
  type ExtractStage,
} from '@docfleet/jobs';

/** How long a job waiting for its parse sleeps before it looks again. */
export const PARSE_WAIT_MS = 500;

class CancelSignal extends Error {}
/** A failure no retry can fix: the job fails at once with this message. */
class PermanentFailure extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** job.options as the gateway writes them (services/gateway/src/domain/extract/extract-jobs.ts). */
interface Options {
  schema_json: string;
  schema_name: string;
  model_id: string;
  scope?: ExtractScope;
  after_parse_job_id?: string;
}

function readOptions(raw: unknown): Options & { schema: Record<string, unknown> } {
  const o = (raw ?? {}) as Partial<Options>;
  let schema: unknown;
  try {
    schema = typeof o.schema_json === 'string' ? JSON.parse(o.schema_json) : undefined;
  } catch {
    schema = undefined;
  }
  if (!schema || typeof schema !== 'object' || typeof o.schema_name !== 'string' || typeof o.model_id !== 'string') {
    throw new PermanentFailure(
      'The job carries no usable extraction request (schema_json, schema_name, model_id); dispatch it again.',
      'invalid_job_options',
    );
  }
  return { ...(o as Options), schema: schema as Record<string, unknown> };
}

/** The event's traceback: the error itself, redacted (no stack frames, paths or causes); the log has it whole. */
function traceback(err: unknown): string {
  return publicTraceback(err);
}

/**
 * Waits for the parse a bulk extraction queued first: 'ready' once it completed; otherwise the
 * job goes back to the queue (delayed, not a failed attempt) or fails when the parse did.
 */
async function awaitParse(deps: WorkerDeps, job: JobRow, parseJobId: string, queueJob: Job): Promise<'ready'> {
  const parse = await deps.db.job.findFirst({ where: { id: parseJobId, org_id: job.org_id, kind: 'parse' } });
  if (!parse)
    throw new PermanentFailure(
      `The parse job ${parseJobId} this extraction waited for no longer exists.`,
      'parse_missing',
    );
  if (parse.status === 'completed') return 'ready';
  if (TERMINAL_JOB_STATUSES.includes(parse.status)) {
    throw new PermanentFailure(
      `The parse this extraction waited for (job ${parse.id}) ended ${parse.status}${parse.error ? `: ${parse.error}` : ''}; there is nothing to extract from.`,
      'parse_failed',
    );
  }
  const waiting = await deps.db.jobEvent.findFirst({
    where: { job_id: job.id, event_type: 'extract.waiting_for_parse' },
    select: { id: true },
  });
  if (!waiting)
    await addJobEvent(
      deps.db,
      job.id,
      'extract.waiting_for_parse',
      null,
      `Waiting for parse job ${parse.id} to complete.`,
      { parse_job_id: parse.id },
    );
  await queueJob.moveToDelayed(Date.now() + PARSE_WAIT_MS, queueJob.token);
  throw new DelayedError();
}

async function loadBundle(deps: WorkerDeps, job: JobRow): Promise<ParseBundle> {
  try {
    return await loadParseBundle(deps.db, deps.storage, {
      orgId: job.org_id,
      fileVersionId: job.file_version_id,
      withGrounding: true,
      missingCode: 'file_must_be_parsed_before_extraction',
    });
  } catch (err) {
    if (isApiError(err)) throw new PermanentFailure(`${err.code}: ${err.message}`, err.code);
    // grounding.json that does not parse, a directory where a file should be, …
    throw new PermanentFailure(
      `The parse artifacts of this file version are unreadable (${(err as Error).message}); parse the file again.`,
      'artifact_unreadable',
    );
  }
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
  let stage: ExtractStage | null = null;
  const enter = async (s: ExtractStage) => {
    if (await cancelRequested(db, job.id)) throw new CancelSignal();
    stage = s;
    await setExtractStage(db, job.id, s);
    await addJobEvent(
      db,
      job.id,
      `extract.${s}`,
      s,
      `Stage ${EXTRACT_STAGES.indexOf(s) + 1}/${EXTRACT_STAGES.length}: ${s}.`,
    );
  };
  const started = Date.now();
  try {
    const options = readOptions(job.options);
    if (options.after_parse_job_id && job.status === 'queued')
      await awaitParse(deps, job, options.after_parse_job_id, queueJob);
    if (!(await claimExtractJob(db, job.id))) return 'skipped';
    await addJobEvent(
      db,
      job.id,
      'job.started',
      job.stage,
      attempt > 1 ? `Resumed (attempt ${attempt}).` : 'Started.',
      {
        attempt,
      },
    );

    await enter('load-parse');
    const bundle = await loadBundle(deps, job);
    const selected = applyScope(bundle.segments, options.scope);
    if (!selected.length) {
      // Name what the caller sent: a scope that selects nothing, or no scope and a parse with no text.
      throw new PermanentFailure(
        !bundle.segments.length
          ? "The newest parse of this file holds no text to extract from (no segments; an image with no readable text?). See the parse job's warnings."
          : `options.scope (${describeScope(options.scope)}) selects no part of the newest parse of this file.`,
        'empty_scope',
      );
    }
    let model;
    try {
      model = deps.models.resolve(options.model_id);
    } catch (err) {
      throw new PermanentFailure(
        isModelError(err) ? `${err.code}: ${err.message}` : (err as Error).message,
        'model_unavailable',
      );
    }

    const doc = await runExtractFile({
      jsonSchema: options.schema,
      schemaName: options.schema_name,
      allSegments: bundle.segments,
      segments: selected,
      ...(bundle.grounding ? { grounding: bundle.grounding } : {}),
      pageCount: pageCountOf(bundle),
      model,
      stage: (s) => enter(s),
    });

    await enter('write-artifacts');
    const file = await db.file.findUnique({ where: { id: job.file_id }, select: { knowledge_base_id: true } });
    if (!file) throw new PermanentFailure('The file no longer exists.', 'file_missing');
    const manifestId = extractManifestIdFor(job.id);
    const prefix = artifactPrefix(file.knowledge_base_id, job.file_id, manifestId);
    await deps.storage.put(`${prefix}/${BUNDLE.result_json}`, JSON.stringify(doc));
    const outcome = await db.$transaction(async (tx) => {
      const row = await lockActiveJob(tx, job.id);
      if (!row) return 'skipped' as const;
      if (row.cancel_requested_at) {
        await cancelExtractJobTx(tx, job.id, row.stage);
        return 'cancelled' as const;
      }
      await tx.artifactManifest.create({
        data: {
          id: manifestId,
          org_id: job.org_id,
          file_id: job.file_id,
          file_version_id: job.file_version_id,
          job_id: job.id,
          artifact_type: 'extract',
          storage_prefix: prefix,
          manifest: {
            schema_name: doc.schema_name,
            model_id: doc.modelId,
            parse_manifest_id: bundle.manifest.id,
            validation_error_count: doc.validationErrors.length,
            extracted_field_count: doc.metrics.extractedFieldCount,
            citation_count: doc.metrics.citationCount,
          },
          links: {
            result_json: BUNDLE.result_json,
            result_md: null,
            grounding_json: null,
            workbook_json: null,
            tables_json: null,
            pages: null,
            imgs: null,
          },
        },
      });
      const result = await tx.extractionResult.create({
        data: {
          org_id: job.org_id,
          file_id: job.file_id,
          file_version_id: job.file_version_id,
          job_id: job.id,
          artifact_manifest_id: manifestId,
          result: doc as unknown as Prisma.InputJsonValue,
          validation_errors: doc.validationErrors as unknown as Prisma.InputJsonValue,
          model_id: doc.modelId,
        },
      });
      await completeExtractJobTx(tx, job.id, {
        result: {
          extraction_result_id: result.id,
          artifact_manifest_id: manifestId,
          validation_errors: doc.validationErrors,
        },
        message: `Extracted ${doc.metrics.extractedFieldCount} field(s) with ${doc.metrics.citationCount} citation(s); ${doc.validationErrors.length} validation error(s).`,
        payload: {
          artifact_manifest_id: manifestId,
          extraction_result_id: result.id,
          duration_ms: doc.metrics.durationMs,
          model_id: doc.modelId,
        },
      });
      return 'completed' as const;
    });
    if (outcome !== 'completed') await deps.storage.removePrefix(prefix).catch(() => undefined);
    log.info({ outcome, ms: Date.now() - started }, 'extraction finished');
    return outcome;
  } catch (err) {
    if (err instanceof DelayedError) throw err;
    if (err instanceof CancelSignal) return cancelExtractJob(db, job.id);
    const permanent = err instanceof PermanentFailure || isApiError(err) || (isModelError(err) && !err.retryable);
    const last = attempt >= (queueJob.opts.attempts ?? 1);
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
    await addJobEvent(
      db,
      job.id,
      'extract.attempt_failed',
      stage,
      `Attempt ${attempt} failed (${message}); retrying.`,
      {
        attempt,
        traceback: traceback(err).slice(-4000),
      },
    ).catch(() => undefined);
    throw err;
  }
}
