// Compact column-oriented storage of one sheet's non-empty cells. A streamed sheet lands here at
// about 20 bytes of typed arrays per cell plus a string pointer; the strings of shared-string
// cells are the reader's cached ones. exceljs' own Cell objects cost several hundred bytes each.
import { cellA1 } from './a1';
import type { FormatTable } from './cell-format';
import type { CellType, WorkbookCell } from './types';

export const KIND = {
  string: 1,
  number: 2,
  boolean: 3,
  date: 4,
  formula: 5,
  error: 6,
  richText: 7,
  hyperlink: 8,
} as const satisfies Record<CellType, number>;
const KIND_NAMES: CellType[] = [
  'string',
  'string',
  'number',
  'boolean',
  'date',
  'formula',
  'error',
  'richText',
  'hyperlink',
];

/** Kind of a formula's cached result (stored in `aux`). */
export const RESULT = { none: 0, number: 1, string: 2, boolean: 3, error: 4, date: 5 } as const;

function grow<T extends Int32Array | Uint8Array | Uint16Array | Float64Array>(a: T, size: number): T {
  const next = new (a.constructor as new (n: number) => T)(size);
  next.set(a);
  return next;
}

export class SheetStore {
  count = 0;
  row = new Int32Array(1024);
  col = new Int32Array(1024);
  kind = new Uint8Array(1024);
  aux = new Uint8Array(1024);
  fmt = new Uint16Array(1024);
  num = new Float64Array(1024);
  str: Array<string | undefined> = [];
  formula: Array<string | undefined> = [];
  hyperlink = new Map<number, string>();
  merges: string[] = [];
  /** Row-start offsets into the arrays, built by finish(). */
  rowNumbers = new Int32Array(0);
  rowOffsets = new Int32Array(0);
  minRow = 0;
  maxRow = 0;
  minCol = 0;
  maxCol = 0;
  private sorted = true;

  constructor(readonly formats: FormatTable) {}

  push(
    row: number,
    col: number,
    kind: number,
    num: number,
    str: string | undefined,
    fmt = 0,
    formula?: string,
    aux = 0,
  ): number {
    const i = this.count;
    if (i === this.row.length) {
      const size = i * 2;
      this.row = grow(this.row, size);
      this.col = grow(this.col, size);
      this.kind = grow(this.kind, size);
      this.aux = grow(this.aux, size);
      this.fmt = grow(this.fmt, size);
      this.num = grow(this.num, size);
    }
    if (i > 0) {
      const pr = this.row[i - 1]!;
      if (row < pr || (row === pr && col <= this.col[i - 1]!)) this.sorted = false;
    }
    this.row[i] = row;
    this.col[i] = col;
    this.kind[i] = kind;
    this.aux[i] = aux;
    this.fmt[i] = fmt;
    this.num[i] = num;
    if (str !== undefined) this.str[i] = str;
    if (formula !== undefined) this.formula[i] = formula;
    this.count = i + 1;
    return i;
  }

  /** Sorts (row, col) if the file listed cells out of order, drops duplicates, builds the row index. */
  finish(): void {
    if (!this.sorted) this.reorder();
    const rowNumbers: number[] = [];
    const rowOffsets: number[] = [];
    let minCol = Infinity;
    let maxCol = 0;
    for (let i = 0; i < this.count; i++) {
      const r = this.row[i]!;
      if (rowNumbers.length === 0 || rowNumbers[rowNumbers.length - 1] !== r) {
        rowNumbers.push(r);
        rowOffsets.push(i);
      }
      const c = this.col[i]!;
      if (c < minCol) minCol = c;
      if (c > maxCol) maxCol = c;
    }
    rowOffsets.push(this.count);
    this.shrink();
    this.rowNumbers = Int32Array.from(rowNumbers);
    this.rowOffsets = Int32Array.from(rowOffsets);
    this.minRow = rowNumbers[0] ?? 0;
    this.maxRow = rowNumbers[rowNumbers.length - 1] ?? 0;
    this.minCol = this.count ? minCol : 0;
    this.maxCol = maxCol;
  }

  /** Drops the spare capacity left by doubling. */
  private shrink(): void {
    const n = Math.max(this.count, 1);
    if (this.row.length === n) return;
    this.row = this.row.slice(0, n);
    this.col = this.col.slice(0, n);
    this.kind = this.kind.slice(0, n);
    this.aux = this.aux.slice(0, n);
    this.fmt = this.fmt.slice(0, n);
    this.num = this.num.slice(0, n);
  }

  /** Formula texts are needed for workbook_json only; the caller frees them once that is written. */
  releaseFormulas(): void {
    this.formula = [];
  }

