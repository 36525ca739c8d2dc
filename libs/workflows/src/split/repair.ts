// The repair pass of a split run: turns the windows' answers into one list of records that covers
// every page exactly once, and measures the result (the session's `quality`).
//
// 1. Per window: records that are not integers, run backwards or lie outside the window are
//    invalid (kept in quality.invalidRecords); the rest are clamped to the window, overlaps are
//    cut at the later record's start, and pages no record claims join the record before them.
// 2. Across windows: each page is decided by the window where it sits furthest from an edge, so a
//    window's first page never counts as a boundary when an earlier window saw it with its
//    predecessor; records that cross a window edge come out whole.
// 3. Pages no window answered for (the model call failed) become their own records, flagged.
import type { api } from '@docfleet/contracts';
import type { ModelWarning, SplitRecordOutput } from '@docfleet/models';
import { edgeDistance, type SplitWindow } from './windows';

export type WindowAnswer =
  | { window: SplitWindow; ok: true; records: SplitRecordOutput[]; warnings: ModelWarning[] }
  | { window: SplitWindow; ok: false; error: string };

export interface RepairedRecord {
  title: string;
  documentType: string;
  startPage: number;
  endPage: number;
  confidence: number;
  boundaryReason: string;
  windows: number[];
  warnings: api.SplitWarning[];
}

export interface RepairResult {
  records: RepairedRecord[];
  warnings: api.SplitWarning[];
  invalidRecords: api.InvalidRecord[];
  /** Pages the model left unclaimed or claimed twice, before repair (they make the status `review`). */
  repairedGapPages: number[];
  repairedOverlapPages: number[];
  failedWindows: number[];
}

interface PageCall {
  startsHere: boolean;
  record: SplitRecordOutput;
}

const isPage = (n: unknown): n is number => typeof n === 'number' && Number.isInteger(n) && n >= 1;
const str = (v: unknown, fallback: string) => (typeof v === 'string' && v.trim() ? v.trim() : fallback);
const clamp01 = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.max(0, Math.min(1, v)) : 0.5);

/** Step 1 for one window: page → (does a record start here, which record). */
function repairWindow(a: Extract<WindowAnswer, { ok: true }>, out: RepairResult): Map<number, PageCall> {
  const { window: w } = a;
  const valid: SplitRecordOutput[] = [];
  for (const r of a.records ?? []) {
    const rec = r as Partial<SplitRecordOutput>;
    if (!isPage(rec.startPage) || !isPage(rec.endPage)) {
      out.invalidRecords.push({
        window: w.index,
        record: r,
        reason: 'startPage and endPage must be page numbers (integers ≥ 1)',
      });
      continue;
    }
    if (rec.startPage > rec.endPage) {
      out.invalidRecords.push({
        window: w.index,
        record: r,
        reason: `startPage ${rec.startPage} is after endPage ${rec.endPage}`,
      });
      continue;
    }
    if (rec.endPage < w.first || rec.startPage > w.last) {
      out.invalidRecords.push({
        window: w.index,
        record: r,
        reason: `pages ${rec.startPage}-${rec.endPage} lie outside the window's pages ${w.first}-${w.last}`,
      });
      continue;
    }
    valid.push({
      title: str(rec.title, `Pages from ${Math.max(rec.startPage, w.first)}`),
      documentType: str(rec.documentType, 'document'),
      startPage: Math.max(rec.startPage, w.first),
      endPage: Math.min(rec.endPage, w.last),
      confidence: clamp01(rec.confidence),
      boundaryReason: str(rec.boundaryReason, ''),
    });
  }
  valid.sort((x, y) => x.startPage - y.startPage || y.endPage - x.endPage);
  const calls = new Map<number, PageCall>();
  const claims = new Map<number, number>();
  for (const r of valid) for (let p = r.startPage; p <= r.endPage; p++) claims.set(p, (claims.get(p) ?? 0) + 1);
  for (const [p, n] of claims) if (n > 1) out.repairedOverlapPages.push(p);
  // Overlaps: a later record takes its pages from the one before it.
  for (const r of valid) {
    for (let p = r.startPage; p <= r.endPage; p++) calls.set(p, { startsHere: p === r.startPage, record: r });
  }
  // Gaps: an unclaimed page continues the record before it (or, at the window start, the first one).
  let prev: PageCall | undefined;
  const firstClaimed = valid.length ? calls.get(Math.min(...calls.keys())) : undefined;
  for (let p = w.first; p <= w.last; p++) {
    const c = calls.get(p);
    if (c) {
      prev = c;
      continue;
    }
    if (!valid.length) continue; // an empty answer says nothing: pages continue the record before the window
    out.repairedGapPages.push(p);
    const owner = prev ?? firstClaimed!;
    calls.set(p, { startsHere: !prev && p === w.first, record: owner.record });
    if (!prev) calls.set(owner.record.startPage, { startsHere: false, record: owner.record });
    prev = calls.get(p);
  }
  return calls;
}

