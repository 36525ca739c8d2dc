// classify_run and classify_suggest (synchronous workflows run on the workflow worker): one model
// call each over the file's pages. Class names coming back from a remote model are matched to the
// caller's classes case-insensitively; an answer naming a class that was not offered is an
// invalid model output rather than a silent new class.
import type { api } from '@docfleet/contracts';
import {
  buildClassifyRequest,
  buildClassifySuggestRequest,
  ModelError,
  type ClassifyOutput,
  type ClassifySuggestOutput,
  type Evidence,
  type ReasoningLevel,
  type ResolvedModel,
} from '@docfleet/models';

interface Common {
  evidence: Evidence;
  model: ResolvedModel;
  reasoningLevel?: ReasoningLevel;
  signal?: AbortSignal;
  pageCount: number;
}

const round = (x: unknown) =>
  typeof x === 'number' && Number.isFinite(x) ? Math.round(Math.max(0, Math.min(1, x)) * 1000) / 1000 : 0;

/** The classify_run answer without what the gateway adds (operation_id, credit). */
export type ClassifyResult = Pick<api.ClassifyRunResponse, 'document' | 'pages' | 'modelId'>;

export async function classifyDocument(
  c: Common & { classes: string[]; multiLabel?: boolean },
): Promise<ClassifyResult> {
  const { output, modelId } = await c.model.generateJson<ClassifyOutput>(
    buildClassifyRequest({
      evidence: c.evidence,
      classes: c.classes,
      multiLabel: c.multiLabel === true,
      reasoningLevel: c.reasoningLevel ?? 'medium',
      ...(c.signal ? { signal: c.signal } : {}),
    }),
  );
  const byFold = new Map(c.classes.map((k) => [k.trim().toLowerCase(), k]));
  const known = (name: unknown) => (typeof name === 'string' ? byFold.get(name.trim().toLowerCase()) : undefined);
  const docClass = known(output.document?.class);
  if (!docClass) {
    throw new ModelError(
      'invalid_model_output',
      `The model answered with document class ${JSON.stringify(output.document?.class)}, which is not one of the given classes.`,
      { modelId, retryable: false },
    );
  }
  const pages = new Map<number, { page_number: number; class: string; confidence: number }>();
  for (const p of output.pages ?? []) {
    const k = known(p?.class);
    if (
      k &&
      Number.isInteger(p.page_number) &&
      p.page_number >= 1 &&
      p.page_number <= Math.max(1, c.pageCount) &&
      !pages.has(p.page_number)
    ) {
      pages.set(p.page_number, { page_number: p.page_number, class: k, confidence: round(p.confidence) });
    }
  }
  const labels = c.multiLabel
    ? (output.document.labels ?? []).flatMap((l) => {
        const k = known(l?.class);
        return k ? [{ class: k, confidence: round(l.confidence) }] : [];
      })
    : undefined;
  return {
    document: {
      class: docClass,
      confidence: round(output.document.confidence),
      rationale: String(output.document.rationale ?? ''),
      ...(labels ? { labels } : {}),
    },
    pages: [...pages.values()].sort((a, b) => a.page_number - b.page_number),
    modelId,
  };
}

export async function suggestClasses(c: Common & { guidelines?: string }) {
  const { output, modelId } = await c.model.generateJson<ClassifySuggestOutput>(
    buildClassifySuggestRequest({
      evidence: c.evidence,
      ...(c.guidelines ? { guidelines: c.guidelines } : {}),
      reasoningLevel: c.reasoningLevel ?? 'medium',
      ...(c.signal ? { signal: c.signal } : {}),
    }),
  );
  const seen = new Set<string>();
  const classes = (output.classes ?? [])
    .filter((k) => k && typeof k.name === 'string' && k.name.trim())
    .map((k) => ({ name: k.name.trim(), description: String(k.description ?? '').trim() }))
    .filter((k) => (seen.has(k.name.toLowerCase()) ? false : (seen.add(k.name.toLowerCase()), true)));
  if (!classes.length)
    throw new ModelError('invalid_model_output', 'The model suggested no classes.', { modelId, retryable: false });
  return { classes, modelId };
}
