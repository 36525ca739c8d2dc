import type { Prisma } from '@docfleet/db';
import type { ReasoningLevel } from '@docfleet/models';
import { classifyDocument, loadLeadingPages, suggestClasses } from '@docfleet/workflows';
import type { RunContext } from './types';

interface ClassifyRequest {
  file_version_id: string;
  classes?: string[];
  multi_label?: boolean;
  guidelines?: string;
  reasoning_level: ReasoningLevel;
}

/**
 * The pages the prompt shows (issue 17.5): the first pagesWithinBudget() pages, streamed from the
 * parse, never the whole of a 10,000-page one. A document of that many pages or fewer is read whole.
 */
const load = (ctx: RunContext, r: ClassifyRequest) =>
  loadLeadingPages(ctx.deps.db, ctx.deps.storage, { orgId: ctx.op.org_id, fileVersionId: r.file_version_id });

/** classify_run (synchronous; the gateway holds the request until this ends): stored as a ClassificationResult. */
export async function classifyRunRunner(ctx: RunContext) {
  const r = ctx.request as unknown as ClassifyRequest;
  const { evidence, pageCount } = await load(ctx, r);
  const result = await classifyDocument({
    evidence,
    pageCount,
    classes: r.classes ?? [],
    multiLabel: r.multi_label === true,
    model: ctx.model(),
    reasoningLevel: r.reasoning_level,
    signal: ctx.signal,
  });
  const output = { operation_id: ctx.op.id, document: result.document, pages: result.pages, modelId: result.modelId };
  await ctx.deps.db.classificationResult.create({
    data: {
      org_id: ctx.op.org_id,
      file_id: ctx.op.file_id!,
      operation_id: ctx.op.id,
      kind: 'run',
      classes: r.classes ?? [],
      result: output as unknown as Prisma.InputJsonValue,
      model_id: result.modelId,
    },
  });
  return output;
}

/** classify_suggest (synchronous): suggested classes, stored as a ClassificationResult of kind suggest. */
export async function classifySuggestRunner(ctx: RunContext) {
  const r = ctx.request as unknown as ClassifyRequest;
  const { evidence, pageCount } = await load(ctx, r);
  const result = await suggestClasses({
    evidence,
    pageCount,
    ...(r.guidelines ? { guidelines: r.guidelines } : {}),
    model: ctx.model(),
    reasoningLevel: r.reasoning_level,
    signal: ctx.signal,
  });
  const output = { operation_id: ctx.op.id, classes: result.classes, modelId: result.modelId };
  await ctx.deps.db.classificationResult.create({
    data: {
      org_id: ctx.op.org_id,
      file_id: ctx.op.file_id!,
      operation_id: ctx.op.id,
      kind: 'suggest',
      classes: result.classes,
      result: output as unknown as Prisma.InputJsonValue,
      model_id: result.modelId,
    },
  });
  return output;
}
