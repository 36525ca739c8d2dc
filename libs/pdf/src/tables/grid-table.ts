// Builds a table (cells with spans) from boundaries: rule positions where rules exist, text
// alignment where they don't. A missing rule between two grid slots merges them (a span).
import type { CellGrid, CellsSource } from '@docfleet/contracts';
import type { Box } from '../geometry';
import type { Ruling, TableCellModel, TableModel } from '../types';
import { columnSeparators, rowSeparators, textRows } from './alignment';
import { detectHeaderRows } from './header-rows';
import { wordsToText, type Word } from './words';

/** A figure: a number, amount, percentage, or a range of them ("20-29", "1990–95"). */
const FIGURE_WORD = /^[(+\-–−]?[$€£]?[\d.,]*\d[\d.,]*%?(?:[-–][$€£]?[\d.,]*\d[\d.,]*%?)?\)?$/;

export interface GridInput {
  region: Box;
  hRules: Ruling[];
  vRules: Ruling[];
  words: Word[];
  fills: Box[];
  kind: 'lattice' | 'stack' | 'stream';
}

interface Boundary {
  pos: number;
  fromRule: boolean;
}

export function buildGridTable(inp: GridInput): TableModel | undefined {
  const { region } = inp;
  const words = inp.words.filter((w) => {
    const cx = (w.x0 + w.x1) / 2,
      cy = (w.y0 + w.y1) / 2;
    return cx >= region.x0 - 1 && cx <= region.x1 + 1 && cy >= region.y0 - 1 && cy <= region.y1 + 1;
  });
  if (words.length < 2) return undefined;

  let estimatedCols = false;
  let xs = boundaries(
    region.x0,
    region.x1,
    inp.vRules.map((r) => r.x0),
  );
  const colsFromRules = inp.kind === 'lattice' && xs.length >= 3;
  if (!colsFromRules) {
    const seps = columnSeparators(words, region.x0, region.x1);
    if (seps.length === 0) {
      const k = modalPhraseCount(words);
      if (k < 2) return undefined;
      // One axis falls back to a uniform split: `grid-estimate` (docs/api.md, Resources: boxes).
      for (let i = 1; i < k; i++) seps.push(region.x0 + ((region.x1 - region.x0) * i) / k);
      estimatedCols = true;
    }
    xs = mergeBoundaries([...xs, ...seps.map((pos) => ({ pos, fromRule: false }))]);
  } else {
    // Wide lattice columns may still hold several aligned text columns.
    const extra: Boundary[] = [];
    for (let c = 0; c + 1 < xs.length; c++) {
      // Only words boxed in by both of the column's rules: a header spanning into the next column
      // (no rule beside it in its row) says nothing about columns inside this one.
      const ruled = (x: number, y: number) =>
        inp.vRules.some((r) => Math.abs(r.x0 - x) <= 2.5 && r.y0 <= y + 1 && r.y1 >= y - 1);
      const inCol = words.filter((w) => {
        const cx = (w.x0 + w.x1) / 2,
          cy = (w.y0 + w.y1) / 2;
        return cx > xs[c]!.pos && cx < xs[c + 1]!.pos && ruled(xs[c]!.pos, cy) && ruled(xs[c + 1]!.pos, cy);
      });
      // A group header over its sub-columns ("Non-Hispanic white" over "Male | Female") crosses
      // the gap between them: with enough rows, one row in eight may cross it.
      if (textRows(inCol).length >= 4)
        for (const pos of columnSeparators(inCol, xs[c]!.pos, xs[c + 1]!.pos, 8)) extra.push({ pos, fromRule: false });
    }
    if (extra.length) xs = mergeBoundaries([...xs, ...extra]);
  }

  let ys = boundaries(
    region.y0,
    region.y1,
    inp.hRules.map((r) => r.y0),
  );
  const bandRows = bandTextRows(ys, words);
  const nonEmpty = bandRows.filter((n) => n > 0);
  const singleShare = nonEmpty.length ? nonEmpty.filter((n) => n === 1).length / nonEmpty.length : 0;
  // A lattice whose ruled rows mostly hold one text row each keeps its rules as the rows (a
  // second text row inside a ruled row is wrapped cell text), except in a band that holds a run
  // of complete rows: a ruled header over an unruled body, or a body ruled only above its total.
  const ruledRows = inp.kind === 'lattice' && ys.length >= 3 && singleShare >= 0.6;
  const extra: Boundary[] = [];
  for (let i = 0; i + 1 < ys.length; i++) {
    const inBand = words.filter((w) => (w.y0 + w.y1) / 2 > ys[i]!.pos && (w.y0 + w.y1) / 2 < ys[i + 1]!.pos);
    if (ruledRows && !holdsCompleteRows(inBand, xs)) continue;
    for (const pos of rowSeparators(inBand, ys[i]!.pos, ys[i + 1]!.pos)) extra.push({ pos, fromRule: false });
  }
  ys = mergeBoundaries([...ys, ...extra]);
  xs = pruneEmpty(xs, words, 'x');
  xs = joinHeaderOnlyColumns(xs, words);
  ys = pruneEmpty(ys, words, 'y');
  ys = joinWrappedRows(ys, xs, words);
  let R = ys.length - 1;
  const C = xs.length - 1;
  if (R < 2 || C < 2 || R * C > 5000) return undefined;

  // Slot → words.
  const slotWords: Word[][] = Array.from({ length: R * C }, () => []);
  for (const w of words) {
    const r = indexOf(ys, (w.y0 + w.y1) / 2),
      c = indexOf(xs, (w.x0 + w.x1) / 2);
    if (r >= 0 && c >= 0) slotWords[r * C + c]!.push(w);
  }

  // Union slots not separated by a boundary.
  const parent = Array.from({ length: R * C }, (_, i) => i);
  const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i]!)));
  const join = (a: number, b: number) => {
    const ra = find(a),
      rb = find(b);
    if (ra !== rb) parent[rb] = ra;
  };
  for (let r = 0; r < R; r++)
    for (let c = 1; c < C; c++) {
      if (!vPresent(xs[c]!, ys[r]!.pos, ys[r + 1]!.pos, inp.vRules, words)) join(r * C + c - 1, r * C + c);
    }
  for (let r = 1; r < R; r++)
    for (let c = 0; c < C; c++) {
      if (!hPresent(ys[r]!, xs[c]!.pos, xs[c + 1]!.pos, inp.hRules)) join((r - 1) * C + c, r * C + c);
    }
  const trimmed = trimBannerRows(collectCells(R, C, find, slotWords, xs, ys), R, C, words);
  if (!trimmed) return undefined;
  const { cells } = trimmed;
  R = trimmed.rows;
  const filled = cells.filter((c) => c.text);
  if (filled.length < 3) return undefined;
  const rowsWithTwo = new Set<number>();
  const perRow = new Map<number, number>();
  for (const c of filled) perRow.set(c.row, (perRow.get(c.row) ?? 0) + 1);
  for (const [r, n] of perRow) if (n >= 2) rowsWithTwo.add(r);
  // Without a full lattice, most rows must really have several cells (framed code listings and
  // boxed paragraphs have rules too).
  const needRows = colsFromRules ? 2 : Math.max(2, Math.ceil(0.6 * R));
  if (rowsWithTwo.size < needRows) return undefined;
  // Typewriter text in columns is a code listing, unless it is mostly figures (a table set in a
  // monospaced font, as plain-text statistical reports are).
  if (
    !colsFromRules &&
    words.length &&
    words.filter((w) => w.mono).length > 0.8 * words.length &&
    words.filter((w) => FIGURE_WORD.test(w.text)).length < 0.5 * words.length
  )
    return undefined;

  const headerRows = detectHeaderRows(
    cells,
    R,
    inp.hRules,
    ys.map((b) => b.pos),
    inp.fills,
    inp.kind,
  );
  for (const c of cells) c.isHeader = c.row < headerRows;
  const cellsSource: CellsSource = estimatedCols ? 'grid-estimate' : 'projection';
  const cellGrid: CellGrid = { rows: 'detected', cols: estimatedCols ? 'estimated' : 'detected' };
  const y0 = Math.min(...cells.map((c) => c.y0)),
    y1 = Math.max(...cells.map((c) => c.y1));
  return { x0: region.x0, y0, x1: region.x1, y1, cells, rows: R, cols: C, cellsSource, cellGrid };
}

