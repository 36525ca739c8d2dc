import { api } from '@docfleet/contracts';
import { z } from 'zod';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import { dispatchExtractBulk, dispatchFileExtract, type ExtractDispatch } from '../domain/extract/extract-jobs';
import { serializeJob } from '../domain/parse/serialize-job';

const tags = ['Extraction jobs'];
const FileParams = z.object({ fileId: api.Uuid });
const ERRORS = [
  'schema_is_required',
  'invalid_schema',
  'file_not_found',
  'permission_required',
  'knowledge_base_access_denied',
  'file_must_be_parsed_before_extraction',
  'model_provider_unavailable',
  'idempotency_conflict',
  'invalid_request_body',
  'service_unavailable',
];

function extractResponse(d: ExtractDispatch): api.FileExtractResponse {
  return {
    job: serializeJob(d.job),
    idempotency_key: d.idempotencyKey,
    idempotent: d.idempotent,
    ...(d.retryOfJobId ? { retry_of_job_id: d.retryOfJobId } : {}),
    ...(d.parseJob ? { parse_job: serializeJob(d.parseJob) } : {}),
  };
}

export function extractJobRoutes(r: ApiRoutes, deps: Deps) {
  r.add(
    {
      method: 'post',
      path: '/v1/files/extract/bulk',
      summary:
        'Queue extraction jobs for several files (not atomic; unparsed files are parsed first, charged as parse)',
      tags,
      body: api.ExtractBulkBody,
      responses: { 202: { description: 'one job per file, request order', schema: api.ExtractBulkResponse } },
      errors: [...ERRORS, 'insufficient_credits', 'monthly_quota_exceeded'],
    },
    async ({ body, principal }) => ({
      status: 202,
      body: { jobs: (await dispatchExtractBulk(deps, principal, body)).map(extractResponse) },
    }),
  );
  r.add(
    {
      method: 'post',
      path: '/v1/files/:fileId/extract',
      summary: 'Queue an extraction job on the parsed current version (JSON Schema; no credits)',
      tags,
      params: FileParams,
      body: api.FileExtractBody,
      responses: {
        202: {
          description: 'queued, or the existing job for this idempotency key (idempotent: true)',
          schema: api.FileExtractResponse,
        },
      },
      errors: ERRORS,
    },
    async ({ params, body, principal }) => ({
      status: 202,
      body: extractResponse(await dispatchFileExtract(deps, principal, params.fileId, body)),
    }),
  );
}
