import { requirePermission, type Principal } from '@docfleet/auth';
import { isUniqueViolation } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import type { Deps } from '../../deps';
import { loadKb } from './knowledge-bases';

export async function createFolder(
  deps: Pick<Deps, 'db'>,
  p: Principal,
  kbId: string,
  input: { name: string; parent_folder_id?: string | null },
) {
  requirePermission(p, 'files.write');
  const kb = await loadKb(deps.db, p, kbId, 'viewer');
  if (input.parent_folder_id) {
    const parent = await deps.db.folder.findFirst({ where: { id: input.parent_folder_id, knowledge_base_id: kb.id } });
    if (!parent) throw new ApiError('folder_not_found', 'The parent folder does not exist in this knowledge base.');
  }
  try {
    return await deps.db.folder.create({
      data: {
        org_id: p.orgId,
        knowledge_base_id: kb.id,
        name: input.name,
        parent_folder_id: input.parent_folder_id ?? null,
      },
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ApiError('duplicate_folder_name', `A folder named '${input.name}' already exists here.`);
    throw err;
  }
}

export async function loadFolder(deps: Pick<Deps, 'db'>, kbId: string, folderId: string) {
  const folder = await deps.db.folder.findFirst({ where: { id: folderId, knowledge_base_id: kbId } });
  if (!folder) throw new ApiError('folder_not_found', 'Folder not found in this knowledge base.');
  return folder;
}