/**
 * A frame often boxes a table together with its title and notes: full-width single-cell rows at
 * the top or bottom are not table rows. Dropping them shrinks the table box, so their text
 * returns to the reading flow as ordinary paragraphs.
 */
function trimBannerRows(
  cells: TableCellModel[],
  rows: number,
  cols: number,
  words: Word[],
): { cells: TableCellModel[]; rows: number } | undefined {
  // Only centred titles and long note paragraphs count: a left-aligned short full-width row is
  // a section row that belongs to the table ("Improved operation scenario").
  const isBanner = (r: number, where: 'top' | 'bottom') => {
    const inRow = cells.filter((c) => c.row <= r && c.row + c.rowSpan > r);
    const cell = inRow[0];
    if (inRow.length !== 1 || !cell || cell.colSpan !== cols || cell.rowSpan !== 1) return false;
    const ws = words.filter(
      (w) =>
        (w.x0 + w.x1) / 2 > cell.x0 &&
        (w.x0 + w.x1) / 2 < cell.x1 &&
        (w.y0 + w.y1) / 2 > cell.y0 &&
        (w.y0 + w.y1) / 2 < cell.y1,
    );
    if (!ws.length) return true;
    const mid = (Math.min(...ws.map((w) => w.x0)) + Math.max(...ws.map((w) => w.x1))) / 2;
    const centred = Math.abs(mid - (cell.x0 + cell.x1) / 2) < 0.08 * (cell.x1 - cell.x0);
    // A title stands out: larger type or several lines; a centred group row inside the grid doesn't.
    const sizes = words.map((w) => w.size).sort((a, b) => a - b);
    const bodySize = sizes[Math.floor(sizes.length / 2)] ?? 0;
    const lines = new Set(ws.map((w) => Math.round(w.baseline / 2))).size;
    const titleLike = Math.max(...ws.map((w) => w.size)) >= 1.1 * bodySize || lines >= 2;
    return where === 'top' ? centred && titleLike : (centred && titleLike) || cell.text.length > 80;
  };
  let top = 0,
    bottom = rows - 1;
  while (top < bottom && isBanner(top, 'top')) top++;
  while (bottom > top && isBanner(bottom, 'bottom')) bottom--;
  if (bottom - top + 1 < 2) return undefined;
  if (top === 0 && bottom === rows - 1) return { cells, rows };
  const kept = cells.filter((c) => c.row >= top && c.row <= bottom).map((c) => ({ ...c, row: c.row - top }));
  return { cells: kept, rows: bottom - top + 1 };
}

