import { api } from '@docfleet/contracts';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import { dispatchExtractRun } from '../domain/extract/extract-run';
import { QUEUED_ERRORS, WORKFLOW_REQUIRED } from './workflow-errors';

export function extractRunRoutes(r: ApiRoutes, deps: Deps) {
  r.add(
    {
      method: 'post',
      path: '/v1/extract/runs',
      summary: 'Queue an extraction run (1 credit). 202 acknowledgement, or 200 with the output on a completed replay',
      tags: ['Extraction'],
      body: api.ExtractRunBody,
      responses: {
        202: { description: 'queued, re-attached or a fresh attempt', schema: api.QueuedAck },
        200: { description: 'completed replay: the output itself', schema: api.ExtractRunOutput },
      },
      errors: [...QUEUED_ERRORS, 'invalid_schema', 'schema_not_found'],
      required: WORKFLOW_REQUIRED,
    },
    async ({ body, principal }) => dispatchExtractRun(deps, principal, body),
  );
}
