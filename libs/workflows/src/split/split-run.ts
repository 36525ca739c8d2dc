// split_run and split_rules_suggest, as the workflow worker runs them and the eval measures them:
// model calls per window (progress phase `windows`), then the repair pass (phase `repair`), with
// cancel checkpoints between windows and inside the repair. The session is the API's "Split
// session"; ids and timestamps come from the caller so the worker can store the row under them.
import {
  buildSplitRequest,
  buildSplitRulesRequest,
  isModelError,
  segmentPage,
  type Evidence,
  type ReasoningLevel,
  type ResolvedModel,
  type SplitOutput,
  type SplitRule,
  type SplitRulesOutput,
} from '@docfleet/models';
import type { api } from '@docfleet/contracts';
import { isApiError } from '@docfleet/errors';
import { measureQuality, repairWindows, type WindowAnswer } from './repair';
import type { PageWindowReader } from '../page-windows';
import { planWindows, windowEvidence, DEFAULT_WINDOW_OVERLAP, DEFAULT_WINDOW_PAGES, type SplitWindow } from './windows';

/** Every window's model call failed: the operation's error begins with this code (docs/api.md, "Split"). */
export class SplitModelUnavailable extends Error {
  readonly code = 'split_model_unavailable';
  constructor(firstReason: string) {
    super(`split_model_unavailable: ${firstReason}`);
    this.name = 'SplitModelUnavailable';
  }
}

export interface SplitRunInput {
  /** The whole document's evidence (the eval and small callers), or `windows` below. */
  evidence?: Evidence;
  /**
   * Reads one window's evidence at a time, in ascending ranges (openPageWindows), so a run holds a
   * window of the document, not all of it. `segmentIdsIn` lists a record's segments afterwards.
   */
  windows?: Pick<PageWindowReader, 'read' | 'segmentIdsIn'>;
  pageCount: number;
  rules: SplitRule[];
  model: ResolvedModel;
  reasoningLevel?: ReasoningLevel;
  windowPages?: number;
  windowOverlap?: number;
  checkpoint?: () => Promise<void>;
  progress?: (done: number, total: number, phase: 'windows' | 'repair') => Promise<void>;
  signal?: AbortSignal;
}

const reasonOf = (err: unknown) =>
  isModelError(err) || isApiError(err) ? `${err.code}: ${err.message}` : ((err as Error)?.message ?? String(err));
const noop = async () => undefined;

function evidenceOfWindow(c: SplitRunInput, w: SplitWindow): Promise<Evidence> | Evidence {
  if (c.windows) return c.windows.read(w.first, w.last);
  if (!c.evidence) throw new Error('splitPages needs evidence or a window reader');
  return windowEvidence(c.evidence, w);
}

/** Windows then repair; returns the records (without ids) and what the repair found. */
export async function splitPages(c: SplitRunInput) {
  const checkpoint = c.checkpoint ?? noop;
  const progress = c.progress ?? noop;
  const windows = planWindows(
    c.pageCount,
    c.windowPages ?? DEFAULT_WINDOW_PAGES,
    c.windowOverlap ?? DEFAULT_WINDOW_OVERLAP,
  );
  const answers: WindowAnswer[] = [];
  let modelCalls = 0;
  await progress(0, windows.length, 'windows');
  for (const w of windows) {
    await checkpoint();
    try {
      modelCalls++;
      const { output } = await c.model.generateJson<SplitOutput>(
        buildSplitRequest({
          evidence: await evidenceOfWindow(c, w),
          rules: c.rules,
          reasoningLevel: c.reasoningLevel ?? 'medium',
          ...(c.signal ? { signal: c.signal } : {}),
        }),
      );
      answers.push({ window: w, ok: true, records: output.records ?? [], warnings: output.warnings ?? [] });
    } catch (err) {
      if (c.signal?.aborted) throw err;
      answers.push({ window: w, ok: false, error: reasonOf(err) });
    }
    await progress(answers.length, windows.length, 'windows');
  }
  const firstFailure = answers.find((a): a is Extract<WindowAnswer, { ok: false }> => !a.ok);
  if (windows.length && !answers.some((a) => a.ok)) throw new SplitModelUnavailable(firstFailure!.error);
  const repair = await repairWindows(answers, c.pageCount, checkpoint, (done, total) =>
    progress(done, total, 'repair'),
  );
  return { ...repair, windows: windows.length, modelCalls };
}

/** The whole split session from the repaired records. */
export async function runSplit(
  c: SplitRunInput & { sessionId: string; operationId: string; sourceDocId: string; sourceDocName: string; now?: Date },
): Promise<api.SplitSession> {
  const r = await splitPages(c);
  const records: api.SplitRecord[] = r.records.map((x, i) => ({
    id: `record-${i + 1}`,
    title: x.title,
    documentType: x.documentType,
    startPage: x.startPage,
    endPage: x.endPage,
    segmentIds: c.windows
      ? c.windows.segmentIdsIn(x.startPage, x.endPage)
      : (c.evidence?.segments ?? [])
          .filter((s) => {
            const p = segmentPage(s);
            return p >= x.startPage && p <= x.endPage;
          })
          .map((s) => s.id),
    metadata: { pageCount: x.endPage - x.startPage + 1, windows: x.windows.map((w) => w + 1) },
    confidence: Math.round(x.confidence * 100) / 100,
    boundaryReason: x.boundaryReason,
    warnings: x.warnings,
  }));
  const at = (c.now ?? new Date()).toISOString();
  return {
    sessionId: c.sessionId,
    sourceDocId: c.sourceDocId,
    sourceDocName: c.sourceDocName,
    sourcePageCount: c.pageCount,
    records,
    rules: c.rules,
    quality: measureQuality(records, c.pageCount, r),
    warnings: r.warnings,
    createdAt: at,
    updatedAt: at,
    operation_id: c.operationId,
    modelId: c.model.modelId,
  };
}

/** split_rules_suggest: one model call over the whole file's pages; output `{ rules, modelId }`. */
export async function suggestSplitRules(c: {
  evidence: Evidence;
  model: ResolvedModel;
  reasoningLevel?: ReasoningLevel;
  signal?: AbortSignal;
}) {
  const { output, modelId } = await c.model.generateJson<SplitRulesOutput>(
    buildSplitRulesRequest({
      evidence: c.evidence,
      reasoningLevel: c.reasoningLevel ?? 'medium',
      ...(c.signal ? { signal: c.signal } : {}),
    }),
  );
  const rules = (output.rules ?? [])
    .filter((x) => x && typeof x.name === 'string' && x.name.trim() && typeof x.description === 'string')
    .map((x) => ({ name: x.name.trim(), description: x.description.trim() }));
  return { rules, modelId };
}
