// Reading order by recursive XY-cut. Column cuts are tried first so a two-column page is read
// column by column; a full-width title or table above the columns blocks the column cut at the
// top level, which makes the first cut horizontal and keeps the title first.
import type { Box } from '../geometry';

export interface Orderable extends Box {
  /** Number of text lines; single-line items on both sides of a cut suggest a form, not columns. */
  lineCount: number;
  /** Text written right to left (bidi.ts): columns of a right-to-left page are read from the right. */
  rtl?: boolean;
}

export function readingOrder<T extends Orderable>(items: T[]): T[] {
  return cut(items, 0);
}

/** Columns in reading order: left to right, or right to left where right-to-left text carries most lines. */
function columnOrder<T extends Orderable>(cols: T[][]): T[][] {
  let rtl = 0,
    all = 0;
  for (const c of cols)
    for (const i of c) {
      all += i.lineCount;
      if (i.rtl) rtl += i.lineCount;
    }
  return rtl > all / 2 ? [...cols].reverse() : cols;
}

function cut<T extends Orderable>(items: T[], depth: number): T[] {
  if (items.length <= 1 || depth > 50) return items;
  const cols = columnOrder(splitByGaps(items, 'x', 4));
  const colsLookLikeColumns =
    cols.length > 1 &&
    cols.every((c) => c.some((i) => i.lineCount >= 2) || heightOf(c) > 0.5 * heightOf(items) || c.every(standing)) &&
    !labelValueRows(items);
  if (colsLookLikeColumns) return cols.flatMap((c) => cut(c, depth + 1));
  const rows = splitByGaps(items, 'y', 0.5);
  if (rows.length > 1) return columnBands(rows).flatMap((r) => cut(r, depth + 1));
  if (cols.length > 1) return cols.flatMap((c) => cut(c, depth + 1));
  return [...items].sort((a, b) => a.y0 - b.y0 || (a.rtl && b.rtl ? b.x1 - a.x1 : a.x0 - b.x0));
}

/**
 * Horizontal cuts also fall where only one column has a gap (the right column ends above a figure
 * caption in the left one); cutting there would read the rest of the left column after the right.
 * Consecutive rows are read as one band while together they still split into columns that each
 * hold multi-line text, so a band of two columns is read column by column; a row crossing the
 * gutter (a full-width figure or paragraph) closes the band. Rows of single-line items (forms,
 * label/value lists) never qualify, so they stay read across.
 */
function columnBands<T extends Orderable>(rows: T[][]): T[][] {
  const bands: T[][] = [];
  for (const row of rows) {
    const last = bands[bands.length - 1];
    if (last && isColumnBand([...last, ...row])) last.push(...row);
    else bands.push([...row]);
  }
  return bands;
}

function isColumnBand<T extends Orderable>(items: T[]): boolean {
  const cols = splitByGaps(items, 'x', 4);
  return cols.length > 1 && cols.every((c) => c.some((i) => i.lineCount >= 2) || c.every(standing));
}

/**
 * A single line standing on its side (an arXiv stamp or a running title turned 90° in the margin):
 * a column of its own beside the text columns, which neither makes nor breaks them.
 */
const standing = (i: Orderable) => i.lineCount <= 1 && i.y1 - i.y0 > 4 * (i.x1 - i.x0);

/**
 * Single lines side by side on shared baselines, row after row ("Name:  value", a symbol and its
 * meaning): a form or a label/value list, read across each row rather than down each column.
 */
function labelValueRows<T extends Orderable>(items: T[]): boolean {
  if (items.some((i) => i.lineCount > 1)) return false;
  const rows = splitByGaps(items, 'y', 0.5);
  if (rows.length < 2) return false;
  return rows.filter((r) => r.length > 1).length >= 0.6 * rows.length;
}

function heightOf(items: Box[]): number {
  let y0 = Infinity,
    y1 = -Infinity;
  for (const i of items) {
    y0 = Math.min(y0, i.y0);
    y1 = Math.max(y1, i.y1);
  }
  return y1 - y0;
}

function splitByGaps<T extends Box>(items: T[], axis: 'x' | 'y', minGap: number): T[][] {
  const lo = axis === 'x' ? 'x0' : 'y0';
  const hi = axis === 'x' ? 'x1' : 'y1';
  const sorted = [...items].sort((a, b) => a[lo] - b[lo]);
  const groups: T[][] = [];
  let current: T[] = [];
  let reach = -Infinity;
  for (const it of sorted) {
    if (current.length && it[lo] > reach + minGap) {
      groups.push(current);
      current = [];
    }
    current.push(it);
    reach = Math.max(reach, it[hi]);
  }
  if (current.length) groups.push(current);
  return groups;
}
