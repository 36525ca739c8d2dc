// File-path extraction jobs (POST /v1/files/{fileId}/extract and /v1/files/extract/bulk; docs/api.md, Idempotency).
// A Job row of kind 'extract' queued as 'extract.file' on the workflow queue; no credits. The
// JSON Schema, scope, schema name and the model are stored in the job's options, so the worker
// runs exactly what was asked and the job shows it.
import { requirePermission, type Principal } from '@docfleet/auth';
import type { api } from '@docfleet/contracts';
import { isUniqueViolation, Prisma, type Db, type Job } from '@docfleet/db';
import { ApiError, isApiError } from '@docfleet/errors';
import { addQueuedEvent, createQueuedJob, failUnqueuedJob, jobByKey, resolveJobKey } from '@docfleet/jobs';
import {
  applyScope,
  describeScope,
  hashOf,
  jsonSchemaProblem,
  loadParseBundle,
  newestParseManifest,
  type ExtractScope,
} from '@docfleet/workflows';
import type { Deps } from '../../deps';
import { loadFile } from '../files/files';
import { resolveModelFor } from '../operations/workflow-input';
import { dispatchParse } from '../parse/dispatch-parse';
import { bulkAborted } from '../parse/bulk';

type ExtractDeps = Pick<Deps, 'db' | 'storage' | 'queues' | 'logger' | 'models' | 'env'>;

/** What the worker reads from job.options (a wire contract between gateway and workflow worker). */
export interface ExtractJobOptions {
  scope?: ExtractScope;
  schema_name: string;
  /** The JSON Schema as sent, as text: jsonb would reorder its properties, and their order is the result tree's. */
  schema_json: string;
  model_id: string;
  /** Bulk extraction of an unparsed file: the parse queued first; the worker waits for it. */
  after_parse_job_id?: string;
}

export interface ExtractDispatch {
  job: Job;
  idempotencyKey: string;
  idempotent: boolean;
  retryOfJobId?: string;
  parseJob?: Job;
}

/** Empty parts dropped and lists sorted, so equal scopes hash equally. */
export function normaliseScope(s: ExtractScope | undefined): ExtractScope | undefined {
  if (!s) return undefined;
  const out: ExtractScope = {};
  if (s.pages?.length) out.pages = [...new Set(s.pages)].sort((a, b) => a - b);
  if (s.segment_ids?.length) out.segment_ids = [...new Set(s.segment_ids)].sort();
  if (s.tables_only) out.tables_only = true;
  return Object.keys(out).length ? out : undefined;
}

/**
 * docs/api.md, Idempotency: `extract:<file_version_id>:<schema_hash>:<options_hash>` (the schema name
 * counts as an option).
 */
export const defaultExtractKey = (
  fileVersionId: string,
  schema: unknown,
  scope: ExtractScope | undefined,
  schemaName: string,
) => `extract:${fileVersionId}:${hashOf(schema, 16)}:${hashOf({ scope: scope ?? null, schema_name: schemaName }, 16)}`;

function requireSchema(body: { schema?: Record<string, unknown> }): Record<string, unknown> {
  if (!body.schema)
    throw new ApiError('schema_is_required', 'Send schema: the JSON Schema (Draft 2020-12) the result must follow.');
  const problem = jsonSchemaProblem(body.schema);
  if (problem) throw new ApiError('invalid_schema', `schema is ${problem}.`);
  return body.schema;
}

const schemaNameOf = (body: { schema_name?: string }, schema: Record<string, unknown>) =>
  body.schema_name ?? (typeof schema.title === 'string' && schema.title.trim() ? schema.title.trim() : 'extraction');