export async function repairWindows(
  answers: WindowAnswer[],
  pageCount: number,
  checkpoint: () => Promise<void>,
  progress?: (done: number, total: number) => Promise<void>,
): Promise<RepairResult> {
  const out: RepairResult = {
    records: [],
    warnings: [],
    invalidRecords: [],
    repairedGapPages: [],
    repairedOverlapPages: [],
    failedWindows: [],
  };
  const total = answers.length + 1;
  const perWindow = new Map<number, Map<number, PageCall>>();
  for (const [i, a] of answers.entries()) {
    await checkpoint();
    if (a.ok) perWindow.set(a.window.index, repairWindow(a, out));
    else out.failedWindows.push(a.window.index);
    await progress?.(i + 1, total);
  }
  await checkpoint();

  // Step 2: owner window of each page (furthest from an edge; ties go to the earlier window).
  const ok = answers.filter((a): a is Extract<WindowAnswer, { ok: true }> => a.ok);
  const owner = (p: number) => {
    let best: SplitWindow | undefined;
    for (const a of ok) {
      if (p < a.window.first || p > a.window.last) continue;
      if (!best || edgeDistance(a.window, p) > edgeDistance(best, p)) best = a.window;
    }
    return best;
  };
  const failedReason = (p: number) => {
    const a = answers.find((x) => !x.ok && p >= x.window.first && p <= x.window.last) as
      Extract<WindowAnswer, { ok: false }> | undefined;
    return a
      ? `window ${a.window.index + 1} (pages ${a.window.first}-${a.window.last}) failed: ${a.error}`
      : 'no window answered for this page';
  };

  // `kind` of the open record: from a model answer, a window that failed, or a window that answered with no records.
  let open: RepairedRecord | undefined;
  let kind = 'model' as 'model' | 'failed' | 'empty';
  const close = () => {
    if (open) out.records.push(open);
    open = undefined;
  };
  const begin = (r: RepairedRecord, k: typeof kind) => {
    close();
    open = r;
    kind = k;
  };
  for (let p = 1; p <= pageCount; p++) {
    const w = owner(p);
    if (!w) {
      if (open && kind === 'failed') {
        open.endPage = p;
        continue;
      }
      const reason = failedReason(p);
      begin(
        {
          title: `Pages from ${p}`,
          documentType: 'unknown',
          startPage: p,
          endPage: p,
          confidence: 0,
          boundaryReason: `no model answer: ${reason}`,
          windows: [],
          warnings: [{ code: 'window_failed', message: `No model answer for these pages: ${reason}` }],
        },
        'failed',
      );
      continue;
    }
    const call = perWindow.get(w.index)!.get(p);
    if (!call) {
      // The owner window answered with no records: its pages continue the record before them.
      if (open && kind !== 'failed') {
        open.endPage = p;
        if (!open.windows.includes(w.index)) open.windows.push(w.index);
        continue;
      }
      begin(
        {
          title: `Pages from ${p}`,
          documentType: 'document',
          startPage: p,
          endPage: p,
          confidence: 0.3,
          boundaryReason: 'the model returned no records for these pages',
          windows: [w.index],
          warnings: [{ code: 'no_records', message: 'The model returned no records for these pages.' }],
        },
        'empty',
      );
      continue;
    }
    if (!open || kind === 'failed' || p === 1 || (call.startsHere && p !== w.first)) {
      begin(
        {
          title: call.record.title,
          documentType: call.record.documentType,
          startPage: p,
          endPage: p,
          confidence: call.record.confidence,
          boundaryReason:
            call.record.boundaryReason || (p === 1 ? 'first page of the file' : 'boundary found by the model'),
          windows: [w.index],
          warnings: [],
        },
        'model',
      );
      continue;
    }
    open.endPage = p;
    if (!open.windows.includes(w.index)) {
      open.windows.push(w.index);
      // The record continues across a window edge: its weakest piece sets its confidence.
      open.confidence = Math.min(open.confidence, call.record.confidence);
    }
  }
  close();
  await progress?.(total, total);

  for (const i of out.failedWindows) {
    const a = answers[i] as Extract<WindowAnswer, { ok: false }>;
    out.warnings.push({
      code: 'window_failed',
      window: i,
      message: `Window ${i + 1} (pages ${a.window.first}-${a.window.last}) failed: ${a.error}`,
    });
  }
  if (out.repairedGapPages.length) {
    const pages = [...new Set(out.repairedGapPages)].sort((x, y) => x - y);
    out.repairedGapPages = pages;
    out.warnings.push({
      code: 'gaps_repaired',
      pages,
      message: `The model left pages ${pages.join(', ')} out of every record; each joined the record before it.`,
    });
  }
  if (out.repairedOverlapPages.length) {
    const pages = [...new Set(out.repairedOverlapPages)].sort((x, y) => x - y);
    out.repairedOverlapPages = pages;
    out.warnings.push({
      code: 'overlaps_repaired',
      pages,
      message: `The model put pages ${pages.join(', ')} in more than one record; each went to the later record.`,
    });
  }
  if (out.invalidRecords.length)
    out.warnings.push({
      code: 'invalid_records',
      message: `${out.invalidRecords.length} record(s) from the model were invalid and dropped (see quality.invalidRecords).`,
    });
  for (const a of ok)
    for (const m of a.warnings ?? [])
      out.warnings.push({ code: str(m.code, 'model_warning'), message: str(m.message, ''), window: a.window.index });
  return out;
}

