// The stages of the 'extract.file' job before and after the model runs: claim (after its parse),
// load-parse, and write-artifacts (one transaction). extract-file.handler.ts runs them in order.
import { BUNDLE } from '@docfleet/contracts';
import type { Job as JobRow, Prisma, Tx } from '@docfleet/db';
import { isApiError } from '@docfleet/errors';
import { isModelError } from '@docfleet/models';
import { DelayedError, type Job } from '@docfleet/queue';
import { artifactPrefix } from '@docfleet/storage';
import {
  applyScope,
  describeScope,
  loadParseBundle,
  type ExtractScope,
  type ParseBundle,
  type runExtractFile,
} from '@docfleet/workflows';
import type { WorkerDeps } from '../deps';
import {
  TERMINAL_JOB_STATUSES,
  addJobEvent,
  cancelExtractJobTx,
  claimExtractJob,
  completeExtractJobTx,
  endedRow,
  endingTransaction,
  extractManifestIdFor,
  lockActiveJob,
} from '@docfleet/jobs';

/** How long a job waiting for its parse sleeps before it looks again. */
export const PARSE_WAIT_MS = 500;

/** Thrown at a stage boundary when a cancel was requested: the job ends cancelled. */
export class CancelSignal extends Error {}
/** A failure no retry can fix: the job fails at once with this message. */
export class PermanentFailure extends Error {
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

export type ExtractOptions = Options & { schema: Record<string, unknown> };
type ExtractedDoc = Awaited<ReturnType<typeof runExtractFile>>;

export function readOptions(raw: unknown): ExtractOptions {
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

/**
 * Stage claim: waits for the parse a bulk extraction queued first (see awaitParse), then claims the job
 * and records job.started. False when another delivery holds or finished it.
 */
export async function claimStage(
  deps: WorkerDeps,
  job: JobRow,
  options: ExtractOptions,
  queueJob: Job,
  attempt: number,
): Promise<boolean> {
  const { db } = deps;
  if (options.after_parse_job_id && job.status === 'queued')
    await awaitParse(deps, job, options.after_parse_job_id, queueJob);
  if (!(await claimExtractJob(db, job.id))) return false;
  await addJobEvent(db, job.id, 'job.started', job.stage, attempt > 1 ? `Resumed (attempt ${attempt}).` : 'Started.', {
    attempt,
  });
  return true;
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

/**
 * Stage load-parse: the file version's newest parse, the segments the scope selects (at least one) and the
 * model to run. Each problem here is permanent: no retry brings a parse, a scope or a model back.
 */
export async function loadStage(deps: WorkerDeps, job: JobRow, options: ExtractOptions) {
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
  return { bundle, selected, model };
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

/**
 * Stage write-artifacts: result_json under the job's own manifest id (a redelivery rewrites the same
 * object), then manifest, ExtractionResult and the completed job in one transaction. A cancel requested
 * meanwhile wins; unless the job completed, the written object is removed.
 */
export async function writeArtifactsStage(
  deps: WorkerDeps,
  job: JobRow,
  bundle: ParseBundle,
  doc: ExtractedDoc,
): Promise<'completed' | 'cancelled' | 'skipped'> {
  const file = await deps.db.file.findUnique({ where: { id: job.file_id }, select: { knowledge_base_id: true } });
  if (!file) throw new PermanentFailure('The file no longer exists.', 'file_missing');
  const manifestId = extractManifestIdFor(job.id);
  const prefix = artifactPrefix(file.knowledge_base_id, job.file_id, manifestId);
  await deps.storage.put(`${prefix}/${BUNDLE.result_json}`, JSON.stringify(doc));
  // The ended row goes out after the commit: a client waiting on the event stream reads it at once.
  const outcome = await endingTransaction(deps.db, async (tx, ended) => {
    const row = await lockActiveJob(tx, job.id);
    if (!row) return 'skipped' as const;
    if (row.cancel_requested_at) {
      await cancelExtractJobTx(tx, job.id, row.stage);
      ended(endedRow(row, 'cancelled'));
      return 'cancelled' as const;
    }
    await storeExtractionTx(tx, job, { manifestId, prefix, bundle, doc });
    ended(endedRow(row, 'completed'));
    return 'completed' as const;
  });
  if (outcome !== 'completed') await deps.storage.removePrefix(prefix).catch(() => undefined);
  return outcome;
}

/** Inside the write-artifacts transaction: the `extract` manifest, the ExtractionResult row, the completed job. */
async function storeExtractionTx(
  tx: Tx,
  job: JobRow,
  w: { manifestId: string; prefix: string; bundle: ParseBundle; doc: ExtractedDoc },
): Promise<void> {
  const { manifestId, doc } = w;
  await tx.artifactManifest.create({
    data: {
      id: manifestId,
      org_id: job.org_id,
      file_id: job.file_id,
      file_version_id: job.file_version_id,
      job_id: job.id,
      artifact_type: 'extract',
      storage_prefix: w.prefix,
      manifest: {
        schema_name: doc.schema_name,
        model_id: doc.modelId,
        parse_manifest_id: w.bundle.manifest.id,
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
}
