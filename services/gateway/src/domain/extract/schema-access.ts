import { requireKbAccess, requirePermission, type Principal } from '@docfleet/auth';
import type { Db, ExtractionSchema } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';

/**
 * Schema access follows attachment (docs/api.md, "Extraction schemas"): viewer access on its file if set, else on its
 * knowledge base, else the plain files.read (read) or files.write (write) permission.
 * Soft-deleted and other organisations' schemas are 404 schema_not_found.
 */
export async function checkSchemaAccess(
  db: Db,
  p: Principal,
  s: Pick<ExtractionSchema, 'file_id' | 'knowledge_base_id'>,
  mode: 'read' | 'write',
): Promise<void> {
  if (s.file_id) {
    const file = await db.file.findFirst({
      where: { id: s.file_id, org_id: p.orgId },
      select: { knowledge_base_id: true },
    });
    if (!file) throw new ApiError('schema_not_found', 'Extraction schema not found.');
    await requireKbAccess(db, p, file.knowledge_base_id, 'viewer');
  } else if (s.knowledge_base_id) {
    await requireKbAccess(db, p, s.knowledge_base_id, 'viewer');
  }
  requirePermission(p, mode === 'read' ? 'files.read' : 'files.write');
}

export async function loadSchema(
  db: Db,
  p: Principal,
  schemaId: string,
  mode: 'read' | 'write',
): Promise<ExtractionSchema> {
  const s = await db.extractionSchema.findFirst({ where: { id: schemaId, org_id: p.orgId, deleted_at: null } });
  if (!s) throw new ApiError('schema_not_found', 'Extraction schema not found.');
  await checkSchemaAccess(db, p, s, mode);
  return s;
}
