// The last rows of a scanned table. A table's last row often stands apart: under the rule that
// closes the body (a "Total" row), or with its figures left unread by Tesseract, whose automatic
// segmentation drops short marks standing alone ("≤4 cm" read, "1.000" not). The table builder
// then sees a row of one fragment (or one set off by a rule's gap) and ends the table above it,
// and the row becomes a line of text under the table. On a scanned page the pixels say more than
// the words: a printed row right under the table whose ink (read or not) falls in two or more of
// the table's columns, and nowhere crosses a boundary between them, is one more row of the table.
// Its cells take the words read in them; the cells left empty with ink in them are read by the
// cell re-read (cell-reread.ts) like any other cell of the grid.
import { tableText } from '../layout/page-layout';
import type { LayoutElement, TableCellModel, TextRun } from '../types';
import { otsuThreshold, type GrayImage } from './preprocess';

export interface RowsBelowInput {
  /** The page in grey; `pxPerPt` of its pixels per point of the boxes. */
  gray: GrayImage;
  pxPerPt: number;
  /** Otsu's threshold of `gray` when already known. */
  threshold?: number;
  tables: LayoutElement[];
  /** The page's runs (points); a run inside a table is its cell's. */
  runs: TextRun[];
}

/** Farthest a row may start below the top of the table's last row, in row pitches. */
const MAX_PITCHES = 2;
/** A gap in a row's ink narrower than this (in text heights) is a space between words of one phrase. */
const WORD_GAP = 0.8;
/** Slack (in text heights) with which a phrase may reach over a column boundary. */
const BOUNDARY_SLACK = 0.3;
/** Share of the table's width in ink that makes a pixel row a ruling line, not text. */
const RULE_SHARE = 0.5;
/** The most rows added under one table (a table does not continue indefinitely in this way). */
const MAX_ROWS = 3;

interface Band {
  runs: TextRun[];
  y0: number;
  y1: number;
}

const centre = (r: { x0: number; x1: number; y0: number; y1: number }) => ({
  x: (r.x0 + r.x1) / 2,
  y: (r.y0 + r.y1) / 2,
});
const inside = (r: TextRun, b: { x0: number; y0: number; x1: number; y1: number }) => {
  const c = centre(r);
  return c.x >= b.x0 && c.x <= b.x1 && c.y >= b.y0 && c.y <= b.y1;
};
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : undefined;
};

/** Left edges of the table's columns and its right edge (cells of one column, in points). */
function columnEdges(el: LayoutElement): number[] | undefined {
  const t = el.table!;
  const edges: number[] = [];
  for (let c = 0; c < t.cols; c++) {
    const xs = t.cells.filter((k) => k.col === c && k.colSpan === 1).map((k) => k.x0);
    if (!xs.length) return undefined;
    edges.push(Math.min(...xs));
  }
  edges.push(el.x1);
  for (let i = 1; i < edges.length; i++) if (edges[i]! <= edges[i - 1]!) return undefined;
  return edges;
}

/**
 * Ink phrases of a band of the page across the table: runs of pixel columns holding ink (pixel
 * rows that are a ruling line left out), gaps narrower than a word space closed. Points.
 */
export function inkPhrases(
  gray: GrayImage,
  pxPerPt: number,
  threshold: number,
  box: { x0: number; y0: number; x1: number; y1: number },
  wordGapPt: number,
): Array<{ x0: number; x1: number }> {
  const x0 = Math.max(0, Math.floor(box.x0 * pxPerPt)),
    x1 = Math.min(gray.width, Math.ceil(box.x1 * pxPerPt)),
    y0 = Math.max(0, Math.floor(box.y0 * pxPerPt)),
    y1 = Math.min(gray.height, Math.ceil(box.y1 * pxPerPt));
  const ink = new Uint8Array(Math.max(0, x1 - x0));
  for (let y = y0; y < y1; y++) {
    const row = y * gray.width;
    let n = 0;
    for (let x = x0; x < x1; x++) if (gray.data[row + x]! <= threshold) n++;
    if (n >= RULE_SHARE * (x1 - x0)) continue;
    for (let x = x0; x < x1; x++) if (gray.data[row + x]! <= threshold) ink[x - x0] = 1;
  }
  const gap = wordGapPt * pxPerPt;
  const out: Array<{ x0: number; x1: number }> = [];
  let start = -1,
    last = -Infinity;
  for (let i = 0; i < ink.length; i++) {
    if (!ink[i]) continue;
    if (start >= 0 && i - last - 1 < gap) last = i;
    else {
      if (start >= 0) out.push({ x0: (x0 + start) / pxPerPt, x1: (x0 + last + 1) / pxPerPt });
      start = last = i;
    }
  }
  if (start >= 0) out.push({ x0: (x0 + start) / pxPerPt, x1: (x0 + last + 1) / pxPerPt });
  return out;
}

/**
 * The columns a band's phrases fill, or undefined when a phrase crosses a column boundary (a
 * note or a sentence under the table, not a row of it).
 */
