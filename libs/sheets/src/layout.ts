// Turns the blocks of a sheet into tables and texts:
// - title rows: leading rows of a block showing a single label above a row with several cells
//   ('Stanley Cups' above its table) are the table's title, not part of it;
// - notes: trailing rows showing a single long or note-like label ('Source: ...') are notes;
// - a block with at least 2 rows and 2 columns left is a table, anything else is text;
// - header: the first row, extended downwards while merged header cells need it (a cell merged over
//   two rows, or a label merged over several columns with sub-labels below) or while a sparse row of
//   group labels sits above a full row of labels; levels join as '2023 / Q1';
// - a one-line text block just above a table (up to 2 empty rows between) becomes its title, and a
//   note-like text block just below one ('Source: ...', '* ...') becomes its note.
import type { SheetRange } from '@docfleet/contracts';
import { qualifiedRangeA1, type CellRect } from './a1';
import { findBlocks } from './block-finder';
import type { SheetView } from './sheet-view';
import { cleanText } from './sheet-view';
import type { SheetTable, SheetText, SheetTextKind } from './types';

const MAX_TITLE_ROWS = 3;
const MAX_HEADER_ROWS = 4;
const NOTE_RE = /^(notes?|sources?|remarks?|n\.?b\.?|footnotes?|\*|†|‡|¹|²|³|\(\d+\)|\[\d+\]|\d+\))/i;

export interface SheetLayout {
  tables: SheetTable[];
  texts: SheetText[];
}

interface DraftTable {
  rect: CellRect;
  headerRows: number;
  sparseHeader: boolean;
  title?: string;
  notes: string[];
}
interface DraftText {
  rect: CellRect;
  kind: SheetTextKind;
  text: string;
  table?: DraftTable;
}

export function detectLayout(view: SheetView, sheet: { index: number; name: string }): SheetLayout {
  const tables: DraftTable[] = [];
  const texts: DraftText[] = [];
  for (const block of findBlocks(view)) analyseBlock(view, block, tables, texts);
  attachDetachedTitles(tables, texts);
  attachDetachedNotes(tables, texts);

  tables.sort((a, b) => a.rect.startRow - b.rect.startRow || a.rect.startCol - b.rect.startCol);
  texts.sort((a, b) => a.rect.startRow - b.rect.startRow || a.rect.startCol - b.rect.startCol);
  const range = (rect: CellRect) => ({
    sheetIndex: sheet.index,
    sheetName: sheet.name,
    ...rect,
    rangeA1: qualifiedRangeA1(sheet.name, rect),
  });
  const tableIds = new Map<DraftTable, string>();
  const outTables = tables.map((t, k) => {
    const id = `s${sheet.index}-t${k + 1}`;
    tableIds.set(t, id);
    return buildTable(view, t, id, range(t.rect));
  });
  const outTexts = texts.map((t, k): SheetText => ({
    id: `s${sheet.index}-x${k + 1}`,
    kind: t.kind,
    text: t.text,
    ...(t.table ? { tableId: tableIds.get(t.table) } : {}),
    ...range(t.rect),
  }));
  return { tables: outTables, texts: outTexts };
}

