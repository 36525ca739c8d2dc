import type { Principal } from '@docfleet/auth';
import type { api } from '@docfleet/contracts';
import { ApiError } from '@docfleet/errors';
import { normalizeFieldSchema } from '@docfleet/models';
import { hashOf } from '@docfleet/workflows';
import type { Deps } from '../../deps';
import { dispatchQueued, type QueuedResponse } from '../operations/dispatch-operation';
import { resolveModelFor, workflowFile } from '../operations/workflow-input';
import { loadSchema } from './schema-access';

/**
 * POST /v1/extract/runs. Validation in docs/api.md's order ("Validation order") (access, permission, parse artifacts,
 * schema, model), then the queued-operation rule. The default key is derived from the file, the
 * resolved schema contents (not the schema_id: editing a saved schema makes a new run) and the
 * model; given segment_ids are part of it too, so a narrower run is not a replay of a wider one.
 */
export async function dispatchExtractRun(deps: Deps, p: Principal, body: api.ExtractRunBody): Promise<QueuedResponse> {
  const { file } = await workflowFile(
    deps,
    p,
    body.file_id,
    body.segment_ids?.length ? { segmentIds: body.segment_ids } : {},
  );
  let schema: Record<string, unknown>;
  let schemaId: string | null = null;
  if (body.schema_id) {
    const saved = await loadSchema(deps.db, p, body.schema_id, 'read');
    schema = saved.schema as Record<string, unknown>;
    schemaId = saved.id;
  } else if (body.schema) {
    schema = body.schema as Record<string, unknown>;
  } else {
    throw new ApiError('invalid_schema', 'Send schema_id or an inline schema (field list).');
  }
  const normalized = normalizeFieldSchema(schema);
  if (!normalized.fields.length)
    throw new ApiError('invalid_schema', 'The schema has no usable fields (each needs a name).');
  const model = resolveModelFor(deps, body.model_id);
  const key =
    body.idempotency_key ??
    `extract_run:${hashOf({ file_id: file.id, schema: normalized, model: model.modelId, segment_ids: body.segment_ids?.length ? [...body.segment_ids].sort() : undefined })}`;
  return dispatchQueued(deps, p, {
    type: 'extract_run',
    file,
    idempotencyKey: key,
    modelId: model.modelId,
    request: {
      file_version_id: file.current_version.id,
      schema,
      schema_id: schemaId,
      ...(body.segment_ids?.length ? { segment_ids: body.segment_ids } : {}),
      reasoning_level: body.reasoning_level ?? 'medium',
    },
  });
}
