// The operation path of extraction (docs/api.md, "Extraction results": operation path): one model call
// over the selected segments, the output passed through as the model returned it, plus the
// result tree and metrics. Cancel is checked exactly once, immediately before the model call.
import {
  buildExtractRequest,
  DEFAULT_CONTEXT_CHARS,
  normalizeFieldSchema,
  renderSegments,
  type ExtractOutput,
  type FieldListSchema,
  type ReasoningLevel,
  type ResolvedModel,
} from '@docfleet/models';
import type { api, GroundingDocument, Segment } from '@docfleet/contracts';
import { buildEvidence } from '@docfleet/models';
import { buildResultTree } from './result-tree';

export interface ExtractRunInput {
  operationId: string;
  /** The field list as the caller gave it (or as saved). */
  schema: api.FieldListSchema;
  /** All segments of the parse, and the selection (equal when no segment_ids were given). */
  allSegments: number;
  segments: Segment[];
  grounding?: GroundingDocument;
  pageCount: number;
  reasoningLevel: ReasoningLevel;
  model: ResolvedModel;
  signal?: AbortSignal;
  /** Called right before the model call; throws to cancel. */
  checkpoint: () => Promise<void>;
}

export async function runExtract(input: ExtractRunInput): Promise<api.ExtractRunOutput> {
  const normalizedSchema: FieldListSchema = normalizeFieldSchema(input.schema);
  const evidence = buildEvidence(input.segments, input.grounding);
  const req = buildExtractRequest({
    evidence,
    schema: normalizedSchema,
    reasoningLevel: input.reasoningLevel,
    ...(input.signal ? { signal: input.signal } : {}),
  });
  await input.checkpoint();
  const res = await input.model.generateJson<ExtractOutput>(req);
  const jsonResult = res.output.jsonResult ?? {};
  const citations = res.output.citations ?? [];
  return {
    operation_id: input.operationId,
    schema: input.schema,
    normalizedSchema,
    jsonResult,
    resultTree: buildResultTree(normalizedSchema.fields, jsonResult, citations, {
      confidence: 'first',
      markMissing: false,
    }),
    citations,
    modelId: res.modelId,
    warnings: res.output.warnings ?? [],
    metrics: {
      segmentCount: input.allSegments,
      selectedSegmentCount: input.segments.length,
      pageCount: input.pageCount,
      contextChars: renderSegments(evidence, DEFAULT_CONTEXT_CHARS).used,
      modelCalls: 1,
      durationMs: 0,
      timedOut: false,
    },
  };
}