export function filledColumns(
  phrases: Array<{ x0: number; x1: number }>,
  edges: number[],
  slack: number,
): Set<number> | undefined {
  const cols = new Set<number>();
  for (const p of phrases) {
    for (let i = 1; i < edges.length - 1; i++)
      if (p.x0 < edges[i]! - slack && p.x1 > edges[i]! + slack) return undefined;
    const cx = (p.x0 + p.x1) / 2;
    const c = edges.findIndex((e, i) => i < edges.length - 1 && cx >= e && cx < edges[i + 1]!);
    if (c >= 0) cols.add(c);
  }
  return cols;
}

/** The printed row right under `bottom` among the runs (the topmost run and those on its row). */
function nextBand(runs: TextRun[], bottom: number): Band | undefined {
  const below = runs.filter((r) => centre(r).y > bottom).sort((a, b) => a.y0 - b.y0);
  const top = below[0];
  if (!top) return undefined;
  const h = top.y1 - top.y0;
  const row = below.filter((r) => Math.min(r.y1, top.y1) - Math.max(r.y0, top.y0) >= 0.5 * Math.min(h, r.y1 - r.y0));
  return { runs: row, y0: Math.min(...row.map((r) => r.y0)), y1: Math.max(...row.map((r) => r.y1)) };
}

/**
 * One table with the printed rows right under it that belong to it appended as rows (one cell per
 * column, the words read in each; boxes in points), or the table as it was.
 */
export function withRowsBelow(
  el: LayoutElement,
  runs: TextRun[],
  gray: GrayImage,
  pxPerPt: number,
  threshold: number,
  others: LayoutElement[] = [],
): LayoutElement {
  const t = el.table;
  if (!t || t.rows < 3 || t.cols < 2) return el;
  const edges = columnEdges(el);
  if (!edges) return el;
  // The table's rows: each one's top, and the height of its text.
  const tops: number[] = [];
  for (let r = 0; r < t.rows; r++) {
    const ys = t.cells.filter((c) => c.row === r && c.rowSpan === 1 && c.text.trim()).map((c) => c.y0);
    if (ys.length) tops.push(Math.min(...ys));
  }
  const steps = tops.slice(1).map((y, i) => y - tops[i]!);
  const pitch = median(steps.filter((s) => s > 0));
  const textH = median(runs.filter((r) => inside(r, el) && /[\p{L}\p{N}]/u.test(r.text)).map((r) => r.y1 - r.y0));
  if (pitch === undefined || textH === undefined) return el;
  // Runs that could be under the table: across its width, in no other table.
  const free = runs.filter(
    (r) =>
      !inside(r, el) && !others.some((o) => o !== el && inside(r, o)) && r.x0 >= el.x0 - textH && r.x1 <= el.x1 + textH,
  );
  const freeSet = new Set(free);
  const cells: TableCellModel[] = [...t.cells];
  let rows = t.rows,
    lastTop = tops[tops.length - 1]!,
    bottom = el.y1;
  for (let added = 0; added < MAX_ROWS; added++) {
    const band = nextBand(free, bottom);
    if (!band || band.y0 - lastTop > MAX_PITCHES * pitch) break;
    // Runs outside the table's width on this row: the row is not the table's.
    if (runs.some((r) => !freeSet.has(r) && !inside(r, el) && centre(r).y > band.y0 && centre(r).y < band.y1)) break;
    if (!band.runs.some((r) => /[\p{L}\p{N}]/u.test(r.text))) break;
    const pad = 0.15 * textH;
    const phrases = inkPhrases(
      gray,
      pxPerPt,
      threshold,
      { x0: el.x0, x1: el.x1, y0: band.y0 - pad, y1: band.y1 + pad },
      WORD_GAP * textH,
    );
    const cols = filledColumns(phrases, edges, BOUNDARY_SLACK * textH);
    if (!cols || cols.size < 2) break;
    for (let c = 0; c < t.cols; c++) {
      const box = { x0: edges[c]!, x1: edges[c + 1]!, y0: band.y0, y1: band.y1 };
      const text = band.runs
        .filter((r) => centre(r).x >= box.x0 && centre(r).x < box.x1)
        .sort((a, b) => a.x0 - b.x0)
        .map((r) => r.text)
        .join(' ');
      cells.push({ ...box, row: rows, col: c, rowSpan: 1, colSpan: 1, text, isHeader: false });
    }
    rows++;
    lastTop = band.y0;
    bottom = band.y1;
  }
  if (rows === t.rows) return el;
  const y1 = Math.max(el.y1, bottom);
  return {
    ...el,
    y1,
    text: tableText({ cells }),
    table: { ...t, y1: Math.max(t.y1, bottom), cells, rows },
  };
}

/** Every table of the page with the rows under it that belong to it (withRowsBelow). */
export function tablesWithRowsBelow(inp: RowsBelowInput): LayoutElement[] {
  const threshold = inp.threshold ?? otsuThreshold(inp.gray);
  return inp.tables.map((el) => withRowsBelow(el, inp.runs, inp.gray, inp.pxPerPt, threshold, inp.tables));
}
