import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common';

export const KnowledgeBase = z.object({
  id: Uuid,
  org_id: Uuid,
  name: z.string(),
  description: z.string().nullable(),
  metadata: JsonObject,
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type KnowledgeBase = z.infer<typeof KnowledgeBase>;
export const KnowledgeBaseEnvelope = z.object({ knowledge_base: KnowledgeBase });
export const KnowledgeBaseList = z.object({ knowledge_bases: z.array(KnowledgeBase) });

const Name = z.string().trim().min(1).max(200);
export const CreateKnowledgeBaseBody = z.object({
  name: Name,
  description: z.string().max(5000).nullable().optional(),
  metadata: JsonObject.optional(),
});
export const UpdateKnowledgeBaseBody = z.object({
  name: Name,
  description: z.string().max(5000).nullable().optional(),
  metadata: JsonObject.optional(),
});
export const DeleteKnowledgeBaseQuery = z.object({ confirm_permanent: z.string().optional() });

export const KnowledgeBaseDeleteReport = z.object({
  deleted: z.literal(true),
  permanent: z.literal(true),
  knowledge_base_id: Uuid,
  knowledge_base_name: z.string(),
  files_deleted: z.number().int(),
  filesystem_roots_removed: z.array(z.string()),
  database: z.record(z.string(), z.number().int()),
});

export const Folder = z.object({
  id: Uuid,
  knowledge_base_id: Uuid,
  name: z.string(),
  parent_folder_id: Uuid.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Folder = z.infer<typeof Folder>;
export const FolderEnvelope = z.object({ folder: Folder });
export const CreateFolderBody = z.object({ name: Name, parent_folder_id: Uuid.nullable().optional() });