export async function dispatchFileExtract(
  deps: ExtractDeps,
  p: Principal,
  fileId: string,
  body: api.FileExtractBody,
  opts: { afterParseJob?: Job; replayOnly?: boolean } = {},
): Promise<ExtractDispatch> {
  const schema = requireSchema(body);
  requirePermission(p, 'extract.run');
  const file = await loadFile(deps.db, p, fileId);
  const version = file.current_version;
  const scope = normaliseScope(body.options?.scope);
  if (!opts.afterParseJob && !opts.replayOnly) {
    // The current version must have a parse manifest (older versions' parses do not count), and a
    // scope must select something of it.
    const bundle = await loadParseBundle(deps.db, deps.storage, {
      orgId: p.orgId,
      fileVersionId: version.id,
      missingCode: 'file_must_be_parsed_before_extraction',
    });
    if (scope && !applyScope(bundle.segments, scope).length) {
      throw new ApiError(
        'file_must_be_parsed_before_extraction',
        `options.scope (${describeScope(scope)}) selects no part of the newest parse of this file.`,
      );
    }
  }
  const model = resolveModelFor(deps, undefined);
  const schemaName = schemaNameOf(body, schema);

  const resolved = await resolveJobKey(deps.db, {
    orgId: p.orgId,
    kind: 'extract',
    fileId: file.id,
    explicitKey: body.idempotency_key,
    derivedKey: () => defaultExtractKey(version.id, schema, scope, schemaName),
    conflictMessage: 'This idempotency_key was already used for an extraction of another file.',
  });
  if (resolved.existing) return replay(resolved.existing);
  const { key, retryOf } = resolved;

  const options: ExtractJobOptions = {
    ...(scope ? { scope } : {}),
    schema_name: schemaName,
    schema_json: JSON.stringify(schema),
    model_id: model.modelId,
    ...(opts.afterParseJob ? { after_parse_job_id: opts.afterParseJob.id } : {}),
  };
  let job: Job;
  try {
    job = await deps.db.$transaction(async (tx) => {
      const created = await createQueuedJob(tx, {
        orgId: p.orgId,
        knowledgeBaseId: file.knowledge_base_id,
        fileId: file.id,
        fileVersionId: version.id,
        kind: 'extract',
        options: options as unknown as Prisma.InputJsonValue,
        idempotencyKey: key,
        retryOfJobId: retryOf?.id,
        createdByUserId: p.userId,
        apiKeyId: p.apiKeyId,
      });
      await addQueuedEvent(
        tx,
        created.id,
        opts.afterParseJob
          ? `Queued; it starts when parse job ${opts.afterParseJob.id} completes. No credits.`
          : 'Queued. Extraction jobs use no credits.',
        {
          schema_name: schemaName,
          model_id: model.modelId,
          scope: describeScope(scope),
          ...(retryOf ? { retry_of_job_id: retryOf.id } : {}),
          ...(opts.afterParseJob ? { after_parse_job_id: opts.afterParseJob.id } : {}),
        },
      );
      return created;
    });
  } catch (err) {
    if (isUniqueViolation(err)) {
      const winner = await findByKey(deps.db, p.orgId, key);
      if (winner) return replay(winner);
    }
    throw err;
  }

  try {
    await deps.queues.enqueue('extract.file', { jobId: job.id, orgId: p.orgId }, { jobId: job.id });
  } catch (err) {
    deps.logger.error({ err, job_id: job.id }, 'extract dispatch: enqueue failed; failing the job');
    await failUnqueuedJob(deps.db, job.id, err as Error, {
      error: 'The job could not be queued (queue unavailable).',
      closeReservation: false,
    });
    throw new ApiError(
      'service_unavailable',
      'The workflow queue is unavailable; the job was failed. Try again shortly.',
    );
  }
  return { job, idempotencyKey: key, idempotent: false, ...(retryOf ? { retryOfJobId: retryOf.id } : {}) };
}

/**
 * Bulk (docs/api.md, "Bulk requests"): not atomic; files in request order, the first failure aborts
 * and earlier jobs keep running; with a key each file uses `<key>:<file_id>`. A file whose current version
 * has no parse is parsed first through the ordinary parse dispatch (reserved and charged as a parse, replayed
 * when that parse is already queued), and its extraction job waits for that parse.
 */
export async function dispatchExtractBulk(
  deps: ExtractDeps,
  p: Principal,
  body: api.ExtractBulkBody,
): Promise<ExtractDispatch[]> {
  requireSchema(body);
  requirePermission(p, 'extract.run');
  const out: ExtractDispatch[] = [];
  for (const fileId of body.file_ids) {
    try {
      const file = await loadFile(deps.db, p, fileId);
      const perFile = {
        ...body,
        idempotency_key: body.idempotency_key ? `${body.idempotency_key}:${fileId}` : undefined,
      };
      // A replay of an earlier bulk (same key) answers with its job, parsed or not.
      if (perFile.idempotency_key) {
        const existing = await findByKey(deps.db, p.orgId, perFile.idempotency_key);
        if (existing) {
          out.push(await dispatchFileExtract(deps, p, fileId, perFile, { replayOnly: true }));
          continue;
        }
      }
      const parsed = await newestParseManifest(deps.db, p.orgId, file.current_version.id);
      if (parsed) {
        out.push(await dispatchFileExtract(deps, p, fileId, perFile));
      } else {
        const parse = await dispatchParse(deps, p, fileId, {});
        const d = await dispatchFileExtract(deps, p, fileId, perFile, { afterParseJob: parse.job });
        out.push({ ...d, parseJob: parse.job });
      }
    } catch (err) {
      if (!isApiError(err)) throw err;
      throw bulkAborted(
        err,
        fileId,
        out.map((r) => r.job.id),
      );
    }
  }
  return out;
}

const findByKey = (db: Db, orgId: string, key: string) => jobByKey(db, orgId, 'extract', key);

const replay = (job: Job): ExtractDispatch => ({
  job,
  idempotencyKey: job.idempotency_key,
  idempotent: true,
  ...(job.retry_of_job_id ? { retryOfJobId: job.retry_of_job_id } : {}),
});
