import type { Principal } from '@docfleet/auth';
import type { api } from '@docfleet/contracts';
import { hashOf } from '@docfleet/workflows';
import type { Deps } from '../../deps';
import { dispatchQueued, type QueuedResponse } from '../operations/dispatch-operation';
import { resolveModelFor, workflowFile } from '../operations/workflow-input';

/**
 * POST /v1/split/runs. Validation in docs/api.md's "Validation order" (access, permission, parse, model), then the
 * queued-operation rule. Default key: file (its current version, so new content is new work),
 * rules and model (docs/api.md, "Split": it cannot tell two deliberate identical runs apart).
 */
export async function dispatchSplitRun(deps: Deps, p: Principal, body: api.SplitRunBody): Promise<QueuedResponse> {
  const { file } = await workflowFile(deps, p, body.file_id);
  const model = resolveModelFor(deps, body.model_id);
  const rules = body.rules ?? [];
  const key =
    body.idempotency_key ??
    `split_run:${hashOf({ file_id: file.id, version: file.current_version.id, rules, model: model.modelId })}`;
  return dispatchQueued(deps, p, {
    type: 'split_run',
    file,
    idempotencyKey: key,
    modelId: model.modelId,
    request: {
      file_version_id: file.current_version.id,
      file_name: file.filename,
      rules,
      reasoning_level: body.reasoning_level ?? 'medium',
    },
  });
}

/** POST /v1/split/rules/suggest: queued, 1 credit; default key from file and model. */
export async function dispatchSplitRulesSuggest(
  deps: Deps,
  p: Principal,
  body: api.SplitRulesSuggestBody,
): Promise<QueuedResponse> {
  const { file } = await workflowFile(deps, p, body.file_id);
  const model = resolveModelFor(deps, body.model_id);
  const key =
    body.idempotency_key ??
    `split_rules_suggest:${hashOf({ file_id: file.id, version: file.current_version.id, model: model.modelId })}`;
  return dispatchQueued(deps, p, {
    type: 'split_rules_suggest',
    file,
    idempotencyKey: key,
    modelId: model.modelId,
    request: {
      file_version_id: file.current_version.id,
      file_name: file.filename,
      reasoning_level: body.reasoning_level ?? 'medium',
    },
  });
}
