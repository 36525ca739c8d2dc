import { api } from '@docfleet/contracts';
import { z } from 'zod';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import { dispatchParse, dispatchParseBulk, type DispatchResult } from '../domain/parse/dispatch-parse';
import { cancelJob, clearFailedJobs, listJobEvents, listJobs, loadJob } from '../domain/parse/jobs';
import { serializeEvent, serializeJob, serializeReservation } from '../domain/parse/serialize-job';

const tags = ['Parse jobs'];
const FileParams = z.object({ fileId: api.Uuid });
const JobParams = z.object({ fileId: api.Uuid, jobId: api.Uuid });
const DISPATCH_ERRORS = [
  'file_not_found',
  'permission_required',
  'knowledge_base_access_denied',
  'insufficient_credits',
  'monthly_quota_exceeded',
  'idempotency_conflict',
  'invalid_request_body',
  'service_unavailable',
];

export function parseResponse(r: DispatchResult): api.ParseResponse {
  return {
    job: serializeJob(r.job),
    usage: r.usage,
    credit_reservation: serializeReservation(r.reservation),
    idempotency_key: r.idempotencyKey,
    idempotent: r.idempotent,
    ...(r.retryOfJobId ? { retry_of_job_id: r.retryOfJobId } : {}),
  };
}

export function parseRoutes(r: ApiRoutes, deps: Deps) {
  r.add(
    {
      method: 'post',
      path: '/v1/files/parse/bulk',
      summary: 'Queue parses of several files (not atomic; request order; first failure aborts)',
      tags,
      body: api.ParseBulkBody,
      responses: { 202: { description: 'one job per file, request order', schema: api.ParseBulkResponse } },
      errors: DISPATCH_ERRORS,
    },
    async ({ body, principal }) => {
      const out = await dispatchParseBulk(deps, principal, body);
      return {
        status: 202,
        body: {
          jobs: out.map((d) => ({ job: serializeJob(d.job), credit_reservation: serializeReservation(d.reservation) })),
        },
      };
    },
  );
  r.add(
    {
      method: 'post',
      path: '/v1/files/:fileId/parse',
      summary: 'Queue a parse of the current version (credits reserved per estimated page or sheet)',
      tags,
      params: FileParams,
      body: api.ParseBody,
      responses: {
        202: { description: 'queued, or the existing job for this idempotency key', schema: api.ParseResponse },
      },
      errors: DISPATCH_ERRORS,
    },
    async ({ params, body, principal }) => ({
      status: 202,
      body: parseResponse(await dispatchParse(deps, principal, params.fileId, body)),
    }),
  );
  r.add(
    {
      method: 'get',
      path: '/v1/files/:fileId/jobs',
      summary: 'Parse and extract jobs of a file, newest first',
      tags,
      params: FileParams,
      responses: { 200: { description: 'jobs', schema: api.JobList } },
      errors: ['file_not_found'],
    },
    async ({ params, principal }) => ({
      body: { jobs: (await listJobs(deps.db, principal, params.fileId)).map(serializeJob) },
    }),
  );
  r.add(
    {
      method: 'delete',
      path: '/v1/files/:fileId/jobs/failed',
      summary: 'Remove failed parse and extract jobs and their events (manager access)',
      tags,
      params: FileParams,
      responses: { 200: { description: 'what was removed', schema: api.ClearFailedJobsResponse } },
      errors: ['file_not_found', 'knowledge_base_access_denied'],
    },
    async ({ params, principal }) => ({ body: await clearFailedJobs(deps.db, principal, params.fileId) }),
  );
  r.add(
    {
      method: 'get',
      path: '/v1/files/:fileId/jobs/:jobId',
      summary: 'A job (status running while in flight; raw_status is the stored value)',
      tags,
      params: JobParams,
      responses: { 200: { description: 'job', schema: api.JobEnvelope } },
      errors: ['file_not_found', 'job_not_found'],
    },
    async ({ params, principal }) => ({
      body: { job: serializeJob((await loadJob(deps.db, principal, params.fileId, params.jobId)).job) },
    }),
  );
  r.add(
    {
      method: 'get',
      path: '/v1/files/:fileId/jobs/:jobId/events',
      summary: "A job's event log, oldest first",
      tags,
      params: JobParams,
      responses: { 200: { description: 'events', schema: api.JobEvents } },
      errors: ['file_not_found', 'job_not_found'],
    },
    async ({ params, principal }) => ({
      body: { events: (await listJobEvents(deps.db, principal, params.fileId, params.jobId)).map(serializeEvent) },
    }),
  );
  r.add(
    {
      method: 'post',
      path: '/v1/files/:fileId/jobs/:jobId/cancel',
      summary: 'Cancel a job (cooperative; terminal jobs are returned as they are)',
      tags,
      params: JobParams,
      responses: { 200: { description: 'job', schema: api.JobEnvelope } },
      errors: ['file_not_found', 'job_not_found', 'permission_required'],
    },
    async ({ params, principal }) => ({
      body: { job: serializeJob(await cancelJob(deps, principal, params.fileId, params.jobId)) },
    }),
  );
}
