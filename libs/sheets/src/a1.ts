// A1 notation helpers. Rows and columns are 1-based, as Excel shows them.

const MAX_COL = 16384;

export function colToLetters(col: number): string {
  let n = col;
  let out = '';
  while (n > 0) {
    const rem = (n - 1) % 26;
    out = String.fromCharCode(65 + rem) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

export function lettersToCol(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) {
    const code = ch.charCodeAt(0);
    if (code < 65 || code > 90) return NaN;
    n = n * 26 + (code - 64);
  }
  return n;
}

export function cellA1(row: number, col: number): string {
  return `${colToLetters(col)}${row}`;
}

export interface CellRect {
  startRow: number;
  endRow: number;
  startCol: number;
  endCol: number;
}

export function rangeA1(rect: CellRect): string {
  const a = cellA1(rect.startRow, rect.startCol);
  const b = cellA1(rect.endRow, rect.endCol);
  return a === b ? a : `${a}:${b}`;
}

/** Sheet names that are not plain identifiers are quoted, with inner quotes doubled, as Excel does. */
export function quoteSheetName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_.]*$/.test(name) && !/^[A-Za-z]{1,3}\d+$/.test(name)
    ? name
    : `'${name.replace(/'/g, "''")}'`;
}

export function qualifiedRangeA1(sheetName: string, rect: CellRect): string {
  return `${quoteSheetName(sheetName)}!${rangeA1(rect)}`;
}

const CELL_RE = /^\$?([A-Za-z]{1,3})\$?(\d{1,7})$/;

export function parseCellA1(ref: string): { row: number; col: number } | null {
  const m = CELL_RE.exec(ref.trim());
  if (!m) return null;
  const col = lettersToCol(m[1]!);
  const row = Number(m[2]);
  if (!(col >= 1 && col <= MAX_COL && row >= 1)) return null;
  return { row, col };
}

/** Parses 'B2:D9' or 'B2' into a rectangle; returns null for anything else (whole-column refs etc.). */
export function parseRangeA1(ref: string): CellRect | null {
  const [a, b] = ref.split(':');
  const p = parseCellA1(a ?? '');
  const q = b === undefined ? p : parseCellA1(b);
  if (!p || !q) return null;
  return {
    startRow: Math.min(p.row, q.row),
    endRow: Math.max(p.row, q.row),
    startCol: Math.min(p.col, q.col),
    endCol: Math.max(p.col, q.col),
  };
}
