import { requireKbAccess, type Principal } from '@docfleet/auth';
import type { api } from '@docfleet/contracts';
import type { EditProposal } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { hashOf } from '@docfleet/workflows';
import type { Deps } from '../../deps';
import { dispatchSync } from '../operations/dispatch-sync';
import { resolveModelFor, workflowFile } from '../operations/workflow-input';

/**
 * POST /v1/edit/runs (synchronous, 1 credit per idempotency key): the worker stores a proposal
 * with status `proposed`; the file and its artifacts are never touched. Default key: file version,
 * prompt, rules and model.
 */
export async function editRun(deps: Deps, p: Principal, body: api.EditRunBody) {
  const { file } = await workflowFile(deps, p, body.file_id);
  const model = resolveModelFor(deps, body.model_id);
  const rules = body.rules ?? [];
  const key =
    body.idempotency_key ??
    `edit_run:${hashOf({ file_id: file.id, version: file.current_version.id, prompt: body.prompt, rules, model: model.modelId })}`;
  return dispatchSync(deps, p, {
    type: 'edit_run',
    file,
    idempotencyKey: key,
    modelId: model.modelId,
    request: {
      file_version_id: file.current_version.id,
      prompt: body.prompt,
      rules,
      reasoning_level: body.reasoning_level ?? 'medium',
    },
  });
}

/** GET /v1/edit/proposals/{id}: viewer access to the proposal's file; anything else is 404. */
export async function loadProposal(deps: Pick<Deps, 'db'>, p: Principal, proposalId: string): Promise<EditProposal> {
  const notFound = () => new ApiError('proposal_not_found', 'Edit proposal not found.');
  const row = await deps.db.editProposal.findFirst({ where: { id: proposalId, org_id: p.orgId } });
  if (!row) throw notFound();
  const file = await deps.db.file.findFirst({
    where: { id: row.file_id, org_id: p.orgId },
    select: { knowledge_base_id: true },
  });
  if (!file) throw notFound();
  await requireKbAccess(deps.db, p, file.knowledge_base_id, 'viewer');
  return row;
}

export function serializeProposal(r: EditProposal) {
  return {
    id: r.id,
    file_id: r.file_id,
    operation_id: r.operation_id,
    status: r.status,
    prompt: r.prompt,
    rules: r.rules as string[],
    proposal: r.proposal as Record<string, unknown>,
    diff: r.diff,
    model_id: r.model_id,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}
