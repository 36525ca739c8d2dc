import type { KnowledgeBase, Folder, File, FileVersion } from '@docfleet/db';
import type { api } from '@docfleet/contracts';

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function serializeKb(kb: KnowledgeBase): api.KnowledgeBase {
  return {
    id: kb.id,
    org_id: kb.org_id,
    name: kb.name,
    description: kb.description,
    metadata: (kb.metadata ?? {}) as Record<string, unknown>,
    created_at: kb.created_at.toISOString(),
    updated_at: kb.updated_at.toISOString(),
  };
}

export function serializeFolder(f: Folder): api.Folder {
  return {
    id: f.id,
    knowledge_base_id: f.knowledge_base_id,
    name: f.name,
    parent_folder_id: f.parent_folder_id,
    created_at: f.created_at.toISOString(),
    updated_at: f.updated_at.toISOString(),
  };
}

export type FileWithVersion = File & { current_version: FileVersion | null };

export function serializeFile(f: FileWithVersion): api.FileRecord {
  const v = f.current_version;
  if (!v) throw new Error(`file ${f.id} has no current version`);
  return {
    id: f.id,
    org_id: f.org_id,
    knowledge_base_id: f.knowledge_base_id,
    folder_id: f.folder_id,
    filename: f.filename,
    content_type: f.content_type,
    metadata: (f.metadata ?? {}) as Record<string, unknown>,
    deleted_at: iso(f.deleted_at),
    current_version: {
      id: v.id,
      version_number: v.version_number,
      byte_size: Number(v.byte_size),
      page_count: v.page_count,
    },
    created_at: f.created_at.toISOString(),
    updated_at: f.updated_at.toISOString(),
  };
}
