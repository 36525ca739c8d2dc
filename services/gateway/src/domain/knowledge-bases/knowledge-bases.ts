import {
  isRoot,
  reachableKbIds,
  requireKbAccess,
  requirePermission,
  type AccessLevel,
  type Principal,
} from '@docfleet/auth';
import { deleteKnowledgeBaseJobReservations, deleteReservationsOfFiles } from '@docfleet/billing';
import { isUniqueViolation, type Db, type Tx } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { kbRoot } from '@docfleet/storage';
import type { Deps } from '../../deps';

/** Loads a knowledge base of the caller's organisation; another organisation's id looks unknown. */
export async function loadKb(db: Db | Tx, p: Principal, kbId: string, level: AccessLevel = 'viewer') {
  const kb = await db.knowledgeBase.findFirst({ where: { id: kbId, org_id: p.orgId } });
  if (!kb) throw new ApiError('knowledge_base_not_found', 'Knowledge base not found.');
  await requireKbAccess(db, p, kb.id, level);
  return kb;
}

export async function createKnowledgeBase(
  deps: Pick<Deps, 'db'>,
  p: Principal,
  input: { name: string; description?: string | null; metadata?: Record<string, unknown> },
) {
  requirePermission(p, 'files.write');
  try {
    return await deps.db.$transaction(async (tx) => {
      const kb = await tx.knowledgeBase.create({
        data: {
          org_id: p.orgId,
          name: input.name,
          description: input.description ?? null,
          metadata: (input.metadata ?? {}) as object,
          created_by_user_id: p.userId ?? null,
        },
      });
      // A member who creates a knowledge base manages it (docs/api.md, Conventions).
      if (!isRoot(p) && p.userId) {
        await tx.rbacGrant.create({
          data: {
            org_id: p.orgId,
            user_id: p.userId,
            resource_type: 'knowledge_base',
            resource_id: kb.id,
            access_level: 'manager',
          },
        });
      }
      return kb;
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ApiError('duplicate_knowledge_base_name', `A knowledge base named '${input.name}' already exists.`);
    throw err;
  }
}

export async function listKnowledgeBases(deps: Pick<Deps, 'db'>, p: Principal) {
  const ids = await reachableKbIds(deps.db, p);
  return deps.db.knowledgeBase.findMany({
    where: { org_id: p.orgId, ...(ids ? { id: { in: ids } } : {}) },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
  });
}

export async function renameKnowledgeBase(
  deps: Pick<Deps, 'db'>,
  p: Principal,
  kbId: string,
  input: { name: string; description?: string | null; metadata?: Record<string, unknown> },
) {
  requirePermission(p, 'files.write');
  const kb = await loadKb(deps.db, p, kbId, 'manager');
  try {
    return await deps.db.knowledgeBase.update({
      where: { id: kb.id },
      data: {
        name: input.name,
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.metadata !== undefined
          ? { metadata: { ...(kb.metadata as object), ...input.metadata } as object }
          : {}),
      },
    });
  } catch (err) {
    if (isUniqueViolation(err))
      throw new ApiError('duplicate_knowledge_base_name', `A knowledge base named '${input.name}' already exists.`);
    throw err;
  }
}

/**
 * Permanent delete: every file (live and trashed) with its versions, pages, jobs, artifacts,
 * index segments and reservations, then folders, imports, grants and knowledge-base jobs, in one
 * transaction; the managed storage root is removed after the commit.
 */
export async function deleteKnowledgeBase(
  deps: Pick<Deps, 'db' | 'storage'>,
  p: Principal,
  kbId: string,
  confirm: boolean,
) {
  if (!confirm)
    throw new ApiError('confirmation_required', 'Deleting a knowledge base is permanent: send confirm_permanent=true.');
  requirePermission(p, 'files.write');
  const kb = await loadKb(deps.db, p, kbId, 'manager');
  const database = await deps.db.$transaction(
    async (tx) => {
      const files = await tx.file.findMany({ where: { knowledge_base_id: kb.id }, select: { id: true } });
      const fileIds = files.map((f) => f.id);
      const counts = await deleteFileRows(tx, fileIds);
      const imports = await tx.import.findMany({ where: { knowledge_base_id: kb.id }, select: { id: true } });
      const importItems = await tx.importItem.deleteMany({ where: { import_id: { in: imports.map((i) => i.id) } } });
      const kbJobs = await tx.knowledgeBaseJob.findMany({ where: { knowledge_base_id: kb.id }, select: { id: true } });
      const kbJobReservations = await deleteKnowledgeBaseJobReservations(
        tx,
        kbJobs.map((j) => j.id),
      );
      const out = {
        ...counts,
        knowledge_bases: 0,
        folders: (await tx.folder.deleteMany({ where: { knowledge_base_id: kb.id } })).count,
        imports: (await tx.import.deleteMany({ where: { knowledge_base_id: kb.id } })).count,
        import_items: importItems.count,
        rbac_grants: (await tx.rbacGrant.deleteMany({ where: { resource_type: 'knowledge_base', resource_id: kb.id } }))
          .count,
        knowledge_base_jobs: (await tx.knowledgeBaseJob.deleteMany({ where: { knowledge_base_id: kb.id } })).count,
        knowledge_base_job_credit_reservations: kbJobReservations,
      };
      out.knowledge_bases = (await tx.knowledgeBase.deleteMany({ where: { id: kb.id } })).count;
      return out;
    },
    { timeout: 60_000 },
  );
  const root = kbRoot(kb.id);
  const removed = await deps.storage.removePrefix(root);
  return {
    deleted: true as const,
    permanent: true as const,
    knowledge_base_id: kb.id,
    knowledge_base_name: kb.name,
    files_deleted: database.files,
    filesystem_roots_removed: removed ? [root] : [],
    database,
  };
}

/** Deletes the rows of the given files and everything hanging off them; returns row counts. */
export async function deleteFileRows(tx: Tx, fileIds: string[]) {
  const versions = await tx.fileVersion.findMany({ where: { file_id: { in: fileIds } }, select: { id: true } });
  const versionIds = versions.map((v) => v.id);
  const jobs = await tx.job.findMany({ where: { file_id: { in: fileIds } }, select: { id: true } });
  await tx.jobEvent.deleteMany({ where: { job_id: { in: jobs.map((j) => j.id) } } });
  const counts = {
    evidence_index_segments: (await tx.evidenceIndexSegment.deleteMany({ where: { file_id: { in: fileIds } } })).count,
    artifacts: (await tx.artifactManifest.deleteMany({ where: { file_id: { in: fileIds } } })).count,
    extraction_results: (await tx.extractionResult.deleteMany({ where: { file_id: { in: fileIds } } })).count,
    credit_reservations: await deleteReservationsOfFiles(tx, fileIds),
    jobs: (await tx.job.deleteMany({ where: { file_id: { in: fileIds } } })).count,
    page_versions: (await tx.pageVersion.deleteMany({ where: { file_version_id: { in: versionIds } } })).count,
    file_versions: 0,
    files: 0,
  };
  await tx.file.updateMany({ where: { id: { in: fileIds } }, data: { current_version_id: null } });
  counts.file_versions = (await tx.fileVersion.deleteMany({ where: { id: { in: versionIds } } })).count;
  counts.files = (await tx.file.deleteMany({ where: { id: { in: fileIds } } })).count;
  return counts;
}
