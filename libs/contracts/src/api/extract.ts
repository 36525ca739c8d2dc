// Extraction schemas (CRUD and generation), saved schema records and file-path extraction jobs with
// their extraction document (docs/api.md: Resources, Idempotency; the served OpenAPI document).
import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common';
import { Job } from './parse';
import { Citation, ExtractMetrics, FieldList, FieldListSchema, IdempotencyKey, ResultNode, Warning } from './workflows';

export const SavedSchema = z.object({
  id: Uuid,
  org_id: Uuid,
  knowledge_base_id: Uuid.nullable(),
  file_id: Uuid.nullable(),
  title: z.string(),
  description: z.string().nullable(),
  schema: FieldList.describe('the normalised field list'),
  jsonSchema: JsonObject.describe('derived from the field list unless one was supplied'),
  metadata: JsonObject,
  created_by_user_id: Uuid.nullable(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type SavedSchema = z.infer<typeof SavedSchema>;
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
  reasoning_level: z
    .string()
    .max(40)
    .optional()
    .describe('none, low, medium or high; any other value falls back to medium for this endpoint'),
  idempotency_key: IdempotencyKey.optional(),
});
export type GenerateSchemaBody = z.infer<typeof GenerateSchemaBody>;

/** Output of a completed schema_generate; the schema is saved (schema_id) attached to the file. */
export const SchemaGenerateOutput = z.object({
  operation_id: Uuid,
  schema_id: Uuid,
  schema: FieldList,
  jsonSchema: JsonObject.describe('derived from the field list'),
  modelId: z.string(),
  documentType: z.string(),
  schemaRationale: z.string(),
  metrics: z.object({
    segmentCount: z.number().int(),
    pageCount: z.number().int(),
    contextChars: z.number().int(),
    modelCalls: z.number().int(),
  }),
});
export type SchemaGenerateOutput = z.infer<typeof SchemaGenerateOutput>;

export const ExtractScope = z
  .object({
    pages: z.array(z.number().int().min(1)).max(10000).optional().describe('1-based page numbers'),
    segment_ids: z.array(z.string().min(1)).max(10000).optional(),
    tables_only: z.boolean().optional(),
  })
  .strict();
export type ExtractScope = z.infer<typeof ExtractScope>;

export const ExtractOptions = z
  .object({
    scope: ExtractScope.optional().describe('narrows which parse parts feed the evidence'),
  })
  .strict();
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

export const ValidationError = z.object({
  path: z.string().describe('JSON pointer into data (a missing required property names itself)'),
  message: z.string(),
});
export type ValidationError = z.infer<typeof ValidationError>;

/** `result` of a completed extract job. */
export const ExtractJobResult = z.object({
  extraction_result_id: Uuid,
  artifact_manifest_id: Uuid.describe('its result_json is the extraction document'),
  validation_errors: z.array(ValidationError),
});
export type ExtractJobResult = z.infer<typeof ExtractJobResult>;

/** The `result_json` artifact of a file extraction job. */
export const ExtractionDocument = z.object({
  schema: JsonObject.describe('the JSON Schema the job ran with'),
  data: JsonObject.describe('the extracted values, keyed as the schema names them'),
  jsonResult: JsonObject.describe('same as data'),
  resultTree: z.array(ResultNode),
  citations: z
    .array(Citation)
    .describe('the model’s citations resolved against the grounding, and values found there verbatim'),
  evidence: z
    .array(
      z.object({
        segmentId: z.string(),
        pageNumber: z.number().int(),
        title: z.string(),
        elementIds: z.array(z.string()),
        coordinates: z.unknown(),
      }),
    )
    .describe('the segments the scope selected'),
  warnings: z.array(Warning),
  metrics: ExtractMetrics.extend({ extractedFieldCount: z.number().int(), citationCount: z.number().int() }),
  validationErrors: z.array(ValidationError).describe('Draft 2020-12 validation of data against the schema'),
  schema_name: z.string(),
  modelId: z.string(),
});
export type ExtractionDocument = z.infer<typeof ExtractionDocument>;