function boundaries(lo: number, hi: number, rulePositions: number[]): Boundary[] {
  const inner = rulePositions.filter((p) => p > lo + 2 && p < hi - 2).map((pos) => ({ pos, fromRule: true }));
  return mergeBoundaries([{ pos: lo, fromRule: true }, ...inner, { pos: hi, fromRule: true }]);
}

function mergeBoundaries(list: Boundary[]): Boundary[] {
  const sorted = [...list].sort((a, b) => a.pos - b.pos);
  const out: Boundary[] = [];
  for (const b of sorted) {
    const last = out[out.length - 1];
    if (last && b.pos - last.pos < 2.5) {
      if (b.fromRule && !last.fromRule) out[out.length - 1] = b;
    } else out.push({ ...b });
  }
  return out;
}

/** Drops thin empty slices (double rules, hairline gaps) so they don't become phantom rows/columns. */
function pruneEmpty(bs: Boundary[], words: Word[], axis: 'x' | 'y'): Boundary[] {
  const out = [...bs];
  for (let i = out.length - 2; i >= 0 && out.length > 2; i--) {
    const a = out[i]!.pos,
      b = out[i + 1]!.pos;
    const has = words.some((w) => {
      const c = axis === 'x' ? (w.x0 + w.x1) / 2 : (w.y0 + w.y1) / 2;
      return c > a && c < b;
    });
    if (has) continue;
    // Remove the inner boundary of the empty slice (never the outer edges).
    if (i + 1 < out.length - 1) out.splice(i + 1, 1);
    else if (i > 0) out.splice(i, 1);
  }
  return out;
}

/**
 * A column that holds only a header line or two, beside a column that never shares a text row
 * with it, is that column's header set off-centre ("Species" centred over short left-aligned
 * names): the text-derived boundary between them goes. Only text boundaries; rules stay.
 */
