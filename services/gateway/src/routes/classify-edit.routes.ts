import { api } from '@docfleet/contracts';
import { z } from 'zod';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import { classifyRun, suggestClasses } from '../domain/classify/classify';
import { editRun, loadProposal, serializeProposal } from '../domain/edit/edit';
import { SYNC_ERRORS, WORKFLOW_REQUIRED } from './workflow-errors';

const SYNC_NOTE =
  '1 credit per idempotency_key (a retry with the same key is not charged again; a completed run replays its stored output)';

export function classifyEditRoutes(r: ApiRoutes, deps: Deps) {
  r.add(
    {
      method: 'post',
      path: '/v1/classify/classes/suggest',
      summary: `Suggest document classes for a file (synchronous; ${SYNC_NOTE})`,
      tags: ['Classify'],
      body: api.ClassifySuggestBody,
      responses: { 200: { description: 'suggested classes', schema: api.ClassifySuggestResponse } },
      errors: SYNC_ERRORS,
      required: WORKFLOW_REQUIRED,
    },
    async ({ body, principal }) => ({ body: await suggestClasses(deps, principal, body) }),
  );
  r.add(
    {
      method: 'post',
      path: '/v1/classify/runs',
      summary: `Classify a file and each of its pages (synchronous; ${SYNC_NOTE})`,
      tags: ['Classify'],
      body: api.ClassifyRunBody,
      responses: { 200: { description: 'document and per-page classes', schema: api.ClassifyRunResponse } },
      errors: ['classes_required', ...SYNC_ERRORS],
      required: WORKFLOW_REQUIRED,
    },
    async ({ body, principal }) => ({ body: await classifyRun(deps, principal, body) }),
  );
  r.add(
    {
      method: 'post',
      path: '/v1/edit/runs',
      summary: `Propose edits to a parsed file; never applies them (synchronous; ${SYNC_NOTE})`,
      tags: ['Edit'],
      body: api.EditRunBody,
      responses: { 200: { description: 'the stored proposal', schema: api.EditRunResponse } },
      errors: SYNC_ERRORS,
      required: WORKFLOW_REQUIRED,
    },
    async ({ body, principal }) => ({ body: await editRun(deps, principal, body) }),
  );
  r.add(
    {
      method: 'get',
      path: '/v1/edit/proposals/:proposalId',
      summary: 'An edit proposal (viewer access to its file)',
      tags: ['Edit'],
      params: z.object({ proposalId: api.Uuid }),
      responses: { 200: { description: 'the proposal', schema: api.EditProposalEnvelope } },
      errors: ['proposal_not_found', 'knowledge_base_access_denied'],
    },
    async ({ params, principal }) => ({
      body: { proposal: serializeProposal(await loadProposal(deps, principal, params.proposalId)) },
    }),
  );
}
