import type { Prisma } from '@docfleet/db';
import type { ReasoningLevel } from '@docfleet/models';
import { loadSegmentsWithin, proposeEdit } from '@docfleet/workflows';
import type { RunContext } from './types';

interface EditRequest {
  file_version_id: string;
  prompt: string;
  rules?: string[];
  reasoning_level: ReasoningLevel;
}

/**
 * edit_run (synchronous): reads the newest parse and stores a proposal with status `proposed`.
 * Nothing about the file, its versions or its artifacts is written.
 */
export async function editRunRunner(ctx: RunContext) {
  const r = ctx.request as unknown as EditRequest;
  // The segments the prompt shows (renderSegments' budget), streamed: a proposal can only touch
  // segments the model saw, and a 10,000-page parse is never held whole (issue 17.5).
  const { evidence } = await loadSegmentsWithin(ctx.deps.db, ctx.deps.storage, {
    orgId: ctx.op.org_id,
    fileVersionId: r.file_version_id,
    withGrounding: true,
  });
  const { proposal, diff, modelId } = await proposeEdit({
    evidence,
    prompt: r.prompt,
    rules: r.rules ?? [],
    model: ctx.model(),
    reasoningLevel: r.reasoning_level,
    signal: ctx.signal,
  });
  const row = await ctx.deps.db.editProposal.create({
    data: {
      org_id: ctx.op.org_id,
      file_id: ctx.op.file_id!,
      operation_id: ctx.op.id,
      status: 'proposed',
      prompt: r.prompt,
      rules: r.rules ?? [],
      proposal: proposal as Prisma.InputJsonValue,
      diff,
      model_id: modelId,
    },
  });
  return { operation_id: ctx.op.id, proposal_id: row.id, proposal, modelId };
}
