// How many top rows are header rows. Evidence, strongest first: shading over the top rows,
// bold text, the first inner rule of a booktabs stack, text-over-numbers.
import type { Box } from '../geometry';
import type { Ruling, TableCellModel } from '../types';

const NUMERIC = /^[\s$€£¥%()+\-–—.,0-9△▲▼*/]+$/;

export function detectHeaderRows(
  cells: TableCellModel[],
  rows: number,
  hRules: Ruling[],
  rowYs: number[],
  fills: Box[],
  kind: string,
): number {
  if (rows < 2) return 0;
  const rowCells = (r: number) => cells.filter((c) => c.row === r && c.text);
  const limit = Math.max(1, Math.floor(rows / 2));

  // Shading that covers the first row (and maybe more) but not the whole table.
  const top = rowYs[0]!;
  for (const f of fills) {
    if (Math.abs(f.y0 - top) > 3 && !(f.y0 < top + 1 && f.y1 > rowYs[1]! - 1)) continue;
    let n = 0;
    while (n < rows && f.y1 >= rowYs[n + 1]! - 2) n++;
    if (
      n >= 1 &&
      n <= limit &&
      f.x1 - f.x0 >
        0.5 * (cells.reduce((m, c) => Math.max(m, c.x1), 0) - cells.reduce((m, c) => Math.min(m, c.x0), Infinity))
    )
      return n;
  }

  if (kind === 'stack') {
    const inner = hRules
      .map((r) => r.y0)
      .filter((y) => y > top + 2)
      .sort((a, b) => a - b);
    if (inner.length >= 2) {
      const n = rowYs.findIndex((y) => y >= inner[0]! - 2.5);
      if (n >= 1 && n <= limit) return n;
    }
  }

  // Spanning cells in the top rows are almost always group headers.
  let spanRows = 0;
  while (spanRows < limit && rowCells(spanRows).some((c) => c.colSpan > 1) && rowCells(spanRows).length > 0) spanRows++;

  const numericShare = (r: number) => {
    const cs = rowCells(r);
    return cs.length ? cs.filter((c) => NUMERIC.test(c.text)).length / cs.length : 0;
  };
  let n = spanRows;
  const bodyNumeric = Array.from({ length: rows }, (_, r) => r).filter((r) => r > n && numericShare(r) >= 0.4).length;
  if (numericShare(n) < 0.2 && bodyNumeric >= Math.max(1, (rows - n - 1) * 0.5)) n++;
  return Math.min(n, limit);
}