  private reorder(): void {
    const n = this.count;
    const order = Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => this.row[a]! - this.row[b]! || this.col[a]! - this.col[b]! || a - b);
    // A repeated address keeps its last occurrence, as a spreadsheet application would.
    const keep: number[] = [];
    for (let k = 0; k < n; k++) {
      const i = order[k]!;
      const next = order[k + 1];
      if (next !== undefined && this.row[next] === this.row[i] && this.col[next] === this.col[i]) continue;
      keep.push(i);
    }
    const pick = <T extends Int32Array | Uint8Array | Uint16Array | Float64Array>(a: T): T => {
      const out = new (a.constructor as new (n: number) => T)(Math.max(keep.length, 1));
      keep.forEach((src, dst) => {
        out[dst] = a[src]!;
      });
      return out;
    };
    const hyper = new Map<number, string>();
    keep.forEach((src, dst) => {
      const h = this.hyperlink.get(src);
      if (h !== undefined) hyper.set(dst, h);
    });
    this.row = pick(this.row);
    this.col = pick(this.col);
    this.kind = pick(this.kind);
    this.aux = pick(this.aux);
    this.fmt = pick(this.fmt);
    this.num = pick(this.num);
    this.str = keep.map((i) => this.str[i]);
    this.formula = keep.map((i) => this.formula[i]);
    this.hyperlink = hyper;
    this.count = keep.length;
    this.sorted = true;
  }

  /** Index range [start, end) of the cells of sheet row r, or null when the row is empty. */
  rowRange(r: number): [number, number] | null {
    const rows = this.rowNumbers;
    let lo = 0;
    let hi = rows.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = rows[mid]!;
      if (v === r) return [this.rowOffsets[mid]!, this.rowOffsets[mid + 1]!];
      if (v < r) lo = mid + 1;
      else hi = mid - 1;
    }
    return null;
  }

  find(r: number, c: number): number {
    const range = this.rowRange(r);
    if (!range) return -1;
    let lo = range[0];
    let hi = range[1] - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const v = this.col[mid]!;
      if (v === c) return mid;
      if (v < c) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Display text of cell i. */
  text(i: number): string {
    const k = this.kind[i]!;
    switch (k) {
      // CSV numbers keep their source text ('1.50' stays '1.50').
      case KIND.number:
        return this.str[i] ?? this.formatNumber(i, this.num[i]!);
      case KIND.boolean:
        return this.num[i] ? 'TRUE' : 'FALSE';
      case KIND.date:
        return this.formatDateCell(i, this.num[i]!);
      case KIND.formula:
        return this.resultText(i);
      default:
        return this.str[i] ?? '';
    }
  }

  private formatNumber(i: number, n: number): string {
    return this.formats.numberText(this.fmt[i]!, n);
  }

  private formatDateCell(i: number, ms: number): string {
    return this.formats.dateText(this.fmt[i]!, ms);
  }

  private resultText(i: number): string {
    switch (this.aux[i]) {
      case RESULT.number:
        return this.formatNumber(i, this.num[i]!);
      case RESULT.date:
        return this.formatDateCell(i, this.num[i]!);
      case RESULT.boolean:
        return this.num[i] ? 'TRUE' : 'FALSE';
      case RESULT.string:
      case RESULT.error:
        return this.str[i] ?? '';
      // No cached result (files written by libraries that do not calculate): show the formula.
      default:
        return this.formula[i] ? `=${this.formula[i]}` : '';
    }
  }

  typeName(i: number): CellType {
    return KIND_NAMES[this.kind[i]!] ?? 'string';
  }

  private resultValue(i: number): string | number | boolean | null {
    switch (this.aux[i]) {
      case RESULT.number:
        return this.num[i]!;
      case RESULT.date:
        return new Date(this.num[i]!).toISOString();
      case RESULT.boolean:
        return this.num[i] !== 0;
      case RESULT.string:
      case RESULT.error:
        return this.str[i] ?? '';
      default:
        return null;
    }
  }

  toJson(i: number): WorkbookCell {
    const r = this.row[i]!;
    const c = this.col[i]!;
    const k = this.kind[i]!;
    const type = this.typeName(i);
    const text = this.text(i);
    let value: WorkbookCell['value'];
    switch (k) {
      case KIND.number:
        value = this.num[i]!;
        break;
      case KIND.boolean:
        value = this.num[i] !== 0;
        break;
      case KIND.date:
        value = new Date(this.num[i]!).toISOString();
        break;
      case KIND.formula:
        value = this.resultValue(i);
        break;
      default:
        value = this.str[i] ?? '';
    }
    const cell: WorkbookCell = { c, a1: cellA1(r, c), value, type, text };
    if (k === KIND.formula) {
      const f = this.formula[i];
      if (f) cell.formula = f;
      cell.result = value;
    }
    const link = this.hyperlink.get(i);
    if (link !== undefined) cell.hyperlink = link;
    return cell;
  }
}