function joinHeaderOnlyColumns(xs: Boundary[], words: Word[]): Boundary[] {
  const rows = textRows(words);
  const out = [...xs];
  for (let k = out.length - 2; k >= 1; k--) {
    if (out[k]!.fromRule) continue;
    const a = out[k - 1]!.pos,
      m = out[k]!.pos,
      b = out[k + 1]!.pos;
    const rowsIn = (lo: number, hi: number) =>
      new Set(rows.flatMap((r, i) => (r.some((w) => (w.x0 + w.x1) / 2 > lo && (w.x0 + w.x1) / 2 < hi) ? [i] : [])));
    const left = rowsIn(a, m),
      right = rowsIn(m, b);
    if ([...left].some((i) => right.has(i))) continue;
    const [few, many] = left.size <= right.size ? [left, right] : [right, left];
    // The header lines sit above every line of the column they head.
    if (few.size >= 1 && few.size <= 2 && many.size >= 3 && Math.max(...few) < Math.min(...many)) out.splice(k, 1);
  }
  return out;
}

/**
 * Wrapped cell text: a text row set closer under the one above than the table's rows are to each
 * other (the leading inside a cell is tighter than the pitch between rows) continues the row
 * above when it only adds lines to cells that row already fills, starting no further left than
 * their first lines (a hanging indent or the same margin; an outdented label is a new section).
 * In a header, where nothing is a figure, a wrapped label may also sit beside cells that are
 * centred on it ("Number" beside "Margin of / error").
 */
function joinWrappedRows(ys: Boundary[], xs: Boundary[], words: Word[]): Boundary[] {
  if (ys.length < 5) return ys;
  const bandOf = (w: Word) => indexOf(ys, (w.y0 + w.y1) / 2);
  const bands: Word[][] = ys.slice(1).map(() => []);
  for (const w of words) {
    const b = bandOf(w);
    if (b >= 0) bands[b]!.push(w);
  }
  const lastBase = (ws: Word[]) => Math.max(...ws.map((w) => w.baseline));
  const firstBase = (ws: Word[]) => Math.min(...ws.map((w) => w.baseline));
  const pitches: number[] = [];
  for (let i = 1; i < bands.length; i++)
    if (!ys[i]!.fromRule && bands[i - 1]!.length && bands[i]!.length)
      pitches.push(firstBase(bands[i]!) - lastBase(bands[i - 1]!));
  if (pitches.length < 3) return ys;
  pitches.sort((a, b) => a - b);
  const pitch = pitches[Math.floor(pitches.length / 2)]!;
  const colOf = (w: Word) => indexOf(xs, (w.x0 + w.x1) / 2);
  const out = [ys[0]!];
  let upper = bands[0]!;
  for (let i = 1; i < bands.length; i++) {
    const lower = bands[i]!;
    let join = false;
    if (!ys[i]!.fromRule && upper.length && lower.length && firstBase(lower) - lastBase(upper) < 0.85 * pitch) {
      const left = new Map<number, number>();
      for (const w of upper) left.set(colOf(w), Math.min(left.get(colOf(w)) ?? Infinity, w.x0));
      const figures = [...upper, ...lower].some((w) => FIGURE.test(w.text));
      join = lower.every((w) => {
        const x = left.get(colOf(w));
        if (x === undefined) return !figures;
        return Math.min(...lower.filter((o) => colOf(o) === colOf(w)).map((o) => o.x0)) >= x - 1;
      });
      // A lower row holding a column the upper row leaves empty needs the header exception.
      if (join && figures && lower.some((w) => !left.has(colOf(w)))) join = false;
    }
    if (join) upper = [...upper, ...lower];
    else {
      out.push(ys[i]!);
      upper = lower;
    }
  }
  out.push(ys[ys.length - 1]!);
  return out;
}

/** A figure: digits, without a word of two letters ("2.3", "(4.7)", "1990-94", but not "(000 ecu)"). */
const FIGURE = /^(?!.*\p{L}{2})[^\d]*\d/u;

/**
 * A band of text rows that are table rows rather than the wrapped lines of its cells: at least
 * three text rows, and most of them reach into two or more columns.
 */
function holdsCompleteRows(words: Word[], xs: Boundary[]): boolean {
  const rows = textRows(words);
  if (rows.length < 3) return false;
  // A wrapped header also reaches into several columns on each of its lines, but leaves the stub
  // (first column) empty below its first line and holds few figures.
  const complete = rows.filter((r) => {
    const cols = new Set(r.map((w) => indexOf(xs, (w.x0 + w.x1) / 2)));
    return cols.size >= 2 && cols.has(0) && r.some((w) => FIGURE.test(w.text));
  }).length;
  return complete >= 0.6 * rows.length;
}

