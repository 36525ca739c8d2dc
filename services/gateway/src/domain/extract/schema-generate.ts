import type { Principal } from '@docfleet/auth';
import type { api } from '@docfleet/contracts';
import { REASONING_LEVELS, type ReasoningLevel } from '@docfleet/models';
import { hashOf } from '@docfleet/workflows';
import type { Deps } from '../../deps';
import { dispatchQueued, type QueuedResponse } from '../operations/dispatch-operation';
import { resolveModelFor, workflowFile } from '../operations/workflow-input';

/**
 * docs/api.md ("Extraction schemas"): for schema generation an unknown reasoning_level falls back to
 * medium (elsewhere it is refused).
 */
export const generationReasoning = (v: string | undefined): ReasoningLevel =>
  (REASONING_LEVELS as readonly string[]).includes(v ?? '') ? (v as ReasoningLevel) : 'medium';

/**
 * POST /v1/extract/schemas/generate: validate (file, access, extract.run, a readable parse, the
 * model), then the queued-operation rule (1 credit). The worker derives the field list and saves
 * it attached to the file. Default key: file version, title, segment_ids and model, so a new
 * upload or a different title is new work while a repeated request replays.
 */
export async function dispatchSchemaGenerate(
  deps: Deps,
  p: Principal,
  body: api.GenerateSchemaBody,
): Promise<QueuedResponse> {
  const { file } = await workflowFile(
    deps,
    p,
    body.file_id,
    body.segment_ids?.length ? { segmentIds: body.segment_ids } : {},
  );
  const model = resolveModelFor(deps, body.model_id);
  const title = body.title?.trim() || undefined;
  const segmentIds = body.segment_ids?.length ? [...new Set(body.segment_ids)].sort() : undefined;
  const key =
    body.idempotency_key ??
    `schema_generate:${hashOf({ file_version_id: file.current_version.id, title, segment_ids: segmentIds, model: model.modelId })}`;
  return dispatchQueued(deps, p, {
    type: 'schema_generate',
    file,
    idempotencyKey: key,
    modelId: model.modelId,
    request: {
      file_version_id: file.current_version.id,
      ...(title ? { title } : {}),
      ...(segmentIds ? { segment_ids: segmentIds } : {}),
      reasoning_level: generationReasoning(body.reasoning_level),
      created_by_user_id: p.userId ?? null,
    },
  });
}