function analyseBlock(view: SheetView, block: CellRect, tables: DraftTable[], texts: DraftText[]): void {
  let { startRow: r1, endRow: r2, startCol: c1, endCol: c2 } = block;
  const count = (r: number) => view.logicalCells(r, c1, c2);
  const titles: DraftText[] = [];
  const notes: DraftText[] = [];

  // Leading title rows.
  while (titles.length < MAX_TITLE_ROWS && r2 - r1 + 1 >= 3) {
    const cells = count(r1);
    if (cells.length !== 1 || !view.isLabel(cells[0]!) || count(r1 + 1).length < 2) break;
    titles.push({ rect: rowRect(view, r1, c1, c2), kind: 'title', text: cleanText(view.store.text(cells[0]!)) });
    r1++;
  }
  // Trailing note rows.
  while (r2 - r1 + 1 >= 3) {
    const cells = count(r2);
    if (cells.length !== 1 || !view.isLabel(cells[0]!) || count(r2 - 1).length < 2) break;
    const text = cleanText(view.store.text(cells[0]!));
    const merged = view.mergeAt(r2, view.store.col[cells[0]!]!);
    const wide = merged ? merged.endCol - merged.startCol >= 1 : false;
    if (!(NOTE_RE.test(text) || text.length >= 40 || wide)) break;
    notes.unshift({ rect: rowRect(view, r2, c1, c2), kind: 'note', text });
    r2--;
  }
  // Columns actually used by the remaining rows (a merged title can be wider than its table).
  let lo = Infinity;
  let hi = -Infinity;
  for (let r = r1; r <= r2; r++) {
    const ext = view.rowExtent(r, c1, c2);
    if (ext) {
      lo = Math.min(lo, ext[0]);
      hi = Math.max(hi, ext[1]);
    }
  }
  c1 = lo;
  c2 = hi;
  const rows = r2 - r1 + 1;
  const cols = c2 - c1 + 1;
  let multiCellRows = 0;
  for (let r = r1; r <= r2 && multiCellRows < 2; r++) if (view.logicalCells(r, c1, c2).length >= 2) multiCellRows++;

  if (rows >= 2 && cols >= 2 && multiCellRows >= 1) {
    const rect = { startRow: r1, endRow: r2, startCol: c1, endCol: c2 };
    const { headerRows, sparse } = detectHeaderRows(view, rect);
    const table: DraftTable = { rect, headerRows, sparseHeader: sparse, notes: notes.map((n) => n.text) };
    if (titles.length) table.title = titles.map((t) => t.text).join(' - ');
    for (const t of [...titles, ...notes]) t.table = table;
    tables.push(table);
    texts.push(...titles, ...notes);
    return;
  }
  // Not a table: the whole block (titles and notes included) is one text.
  const lines: string[] = [];
  for (let r = block.startRow; r <= block.endRow; r++) {
    const line = view.rowTexts(r, block.startCol, block.endCol).filter((s) => s !== '');
    if (line.length) lines.push(dedupeAdjacent(line).join(' '));
  }
  if (lines.length) texts.push({ rect: block, kind: 'text', text: lines.join('\n') });
}

function rowRect(view: SheetView, r: number, c1: number, c2: number): CellRect {
  const ext = view.rowExtent(r, c1, c2) ?? [c1, c1];
  return { startRow: r, endRow: r, startCol: ext[0], endCol: ext[1] };
}

function detectHeaderRows(view: SheetView, rect: CellRect): { headerRows: number; sparse: boolean } {
  const maxHeader = Math.min(MAX_HEADER_ROWS, rect.endRow - rect.startRow);
  let h = 1;
  let changed = true;
  while (changed) {
    changed = false;
    for (const m of view.valueMerges) {
      if (m.startRow < rect.startRow || m.startRow > rect.startRow + h - 1) continue;
      if (m.endCol < rect.startCol || m.startCol > rect.endCol) continue;
      let need = m.endRow - rect.startRow + 1;
      // A label merged across columns names the sub-labels in the row below it.
      if (
        m.endCol > m.startCol &&
        m.endRow === rect.startRow + h - 1 &&
        rowIsLabels(view, m.endRow + 1, m.startCol, m.endCol)
      )
        need = Math.max(need, h + 1);
      if (need > h && need <= maxHeader) {
        h = need;
        changed = true;
      }
    }
  }
  if (h > 1) return { headerRows: h, sparse: false };
  // Group labels without merges ('2023' over three quarter columns, centred or left-aligned).
  if (maxHeader >= 2 && rect.endRow - rect.startRow >= 2) {
    const width = rect.endCol - rect.startCol + 1;
    const top = view.logicalCells(rect.startRow, rect.startCol, rect.endCol);
    const second = view.rowTexts(rect.startRow + 1, rect.startCol, rect.endCol);
    const topCols = top.map((i) => view.store.col[i]!);
    const gapAfterLabel = topCols.some((c, k) => c < rect.endCol && (topCols[k + 1] ?? rect.endCol + 1) > c + 1);
    if (
      top.length >= 1 &&
      top.length < width &&
      gapAfterLabel &&
      top.every((i) => view.isLabel(i)) &&
      second.every((s) => s !== '') &&
      rowIsLabels(view, rect.startRow + 1, rect.startCol, rect.endCol) &&
      (new Set(second).size < second.length || rowHasNumber(view, rect.startRow + 2, rect.startCol, rect.endCol))
    ) {
      return { headerRows: 2, sparse: true };
    }
  }
  return { headerRows: 1, sparse: false };
}

