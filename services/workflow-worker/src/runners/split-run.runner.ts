import { randomUUID } from 'node:crypto';
import type { api } from '@docfleet/contracts';
import type { Prisma } from '@docfleet/db';
import type { ReasoningLevel, SplitRule } from '@docfleet/models';
import { loadLeadingPages, openPageWindows, runSplit, suggestSplitRules } from '@docfleet/workflows';
import type { RunContext } from './types';

interface SplitRequest {
  file_version_id: string;
  file_name: string;
  rules?: SplitRule[];
  reasoning_level: ReasoningLevel;
}

/**
 * split_run: windows of pages through the model, then the repair pass; cancel is checked before
 * each window and between repair steps. Each window's pages are streamed from the stored bundle
 * when the window runs (openPageWindows), so a 10,000-page document is never held whole. The session is stored (one row per operation, replaced if
 * a crashed attempt is run again) and is the operation's output.
 */
export async function splitRunRunner(ctx: RunContext) {
  const r = ctx.request as unknown as SplitRequest;
  const windows = await openPageWindows(ctx.deps.db, ctx.deps.storage, {
    orgId: ctx.op.org_id,
    fileVersionId: r.file_version_id,
    withGrounding: true,
  });
  const existing = await ctx.deps.db.splitSession.findUnique({
    where: { operation_id: ctx.op.id },
    select: { id: true },
  });
  const session = await runSplit({
    windows,
    pageCount: windows.pageCount,
    rules: r.rules ?? [],
    model: ctx.model(),
    reasoningLevel: r.reasoning_level,
    checkpoint: ctx.checkpoint,
    progress: (done, total, phase) => ctx.progress(done, total, phase),
    signal: ctx.signal,
    sessionId: existing?.id ?? randomUUID(),
    operationId: ctx.op.id,
    sourceDocId: ctx.op.file_id!,
    sourceDocName: r.file_name,
  }).finally(() => windows.close());
  await ctx.checkpoint();
  const json = session as unknown as Prisma.InputJsonValue;
  await ctx.deps.db.splitSession.upsert({
    where: { operation_id: ctx.op.id },
    create: {
      id: session.sessionId,
      org_id: ctx.op.org_id,
      operation_id: ctx.op.id,
      file_id: ctx.op.file_id!,
      session: json,
    },
    update: { session: json },
  });
  return session;
}

/** split_rules_suggest: one model call over the file's pages; output `{ rules, modelId }`. */
export async function splitRulesSuggestRunner(ctx: RunContext): Promise<api.SplitRulesOutput> {
  const r = ctx.request as unknown as SplitRequest;
  await ctx.progress(0, 1, 'rules');
  // The first pages the prompt shows (pagesWithinBudget), streamed, not the whole parse (issue 17.5).
  const { evidence } = await loadLeadingPages(ctx.deps.db, ctx.deps.storage, {
    orgId: ctx.op.org_id,
    fileVersionId: r.file_version_id,
  });
  const out = await suggestSplitRules({
    evidence,
    model: ctx.model(),
    reasoningLevel: r.reasoning_level,
    signal: ctx.signal,
  });
  await ctx.progress(1, 1, 'rules');
  return out;
}
