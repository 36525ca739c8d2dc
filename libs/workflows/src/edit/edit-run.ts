// edit_run (synchronous, on the workflow worker): the model proposes changes to the parsed text;
// nothing here writes to the file, its versions or its artifacts. The proposal is the model's own
// JSON; its patch is kept beside it as the proposal's diff.
import {
  buildEditRequest,
  type EditOutput,
  type Evidence,
  type ReasoningLevel,
  type ResolvedModel,
} from '@docfleet/models';

export async function proposeEdit(c: {
  evidence: Evidence;
  model: ResolvedModel;
  prompt: string;
  rules: string[];
  reasoningLevel?: ReasoningLevel;
  signal?: AbortSignal;
}) {
  const { output, modelId } = await c.model.generateJson<EditOutput>(
    buildEditRequest({
      evidence: c.evidence,
      instruction: c.prompt,
      rules: c.rules,
      reasoningLevel: c.reasoningLevel ?? 'medium',
      ...(c.signal ? { signal: c.signal } : {}),
    }),
  );
  const diff = typeof output.patch === 'string' && output.patch.trim() ? output.patch : null;
  return { proposal: output as unknown as Record<string, unknown>, diff, modelId };
}