function bandTextRows(ys: Boundary[], words: Word[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < ys.length; i++) {
    const inBand = words.filter((w) => (w.y0 + w.y1) / 2 > ys[i]!.pos && (w.y0 + w.y1) / 2 < ys[i + 1]!.pos);
    out.push(inBand.length ? rowSeparators(inBand, ys[i]!.pos, ys[i + 1]!.pos).length + 1 : 0);
  }
  return out;
}

function indexOf(bs: Boundary[], v: number): number {
  for (let i = 0; i + 1 < bs.length; i++) if (v >= bs[i]!.pos && v <= bs[i + 1]!.pos) return i;
  return -1;
}

function coverage(rules: Ruling[], horizontal: boolean, pos: number, a: number, b: number): number {
  const spans: Array<[number, number]> = [];
  for (const r of rules) {
    const rp = horizontal ? r.y0 : r.x0;
    if (Math.abs(rp - pos) > 2.5) continue;
    const s = Math.max(a, horizontal ? r.x0 : r.y0),
      e = Math.min(b, horizontal ? r.x1 : r.y1);
    if (e > s) spans.push([s, e]);
  }
  spans.sort((p, q) => p[0] - q[0]);
  let covered = 0,
    reach = a;
  for (const [s, e] of spans) {
    if (e > reach) {
      covered += e - Math.max(s, reach);
      reach = e;
    }
  }
  return b > a ? covered / (b - a) : 0;
}

function vPresent(x: Boundary, y0: number, y1: number, vRules: Ruling[], words: Word[]): boolean {
  if (x.fromRule) return coverage(vRules, false, x.pos, y0, y1) >= 0.5;
  // Text-derived column: present unless a word in this row straddles it.
  return !words.some((w) => (w.y0 + w.y1) / 2 > y0 && (w.y0 + w.y1) / 2 < y1 && w.x0 < x.pos - 1 && w.x1 > x.pos + 1);
}

function hPresent(y: Boundary, x0: number, x1: number, hRules: Ruling[]): boolean {
  return y.fromRule ? coverage(hRules, true, y.pos, x0, x1) >= 0.5 : true;
}

function collectCells(
  R: number,
  C: number,
  find: (i: number) => number,
  slotWords: Word[][],
  xs: Boundary[],
  ys: Boundary[],
): TableCellModel[] {
  const groups = new Map<number, number[]>();
  for (let i = 0; i < R * C; i++) {
    const g = groups.get(find(i)) ?? [];
    g.push(i);
    groups.set(find(i), g);
  }
  const cells: TableCellModel[] = [];
  const emit = (slots: number[]) => {
    const rs = slots.map((s) => Math.floor(s / C)),
      cs = slots.map((s) => s % C);
    const r0 = Math.min(...rs),
      r1 = Math.max(...rs),
      c0 = Math.min(...cs),
      c1 = Math.max(...cs);
    const ws = slots.flatMap((s) => slotWords[s]!);
    cells.push({
      row: r0,
      col: c0,
      rowSpan: r1 - r0 + 1,
      colSpan: c1 - c0 + 1,
      text: wordsToText(ws),
      isHeader: false,
      x0: xs[c0]!.pos,
      x1: xs[c1 + 1]!.pos,
      y0: ys[r0]!.pos,
      y1: ys[r1 + 1]!.pos,
    });
  };
  for (const slots of groups.values()) {
    const rs = slots.map((s) => Math.floor(s / C)),
      cs = slots.map((s) => s % C);
    const area = (Math.max(...rs) - Math.min(...rs) + 1) * (Math.max(...cs) - Math.min(...cs) + 1);
    if (area === slots.length) emit(slots);
    else for (const s of slots) emit([s]); // not a rectangle: keep the slots separate
  }
  return cells.sort((a, b) => a.row - b.row || a.col - b.col);
}

function modalPhraseCount(words: Word[]): number {
  const counts = new Map<number, number>();
  for (const row of textRows(words)) {
    const sorted = [...row].sort((a, b) => a.x0 - b.x0);
    let n = 1;
    for (let i = 1; i < sorted.length; i++) if (sorted[i]!.x0 - sorted[i - 1]!.x1 > 1.2 * sorted[i]!.size) n++;
    counts.set(n, (counts.get(n) ?? 0) + 1);
  }
  let best = 1,
    bestN = 0;
  for (const [k, n] of counts)
    if (n > bestN || (n === bestN && k > best)) {
      best = k;
      bestN = n;
    }
  return best;
}
