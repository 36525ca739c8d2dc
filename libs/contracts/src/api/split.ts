// Split: rules suggestion and split runs (queued operations, 1 credit each) and the free download
// of a page range as PDF.
import { z } from 'zod';
import { JsonObject, Uuid } from './common';
import { ModelControls } from './workflows';

export const SplitRule = z.object({ name: z.string().trim().min(1).max(200), description: z.string().max(2000) });
export type SplitRule = z.infer<typeof SplitRule>;

export const SplitRulesSuggestBody = ModelControls.extend({ file_id: Uuid });
export type SplitRulesSuggestBody = z.infer<typeof SplitRulesSuggestBody>;

export const SplitRunBody = ModelControls.extend({
  file_id: Uuid,
  rules: z.array(SplitRule).max(100).optional().describe('boundary rules written for the model; default none'),
});
export type SplitRunBody = z.infer<typeof SplitRunBody>;

export const SplitDownloadBody = z.object({
  file_id: Uuid,
  startPage: z.number().int().describe('first page, 1-based'),
  endPage: z.number().int().describe('last page, inclusive'),
  title: z.string().max(500).default('').describe('names the downloaded file (Content-Disposition)'),
});
export type SplitDownloadBody = z.infer<typeof SplitDownloadBody>;

export const SplitRulesOutput = z.object({ rules: z.array(SplitRule), modelId: z.string() });
export type SplitRulesOutput = z.infer<typeof SplitRulesOutput>;

export const SplitWarning = z
  .object({
    code: z.string(),
    message: z.string(),
    window: z.number().int().optional().describe('the window (0-based) whose answer it concerns'),
    pages: z.array(z.number().int()).optional(),
  })
  .passthrough();
export type SplitWarning = z.infer<typeof SplitWarning>;

/** A record the model returned that the repair dropped. */
export const InvalidRecord = z.object({
  window: z.number().int().describe('0-based'),
  record: z.unknown(),
  reason: z.string(),
});
export type InvalidRecord = z.infer<typeof InvalidRecord>;

export const SplitRecord = z.object({
  id: z.string(),
  title: z.string(),
  documentType: z.string(),
  startPage: z.number().int(),
  endPage: z.number().int(),
  segmentIds: z.array(z.string()),
  metadata: JsonObject,
  confidence: z.number(),
  boundaryReason: z.string(),
  warnings: z.array(SplitWarning),
});
export type SplitRecord = z.infer<typeof SplitRecord>;

export const SplitQuality = z.object({
  coverage: z.number().describe('share of pages in some record, 0-1'),
  recordCount: z.number().int(),
  pageCount: z.number().int(),
  gapPages: z.array(z.number().int()),
  overlapPages: z.array(z.number().int()),
  duplicateRecordIds: z.array(z.string()),
  invalidRecords: z.array(InvalidRecord),
  status: z.enum(['pass', 'review', 'fail']).describe('review means a human should look'),
});
export type SplitQuality = z.infer<typeof SplitQuality>;

export const SplitSession = z.object({
  sessionId: Uuid,
  sourceDocId: Uuid,
  sourceDocName: z.string(),
  sourcePageCount: z.number().int(),
  records: z.array(SplitRecord),
  rules: z.array(SplitRule),
  quality: SplitQuality,
  warnings: z.array(SplitWarning),
  createdAt: z.string(),
  updatedAt: z.string(),
  operation_id: Uuid,
  modelId: z.string(),
});
export type SplitSession = z.infer<typeof SplitSession>;
