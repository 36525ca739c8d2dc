import type { Principal } from '@docfleet/auth';
import type { api } from '@docfleet/contracts';
import { ApiError } from '@docfleet/errors';
import { hashOf } from '@docfleet/workflows';
import type { Deps } from '../../deps';
import { dispatchSync } from '../operations/dispatch-sync';
import { resolveModelFor, workflowFile } from '../operations/workflow-input';

/**
 * POST /v1/classify/runs (synchronous, 1 credit per idempotency key). Classes are checked first:
 * without them the request is a 400 classes_required whatever else is wrong with it. Default key:
 * file version, classes (order kept: it is the caller's list), multi_label and model.
 */
export async function classifyRun(deps: Deps, p: Principal, body: api.ClassifyRunBody) {
  const classes = [...new Set((body.classes ?? []).map((c) => c.trim()).filter(Boolean))];
  if (!classes.length) throw new ApiError('classes_required', 'Send classes: an array of at least one class name.');
  const { file } = await workflowFile(deps, p, body.file_id);
  const model = resolveModelFor(deps, body.model_id);
  const multiLabel = body.multi_label === true;
  const key =
    body.idempotency_key ??
    `classify_run:${hashOf({ file_id: file.id, version: file.current_version.id, classes, multi_label: multiLabel, model: model.modelId })}`;
  return dispatchSync(deps, p, {
    type: 'classify_run',
    file,
    idempotencyKey: key,
    modelId: model.modelId,
    request: {
      file_version_id: file.current_version.id,
      classes,
      multi_label: multiLabel,
      reasoning_level: body.reasoning_level ?? 'medium',
    },
  });
}

/** POST /v1/classify/classes/suggest (synchronous, 1 credit per idempotency key). */
export async function suggestClasses(deps: Deps, p: Principal, body: api.ClassifySuggestBody) {
  const { file } = await workflowFile(deps, p, body.file_id);
  const model = resolveModelFor(deps, body.model_id);
  const guidelines = body.guidelines?.trim() ?? '';
  const key =
    body.idempotency_key ??
    `classify_suggest:${hashOf({ file_id: file.id, version: file.current_version.id, guidelines, model: model.modelId })}`;
  return dispatchSync(deps, p, {
    type: 'classify_suggest',
    file,
    idempotencyKey: key,
    modelId: model.modelId,
    request: {
      file_version_id: file.current_version.id,
      guidelines,
      reasoning_level: body.reasoning_level ?? 'medium',
    },
  });
}
