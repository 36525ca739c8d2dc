// Shapes shared by every model workflow: model controls, the Operation resource, the 202
// acknowledgement of a queued workflow, and the DocAI-style field list.
import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common';

export const ReasoningLevel = z.enum(['none', 'low', 'medium', 'high']);
export type ReasoningLevel = z.infer<typeof ReasoningLevel>;
export const IdempotencyKey = z.string().trim().min(1).max(200);

/** The model controls every workflow body accepts (`model_id`, resolved through the deployment's providers). */
export const ModelControls = z.object({
  model_id: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('omit for the deployment default; unknown → 400 unsupported_model'),
  reasoning_level: ReasoningLevel.optional().describe('default medium'),
  idempotency_key: IdempotencyKey.optional(),
});

export const OperationType = z.enum([
  'split_run',
  'extract_run',
  'classify_run',
  'edit_run',
  'split_rules_suggest',
  'schema_generate',
  'classify_suggest',
]);
export type OperationType = z.infer<typeof OperationType>;
export const OperationStatus = z.enum(['queued', 'in_progress', 'completed', 'failed', 'cancelled']);
export type OperationStatus = z.infer<typeof OperationStatus>;

export const OperationProgress = z
  .object({ done: z.number().int(), total: z.number().int(), phase: z.string().nullable() })
  .describe('advisory; done and total are 0 before the run reports');
export type OperationProgress = z.infer<typeof OperationProgress>;

export const Operation = z.object({
  operation_id: Uuid,
  operation_type: OperationType,
  status: OperationStatus,
  progress: OperationProgress,
  output: JsonObject.nullable().describe('null on every status except completed'),
  error: z.string().nullable(),
  created_at: Timestamp,
  completed_at: Timestamp.nullable(),
});
export type Operation = z.infer<typeof Operation>;

/** The 202 body of a queued workflow: no result fields. */
export const QueuedAck = z.object({ operation_id: Uuid, status: OperationStatus });
export type QueuedAck = z.infer<typeof QueuedAck>;

/** A field of the DocAI-style field list; unknown types are coerced to string on normalisation. */
export const FieldInput = z
  .object({
    name: z.string().min(1).max(200),
    type: z.string().optional(),
    description: z.string().optional(),
    required: z.boolean().optional(),
    children: z.array(JsonObject).optional().describe('nested fields (same shape)'),
  })
  .passthrough();

/** The field list as a request sends it (validated loosely, normalised by the server). */
export const FieldListSchema = z
  .object({
    version: z.union([z.number(), z.string()]).optional(),
    title: z.string().optional(),
    description: z.string().optional(),
    fields: z.array(FieldInput).min(1).max(500),
  })
  .passthrough();
export type FieldListSchema = z.infer<typeof FieldListSchema>;

export const ExtractRunBody = ModelControls.extend({
  file_id: Uuid,
  schema_id: Uuid.optional(),
  schema: FieldListSchema.optional().describe('inline field list (instead of schema_id)'),
  segment_ids: z.array(z.string().min(1)).max(10000).optional(),
});
export type ExtractRunBody = z.infer<typeof ExtractRunBody>;

// ---------------------------------------------------------------- what the workflows answer

export const FieldType = z.enum(['string', 'number', 'boolean', 'date', 'object', 'array', 'table']);
export type FieldType = z.infer<typeof FieldType>;

/** A field of a normalised field list (what the server stores and answers with). */
export const SchemaField = z
  .object({
    name: z.string().describe('normalised: lowercase, runs of other characters than [a-z0-9_] as _'),
    type: FieldType.describe('any other value sent is coerced to string'),
    description: z.string().optional(),
    required: z.boolean().optional(),
    get children(): z.ZodOptional<z.ZodArray<typeof SchemaField>> {
      return z.array(SchemaField).optional().describe('fields of an object, or of each row of a table or array');
    },
    id: z.string().optional().describe('stable id derived from the path (field-<normalised-path>), set by the server'),
  })
  .meta({ id: 'SchemaField' });
export type SchemaField = z.infer<typeof SchemaField>;

/** A normalised DocAI-style field list: names normalised, types coerced, ids set, version 1. */
export const FieldList = z.object({
  version: z.number().optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  fields: z.array(SchemaField),
});
export type FieldList = z.infer<typeof FieldList>;

export const FractionBox = z
  .object({ x1: z.number(), y1: z.number(), x2: z.number(), y2: z.number() })
  .describe('fractions 0-1 of the page, top-left origin');

export const Citation = z.object({
  path: z.string().describe('slash path into jsonResult, e.g. /field or /rows/0/field'),
  segmentId: z.string(),
  pageNumber: z.number().int(),
  quote: z.string(),
  confidence: z.number(),
  elementId: z.string().nullable().optional().describe('file-job path only: the grounding element holding the quote'),
  bbox: FractionBox.nullable().optional().describe('file-job path only: the box of that element'),
  source: z
    .enum(['model', 'grounding'])
    .optional()
    .describe('file-job path only: returned by the model, or found in the grounding by the worker'),
});
export type Citation = z.infer<typeof Citation>;

/** One node per schema field in schema order; children for objects and for the rows of tables and arrays. */
export const ResultNode = z
  .object({
    id: z.string(),
    fieldId: z.string(),
    path: z.string(),
    label: z.string(),
    type: FieldType.nullable().describe('null when the value is empty'),
    value: z.unknown(),
    confidence: z
      .number()
      .describe('the first (operation path) or lowest (file-job path) citation confidence; 0.8 means unattributed'),
    citations: z.array(Citation),
    get children(): z.ZodArray<typeof ResultNode> {
      return z.array(ResultNode);
    },
    missingReason: z.enum(['not_in_evidence']).optional().describe('file-job path only'),
  })
  .meta({ id: 'ResultNode' });
export type ResultNode = z.infer<typeof ResultNode>;

export const Warning = z.object({
  code: z.string(),
  message: z.string(),
  path: z.string().optional().describe('slash path of the field concerned'),
});
export type Warning = z.infer<typeof Warning>;

export const ExtractMetrics = z.object({
  segmentCount: z.number().int(),
  selectedSegmentCount: z.number().int(),
  pageCount: z.number().int(),
  contextChars: z.number().int().describe('characters of evidence sent to the model'),
  modelCalls: z.number().int(),
  durationMs: z.number(),
  timedOut: z.boolean(),
});

/** Output of a completed extract_run (operation path). */
export const ExtractRunOutput = z.object({
  operation_id: Uuid,
  schema: FieldListSchema.describe('the field list as given (or as saved)'),
  normalizedSchema: FieldList,
  jsonResult: JsonObject.describe('keyed by the normalised field names'),
  resultTree: z.array(ResultNode),
  citations: z.array(Citation),
  modelId: z.string(),
  warnings: z.array(Warning),
  metrics: ExtractMetrics,
});
export type ExtractRunOutput = z.infer<typeof ExtractRunOutput>;