/** Quality of the final records (it verifies what the repair promises rather than assuming it). */
export function measureQuality(
  records: Array<{ id: string; startPage: number; endPage: number; confidence: number }>,
  pageCount: number,
  repair: Pick<RepairResult, 'invalidRecords' | 'repairedGapPages' | 'repairedOverlapPages' | 'failedWindows'>,
): api.SplitQuality {
  const hits = new Map<number, number>();
  for (const r of records)
    for (let p = Math.max(1, r.startPage); p <= Math.min(pageCount, r.endPage); p++)
      hits.set(p, (hits.get(p) ?? 0) + 1);
  const gapPages: number[] = [];
  const overlapPages: number[] = [];
  for (let p = 1; p <= pageCount; p++) {
    const n = hits.get(p) ?? 0;
    if (!n) gapPages.push(p);
    if (n > 1) overlapPages.push(p);
  }
  const seen = new Set<string>();
  const duplicateRecordIds = [
    ...new Set(records.filter((r) => (seen.has(r.id) ? true : (seen.add(r.id), false))).map((r) => r.id)),
  ];
  const coverage = pageCount ? Math.round(((pageCount - gapPages.length) / pageCount) * 10_000) / 10_000 : 0;
  const broken = !records.length || gapPages.length > 0 || overlapPages.length > 0 || duplicateRecordIds.length > 0;
  const doubtful =
    repair.invalidRecords.length > 0 ||
    repair.repairedGapPages.length > 0 ||
    repair.repairedOverlapPages.length > 0 ||
    repair.failedWindows.length > 0 ||
    records.some((r) => r.confidence < 0.6);
  return {
    coverage,
    recordCount: records.length,
    pageCount,
    gapPages,
    overlapPages,
    duplicateRecordIds,
    invalidRecords: repair.invalidRecords,
    status: broken ? 'fail' : doubtful ? 'review' : 'pass',
  };
}
