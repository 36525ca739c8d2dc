import { api } from '@docfleet/contracts';
import { z } from 'zod';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import { downloadSplitRange } from '../domain/split/split-download';
import { dispatchSplitRulesSuggest, dispatchSplitRun } from '../domain/split/split-run';
import { QUEUED_ERRORS, WORKFLOW_REQUIRED } from './workflow-errors';

const tags = ['Split'];

export function splitRoutes(r: ApiRoutes, deps: Deps) {
  r.add(
    {
      method: 'post',
      path: '/v1/split/rules/suggest',
      summary:
        'Queue a split-rules suggestion (1 credit). 202 acknowledgement, or 200 with { rules, modelId } on a completed replay',
      tags,
      body: api.SplitRulesSuggestBody,
      responses: {
        202: { description: 'queued, re-attached or a fresh attempt', schema: api.QueuedAck },
        200: { description: 'completed replay: the output itself', schema: api.SplitRulesOutput },
      },
      errors: QUEUED_ERRORS,
      required: WORKFLOW_REQUIRED,
    },
    async ({ body, principal }) => dispatchSplitRulesSuggest(deps, principal, body),
  );
  r.add(
    {
      method: 'post',
      path: '/v1/split/runs',
      summary:
        'Queue a split run (1 credit): windows of pages, then a repair pass. 202 acknowledgement, or 200 with the split session on a completed replay',
      tags,
      body: api.SplitRunBody,
      responses: {
        202: { description: 'queued, re-attached or a fresh attempt', schema: api.QueuedAck },
        200: { description: 'completed replay: the split session', schema: api.SplitSession },
      },
      errors: QUEUED_ERRORS,
      required: WORKFLOW_REQUIRED,
    },
    async ({ body, principal }) => dispatchSplitRun(deps, principal, body),
  );
  r.add(
    {
      method: 'post',
      path: '/v1/split/download',
      summary: 'A page range of a PDF as a new PDF (free; viewer access; no parse needed)',
      tags,
      body: api.SplitDownloadBody,
      responses: {
        200: {
          description: 'PDF bytes; Content-Disposition names the file after the title',
          schema: z.string().describe('binary PDF'),
          contentType: 'application/pdf',
        },
      },
      errors: [
        'file_not_found',
        'knowledge_base_access_denied',
        'invalid_page_range',
        'unsupported_file_type',
        'invalid_request_body',
      ],
      required: WORKFLOW_REQUIRED,
    },
    async ({ body, principal, res }) => {
      const out = await downloadSplitRange(deps, principal, body);
      res.status(200).setHeader('Content-Type', 'application/pdf');
      res.setHeader('Content-Disposition', out.contentDisposition);
      res.setHeader('Content-Length', String(out.bytes.byteLength));
      res.end(Buffer.from(out.bytes));
    },
  );
}
