// Extraction schemas (CRUD and generation) and file-path extraction jobs (spec: "Extraction
// schemas and runs", "Saved schema record", "Extraction document").
import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common';
import { Job } from './parse';
import { FieldListSchema, IdempotencyKey } from './workflows';

export const SavedSchema = z.object({
  id: Uuid,
  org_id: Uuid,
  knowledge_base_id: Uuid.nullable(),
  file_id: Uuid.nullable(),
  title: z.string(),
  description: z.string().nullable(),
  schema: JsonObject.describe('the normalised field list'),
  jsonSchema: JsonObject.describe('derived from the field list unless one was supplied'),
  metadata: JsonObject,
  created_by_user_id: Uuid.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export const SchemaEnvelope = z.object({ schema: SavedSchema });
export const SchemaList = z.object({ schemas: z.array(SavedSchema) });
export const DeleteSchemaResponse = z.object({ deleted: z.literal(true), schema_id: Uuid });

export const CreateSchemaBody = z.object({
  schema: FieldListSchema.describe('field list; title and description live inside it'),
  jsonSchema: JsonObject.optional().describe('kept as given; derived from the field list when omitted'),
  file_id: Uuid.optional().describe('attach to a file (access follows the file)'),
  knowledge_base_id: Uuid.optional().describe('attach to a knowledge base (access follows it)'),
  metadata: JsonObject.optional(),
});
export type CreateSchemaBody = z.infer<typeof CreateSchemaBody>;

export const UpdateSchemaBody = z.object({
  title: z.string().trim().min(1).max(500).optional(),
  description: z.string().max(5000).nullable().optional(),
  schema: FieldListSchema.optional(),
  jsonSchema: JsonObject.optional(),
  metadata: JsonObject.optional().describe('merged into the stored metadata (a null value removes a key)'),
});
export type UpdateSchemaBody = z.infer<typeof UpdateSchemaBody>;

export const GenerateSchemaBody = z.object({
  file_id: Uuid,
  title: z.string().trim().max(500).optional(),
  segment_ids: z.array(z.string().min(1)).max(10000).optional(),
  model_id: z.string().trim().min(1).max(200).optional(),
  reasoning_level: z.string().max(40).optional().describe('none, low, medium or high; any other value falls back to medium for this endpoint'),
  idempotency_key: IdempotencyKey.optional(),
});
export type GenerateSchemaBody = z.infer<typeof GenerateSchemaBody>;

export const ExtractScope = z.object({
  pages: z.array(z.number().int().min(1)).max(10000).optional().describe('1-based page numbers'),
  segment_ids: z.array(z.string().min(1)).max(10000).optional(),
  tables_only: z.boolean().optional(),
}).strict();
export type ExtractScope = z.infer<typeof ExtractScope>;

export const ExtractOptions = z.object({
  scope: ExtractScope.optional().describe('narrows which parse parts feed the evidence'),
}).strict();
export type ExtractOptions = z.infer<typeof ExtractOptions>;

export const FileExtractBody = z.object({
  schema: JsonObject.optional().describe('a JSON Schema (Draft 2020-12); required (400 schema_is_required)'),
  schema_name: z.string().trim().min(1).max(200).optional(),
  options: ExtractOptions.optional(),
  idempotency_key: IdempotencyKey.optional(),
});
export type FileExtractBody = z.infer<typeof FileExtractBody>;

export const ExtractBulkBody = FileExtractBody.extend({ file_ids: z.array(Uuid).min(1).max(1000) });
export type ExtractBulkBody = z.infer<typeof ExtractBulkBody>;

export const FileExtractResponse = z.object({
  job: Job,
  idempotency_key: z.string(),
  idempotent: z.boolean(),
  retry_of_job_id: Uuid.optional(),
  parse_job: Job.optional().describe('bulk only: the parse queued (and charged) first for a file that had none'),
});
export type FileExtractResponse = z.infer<typeof FileExtractResponse>;
export const ExtractBulkResponse = z.object({ jobs: z.array(FileExtractResponse) });
