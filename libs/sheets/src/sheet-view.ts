// Merge-aware read access to a finished SheetStore: what a reader sees at (row, col), where a merged
// range shows its top-left value over the whole range.
import { parseRangeA1, type CellRect } from './a1';
import { KIND, RESULT, type SheetStore } from './sheet-store';

export interface MergeRef extends CellRect {
  /** Store index of the top-left cell. */
  anchor: number;
}

/** Merges larger than this are kept in workbook_json but do not spread their value. */
const MAX_MERGE_CELLS = 100_000;

export class SheetView {
  /** Merges that carry a value (anchor non-empty), by each row they cover. */
  private readonly mergesByRow = new Map<number, MergeRef[]>();
  readonly valueMerges: MergeRef[] = [];

  constructor(
    readonly store: SheetStore,
    warnings: string[] = [],
    sheetName = '',
  ) {
    for (const ref of store.merges) {
      const rect = parseRangeA1(ref);
      if (!rect) continue;
      const anchor = store.find(rect.startRow, rect.startCol);
      if (anchor < 0) continue;
      const cells = (rect.endRow - rect.startRow + 1) * (rect.endCol - rect.startCol + 1);
      if (cells > MAX_MERGE_CELLS) {
        warnings.push(
          `sheet '${sheetName}': merged range ${ref} spans ${cells} cells; its value is not repeated over the range`,
        );
        continue;
      }
      const m: MergeRef = { ...rect, anchor };
      this.valueMerges.push(m);
      for (let r = rect.startRow; r <= rect.endRow; r++) {
        const list = this.mergesByRow.get(r);
        if (list) list.push(m);
        else this.mergesByRow.set(r, [m]);
      }
    }
  }

  mergesInRow(r: number): MergeRef[] | undefined {
    return this.mergesByRow.get(r);
  }

  mergeRows(): number[] {
    return [...this.mergesByRow.keys()];
  }

  mergeAt(r: number, c: number): MergeRef | undefined {
    const list = this.mergesByRow.get(r);
    if (!list) return undefined;
    for (const m of list) if (c >= m.startCol && c <= m.endCol) return m;
    return undefined;
  }

  /** Store index of what shows at (r, c): the merge anchor for covered cells; -1 when empty. */
  indexAt(r: number, c: number): number {
    const m = this.mergeAt(r, c);
    if (m) return m.anchor;
    return this.store.find(r, c);
  }

  textAt(r: number, c: number): string {
    const i = this.indexAt(r, c);
    return i < 0 ? '' : cleanText(this.store.text(i));
  }

  /** True for cells a person reads as a label: strings (plain, rich, links) and string formula results. */
  isLabel(i: number): boolean {
    const k = this.store.kind[i];
    if (k === KIND.string || k === KIND.richText || k === KIND.hyperlink) return true;
    return k === KIND.formula && this.store.aux[i] === RESULT.string;
  }

  isNumeric(i: number): boolean {
    const k = this.store.kind[i];
    if (k === KIND.number || k === KIND.date) return true;
    return k === KIND.formula && (this.store.aux[i] === RESULT.number || this.store.aux[i] === RESULT.date);
  }

  /**
   * The distinct things shown in row r between c1 and c2: stored cells that are not hidden under a
   * merge, plus merge anchors (a merge counts once). Returned as store indices in column order.
   */
  logicalCells(r: number, c1: number, c2: number): number[] {
    const out: number[] = [];
    const range = this.store.rowRange(r);
    const merges = this.mergesByRow.get(r);
    if (range) {
      for (let i = lowerBound(this.store.col, range[0], range[1], c1); i < range[1]; i++) {
        const c = this.store.col[i]!;
        if (c > c2) break;
        if (merges) {
          const m = merges.find((mm) => c >= mm.startCol && c <= mm.endCol);
          if (m && m.anchor !== i) continue;
        }
        out.push(i);
      }
    }
    if (merges) {
      // A merge whose anchor lies above this row still shows its value here.
      for (const m of merges) {
        if (m.startRow !== r && m.endCol >= c1 && m.startCol <= c2 && !out.includes(m.anchor)) out.push(m.anchor);
      }
    }
    return out;
  }

  /** Texts of row r for columns c1..c2 (merged values repeated), trimmed. */
  rowTexts(r: number, c1: number, c2: number): string[] {
    const width = c2 - c1 + 1;
    const out = new Array<string>(width).fill('');
    const range = this.store.rowRange(r);
    if (range) {
      for (let i = lowerBound(this.store.col, range[0], range[1], c1); i < range[1]; i++) {
        const c = this.store.col[i]!;
        if (c > c2) break;
        out[c - c1] = cleanText(this.store.text(i));
      }
    }
    const merges = this.mergesByRow.get(r);
    if (merges) {
      for (const m of merges) {
        const text = cleanText(this.store.text(m.anchor));
        for (let c = Math.max(m.startCol, c1); c <= Math.min(m.endCol, c2); c++) out[c - c1] = text;
      }
    }
    return out;
  }

  /** Column extent [min, max] of what row r shows within c1..c2, or null when nothing. */
  rowExtent(r: number, c1: number, c2: number): [number, number] | null {
    let lo = Infinity;
    let hi = -Infinity;
    const range = this.store.rowRange(r);
    if (range) {
      for (let i = lowerBound(this.store.col, range[0], range[1], c1); i < range[1]; i++) {
        const c = this.store.col[i]!;
        if (c > c2) break;
        if (c < lo) lo = c;
        if (c > hi) hi = c;
      }
    }
    for (const m of this.mergesByRow.get(r) ?? []) {
      if (m.endCol < c1 || m.startCol > c2) continue;
      lo = Math.min(lo, Math.max(m.startCol, c1));
      hi = Math.max(hi, Math.min(m.endCol, c2));
    }
    return lo <= hi ? [lo, hi] : null;
  }
}

export function cleanText(s: string): string {
  return s.replace(/\r\n?/g, '\n').trim();
}

/** First index in [lo, hi) whose column is >= c (columns are sorted within a row). */
function lowerBound(cols: Int32Array, lo: number, hi: number, c: number): number {
  let a = lo;
  let b = hi;
  while (a < b) {
    const mid = (a + b) >> 1;
    if (cols[mid]! < c) a = mid + 1;
    else b = mid;
  }
  return a;
}
