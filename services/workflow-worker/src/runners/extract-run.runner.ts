import type { api } from '@docfleet/contracts';
import { ApiError } from '@docfleet/errors';
import type { ReasoningLevel } from '@docfleet/models';
import { loadSelectedSegments, runExtract } from '@docfleet/workflows';
import type { RunContext } from './types';

/**
 * extract_run: the file version the gateway validated, the resolved field list, one model call.
 * segments.json is streamed keeping only the selected segments; grounding.json is not loaded (the
 * prompt is segments only; its pages are counted as they stream by).
 */
export async function extractRunRunner(ctx: RunContext) {
  const r = ctx.request as {
    file_version_id: string;
    schema: api.FieldListSchema;
    segment_ids?: string[];
    reasoning_level: ReasoningLevel;
  };
  await ctx.progress(0, 1, 'extract');
  const wanted = r.segment_ids?.length ? r.segment_ids : undefined;
  const all = await loadSelectedSegments(ctx.deps.db, ctx.deps.storage, {
    orgId: ctx.op.org_id,
    fileVersionId: r.file_version_id,
    ...(wanted ? { segmentIds: wanted } : {}),
  });
  const selected = all.segments;
  if (!selected.length) {
    // Name what the caller sent: segment ids that are not in the parse, or no ids and a parse with no text.
    throw new ApiError(
      'file_must_be_parsed',
      wanted
        ? 'None of the given segment_ids belong to the newest parse of this file.'
        : "The newest parse of this file holds no text to extract from (no segments; an image with no readable text?). Parse it again or check the parse job's warnings.",
    );
  }
  const output = await runExtract({
    operationId: ctx.op.id,
    schema: r.schema,
    allSegments: all.total,
    segments: selected,
    pageCount: all.pageCount,
    reasoningLevel: r.reasoning_level,
    model: ctx.model(),
    signal: ctx.signal,
    checkpoint: ctx.checkpoint,
  });
  await ctx.progress(1, 1, 'extract');
  return output;
}
