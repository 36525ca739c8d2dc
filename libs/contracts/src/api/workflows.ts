// Shapes shared by every model workflow: model controls, the Operation resource, the 202
// acknowledgement of a queued workflow, and the DocAI-style field list.
import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common';

export const ReasoningLevel = z.enum(['none', 'low', 'medium', 'high']);
export const IdempotencyKey = z.string().trim().min(1).max(200);

/** Accepted by every workflow body (spec, "Model controls"). */
export const ModelControls = z.object({
  model_id: z.string().trim().min(1).max(200).optional().describe('omit for the deployment default; unknown → 400 unsupported_model'),
  reasoning_level: ReasoningLevel.optional().describe('default medium'),
  idempotency_key: IdempotencyKey.optional(),
});

export const OperationType = z.enum(['split_run', 'extract_run', 'classify_run', 'edit_run', 'split_rules_suggest', 'schema_generate', 'classify_suggest']);
export const OperationStatus = z.enum(['queued', 'in_progress', 'completed', 'failed', 'cancelled']);

export const Operation = z.object({
  operation_id: Uuid,
  operation_type: OperationType,
  status: OperationStatus,
  progress: z.object({ done: z.number().int(), total: z.number().int(), phase: z.string().nullable() }).describe('advisory'),
  output: JsonObject.nullable().describe('null on every status except completed'),
  error: z.string().nullable(),
  created_at: Timestamp,
  completed_at: Timestamp.nullable(),
});

export const QueuedAck = z.object({ operation_id: Uuid, status: OperationStatus });

/** A field of the DocAI-style field list; unknown types are coerced to string on normalisation. */
export const FieldInput = z.object({
  name: z.string().min(1).max(200),
  type: z.string().optional(),
  description: z.string().optional(),
  required: z.boolean().optional(),
  children: z.array(JsonObject).optional().describe('nested fields (same shape)'),
}).passthrough();

export const FieldListSchema = z.object({
  version: z.union([z.number(), z.string()]).optional(),
  title: z.string().optional(),
  description: z.string().optional(),
  fields: z.array(FieldInput).min(1).max(500),
}).passthrough();

export const ExtractRunBody = ModelControls.extend({
  file_id: Uuid,
  schema_id: Uuid.optional(),
  schema: FieldListSchema.optional().describe('inline field list (instead of schema_id)'),
  segment_ids: z.array(z.string().min(1)).max(10000).optional(),
});
export type ExtractRunBody = z.infer<typeof ExtractRunBody>;
