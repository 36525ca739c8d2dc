// Classify and edit: synchronous workflows (the model runs inside the request), 1 credit per
// idempotency key. Rules in docs/api.md (Idempotency, Credits).
import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common';
import { ModelControls } from './workflows';

export const SyncCredit = z.object({
  debited: z.boolean().describe('true only for the request that wrote the debit'),
  credits: z.number().int().describe('what one run costs; charged once per idempotency key'),
  idempotency_key: z.string(),
  replayed: z.boolean().describe('the stored output of a completed run, no model call'),
});
export type SyncCredit = z.infer<typeof SyncCredit>;

export const ClassifySuggestBody = ModelControls.extend({ file_id: Uuid, guidelines: z.string().max(4000).optional() });
export type ClassifySuggestBody = z.infer<typeof ClassifySuggestBody>;

export const ClassifyRunBody = ModelControls.extend({
  file_id: Uuid,
  classes: z
    .array(z.string().trim().min(1).max(200))
    .max(200)
    .optional()
    .describe('at least one; without classes 400 classes_required'),
  multi_label: z.boolean().optional().describe('default false'),
});
export type ClassifyRunBody = z.infer<typeof ClassifyRunBody>;

export const EditRunBody = ModelControls.extend({
  file_id: Uuid,
  prompt: z.string().trim().min(1).max(20000),
  rules: z.array(z.string().max(2000)).max(100).optional(),
});
export type EditRunBody = z.infer<typeof EditRunBody>;

export const ClassDefinition = z.object({ name: z.string(), description: z.string() });

export const ClassifySuggestResponse = z.object({
  operation_id: Uuid,
  classes: z.array(ClassDefinition),
  modelId: z.string(),
  credit: SyncCredit,
});

export const ClassifyRunResponse = z.object({
  operation_id: Uuid,
  document: z.object({
    class: z.string(),
    confidence: z.number(),
    rationale: z.string(),
    labels: z
      .array(z.object({ class: z.string(), confidence: z.number() }))
      .optional()
      .describe('with multi_label'),
  }),
  pages: z.array(z.object({ page_number: z.number().int(), class: z.string(), confidence: z.number() })),
  modelId: z.string(),
  credit: SyncCredit,
});
export type ClassifyRunResponse = z.infer<typeof ClassifyRunResponse>;

export const EditRunResponse = z.object({
  operation_id: Uuid,
  proposal_id: Uuid,
  proposal: JsonObject,
  modelId: z.string(),
  credit: SyncCredit,
});

export const EditProposal = z.object({
  id: Uuid,
  file_id: Uuid,
  operation_id: Uuid,
  status: z.string().describe('proposed; nothing in docfleet applies a proposal'),
  prompt: z.string(),
  rules: z.array(z.string()),
  proposal: JsonObject.describe("the model's own JSON"),
  diff: z.string().nullable().describe('the proposal’s patch, stored alongside'),
  model_id: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type EditProposal = z.infer<typeof EditProposal>;
export const EditProposalEnvelope = z.object({ proposal: EditProposal });
