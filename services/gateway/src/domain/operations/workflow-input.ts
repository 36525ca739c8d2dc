import type { Principal } from '@docfleet/auth';
import { requirePermission } from '@docfleet/auth';
import { isModelError, type ResolvedModel } from '@docfleet/models';
import { assertParsed } from '@docfleet/workflows';
import { modelsOf, type Deps } from '../../deps';
import { loadFile } from '../files/files';
import { WORKFLOW_PERMISSION } from './attempts';

/** model_id (or the deployment default) → a model; 400 unsupported_model / 503 model_provider_unavailable. */
export function resolveModelFor(deps: Pick<Deps, 'models'>, modelId: string | undefined): ResolvedModel {
  try {
    return modelsOf(deps).resolve(modelId);
  } catch (err) {
    const api = isModelError(err) ? err.toApiError() : undefined;
    throw api ?? err;
  }
}

/**
 * The checks every workflow makes before it charges, in docs/api.md's "Validation order": the file and viewer
 * access to it, the workflow permission, and a readable parse of its current version.
 */
export async function workflowFile(
  deps: Pick<Deps, 'db' | 'storage'>,
  p: Principal,
  fileId: string,
  opts: { segmentIds?: string[] } = {},
) {
  const file = await loadFile(deps.db, p, fileId);
  requirePermission(p, WORKFLOW_PERMISSION);
  await assertParsed(deps.db, deps.storage, {
    orgId: p.orgId,
    fileVersionId: file.current_version.id,
    ...(opts.segmentIds ? { segmentIds: opts.segmentIds } : {}),
  });
  return { file };
}
