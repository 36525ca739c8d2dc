// Evaluation metrics for the model layer, shared by eval/eval-local.ts, the regression tests and
// (later) workflow-level benchmarks: field-level precision/recall/F1, citation verifiability,
// split boundary scores and classification accuracy.
import type { Segment } from '@docfleet/contracts';
import type { Citation } from '../tasks/outputs';
import { currencyIndex, findAmounts } from '../local/text/amounts';
import { findDates } from '../local/text/dates';
import { findDurations } from '../local/text/entities';
import { normalizeValue, type CompareKind } from './normalize-values';

export interface Counts {
  tp: number;
  fp: number;
  fn: number;
}
export interface Prf extends Counts {
  precision: number;
  recall: number;
  f1: number;
}

export function prf(c: Counts): Prf {
  const precision = c.tp + c.fp ? c.tp / (c.tp + c.fp) : 1;
  const recall = c.tp + c.fn ? c.tp / (c.tp + c.fn) : 1;
  const f1 = precision + recall ? (2 * precision * recall) / (precision + recall) : 0;
  return { ...c, precision, recall, f1 };
}

export function addCounts(...cs: Counts[]): Counts {
  return cs.reduce((a, c) => ({ tp: a.tp + c.tp, fp: a.fp + c.fp, fn: a.fn + c.fn }), { tp: 0, fp: 0, fn: 0 });
}

/** Compares one field: expected and predicted may be scalars or lists (e.g. parties); null = absent. */
export function compareField(kind: CompareKind, expected: unknown, predicted: unknown): Counts {
  const norm = (v: unknown) =>
    new Set((Array.isArray(v) ? v : [v]).map((x) => normalizeValue(kind, x)).filter((x): x is string => !!x));
  const e = norm(expected);
  const p = norm(predicted);
  let tp = 0;
  p.forEach((x) => {
    if (e.has(x)) tp++;
  });
  return { tp, fp: p.size - tp, fn: e.size - tp };
}

/**
 * A citation is verifiable when its quote is verbatim text of the cited segment and contains the
 * value: literally (case- and space-insensitive), or as the same date, amount, currency or
 * duration written another way ("August 3 , 2014" for 2014-08-03, "$4.11" for 4.11, "fM1.00" for 1.00: a currency
 * misread by OCR, as the receipt total finder reads it).
 */
export function citationVerifiable(value: unknown, c: Citation, segments: Segment[]): boolean {
  const seg = segments.find((s) => s.id === c.segmentId);
  if (!seg || !c.quote || !seg.markdown.includes(c.quote)) return false;
  const q = c.quote;
  const flat = (s: string) => s.toLowerCase().replace(/\s+/g, ' ');
  if (typeof value === 'string' && flat(q).includes(flat(value))) return true;
  if (typeof value === 'number')
    return findAmounts(q, { requireMoneyShape: false, glued: true }).some((a) => Math.abs(a.value - value) < 0.005);
  if (typeof value === 'boolean') return true;
  if (typeof value === 'string') {
    // Either reading of an ambiguous numeric date: the document decides its order, not the quote.
    if (
      /^\d{4}-\d{2}-\d{2}$/.test(value) &&
      [...findDates(q, 'dmy'), ...findDates(q, 'mdy')].some((d) => d.iso === value)
    )
      return true;
    if (/^[A-Z]{3}$/.test(value) && currencyIndex(q, value) >= 0) return true;
    if (findDurations(value).length && findDurations(q).some((d) => d.value === findDurations(value)[0]!.value))
      return true;
  }
  return false;
}

/** Walks jsonResult by a citation path ("/lines/0/name"). */
export function valueAt(json: unknown, path: string): unknown {
  return path
    .split('/')
    .filter(Boolean)
    .reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), json);
}

export interface SplitRange {
  startPage: number;
  endPage: number;
}

/** Boundary P/R/F1 over start pages after the first, plus exact-record accuracy. */
export function splitScores(
  expected: SplitRange[],
  predicted: SplitRange[],
): Prf & { exactRecords: number; exactRecordAccuracy: number } {
  const starts = (rs: SplitRange[]) =>
    new Set(rs.map((r) => r.startPage).filter((p) => p > Math.min(...rs.map((x) => x.startPage))));
  const e = starts(expected);
  const p = starts(predicted);
  let tp = 0;
  p.forEach((x) => {
    if (e.has(x)) tp++;
  });
  const exact = expected.filter((r) =>
    predicted.some((q) => q.startPage === r.startPage && q.endPage === r.endPage),
  ).length;
  return {
    ...prf({ tp, fp: p.size - tp, fn: e.size - tp }),
    exactRecords: exact,
    exactRecordAccuracy: expected.length ? exact / expected.length : 1,
  };
}

export function accuracy(pairs: Array<{ expected: string; predicted: string }>): number {
  return pairs.length ? pairs.filter((p) => p.expected === p.predicted).length / pairs.length : 0;
}