function rowIsLabels(view: SheetView, r: number, c1: number, c2: number): boolean {
  const cells = view.logicalCells(r, c1, c2);
  return cells.length > 0 && cells.every((i) => view.isLabel(i));
}

function rowHasNumber(view: SheetView, r: number, c1: number, c2: number): boolean {
  return view.logicalCells(r, c1, c2).some((i) => view.isNumeric(i));
}

function buildTable(view: SheetView, t: DraftTable, id: string, range: SheetRange): SheetTable {
  const { startRow, endRow, startCol, endCol } = t.rect;
  const levels: string[][] = [];
  for (let r = startRow; r < startRow + t.headerRows; r++) {
    const texts = view.rowTexts(r, startCol, endCol);
    const isGroupRow = t.sparseHeader && r < startRow + t.headerRows - 1;
    if (isGroupRow) for (let k = 1; k < texts.length; k++) if (texts[k] === '') texts[k] = texts[k - 1]!;
    levels.push(texts);
  }
  const headers = levels[0]!.map((_, k) =>
    dedupeAdjacent(levels.map((l) => l[k]!).filter((s) => s !== '')).join(' / '),
  );
  const rows: string[][] = [];
  const rowNumbers: number[] = [];
  for (let r = startRow + t.headerRows; r <= endRow; r++) {
    const texts = view.rowTexts(r, startCol, endCol);
    if (texts.every((s) => s === '')) continue;
    rows.push(texts);
    rowNumbers.push(r);
  }
  const table: SheetTable = { id, ...range, headers, headerRows: t.headerRows, rows, rowNumbers };
  if (t.title) table.title = t.title;
  if (t.notes.length) table.notes = t.notes;
  return table;
}

function dedupeAdjacent(values: string[]): string[] {
  return values.filter((v, k) => k === 0 || v !== values[k - 1]);
}

function attachDetachedTitles(tables: DraftTable[], texts: DraftText[]): void {
  for (const text of texts) {
    if (text.kind !== 'text' || text.rect.startRow !== text.rect.endRow || text.text.includes('\n')) continue;
    let best: DraftTable | undefined;
    for (const t of tables) {
      if (t.title) continue;
      const gap = t.rect.startRow - text.rect.endRow - 1;
      if (gap < 0 || gap > 2) continue;
      if (text.rect.startCol > t.rect.endCol || text.rect.endCol < t.rect.startCol) continue;
      if (!best || t.rect.startRow < best.rect.startRow) best = t;
    }
    if (best) {
      best.title = text.text;
      text.kind = 'title';
      text.table = best;
    }
  }
}

function attachDetachedNotes(tables: DraftTable[], texts: DraftText[]): void {
  for (const text of texts) {
    if (text.kind !== 'text' || text.rect.endRow - text.rect.startRow > 2 || !NOTE_RE.test(text.text)) continue;
    let best: DraftTable | undefined;
    for (const t of tables) {
      const gap = text.rect.startRow - t.rect.endRow - 1;
      if (gap < 0 || gap > 2) continue;
      if (text.rect.startCol > t.rect.endCol || text.rect.endCol < t.rect.startCol) continue;
      if (!best || t.rect.endRow > best.rect.endRow) best = t;
    }
    if (best) {
      best.notes.push(text.text);
      text.kind = 'note';
      text.table = best;
    }
  }
}
