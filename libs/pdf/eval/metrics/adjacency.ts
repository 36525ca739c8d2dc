// The ICDAR-2013 table competition's structure measure: every non-empty cell is related to its
// nearest non-empty neighbour to the right and below (in each row/column a spanning cell covers),
// a relation being (text of the cell, text of the neighbour, direction). Precision and recall
// compare the relations of our table with the ground truth's as multisets of normalised texts,
// so they judge structure independently of where the table sits in the grid.
import { normCell } from './table-accuracy';

export interface SpanCell {
  row: number;
  col: number;
  rowSpan?: number;
  colSpan?: number;
  endRow?: number;
  endCol?: number;
  text: string;
}

export function adjacencyRelations(cells: SpanCell[]): string[] {
  const slot = new Map<string, number>();
  let rows = 0,
    cols = 0;
  const spans = cells.map((c) => {
    const r1 = c.endRow ?? c.row + (c.rowSpan ?? 1) - 1;
    const c1 = c.endCol ?? c.col + (c.colSpan ?? 1) - 1;
    rows = Math.max(rows, r1 + 1);
    cols = Math.max(cols, c1 + 1);
    return { r0: c.row, r1, c0: c.col, c1, text: normCell(c.text) };
  });
  spans.forEach((s, i) => {
    if (!s.text) return;
    for (let r = s.r0; r <= s.r1; r++) for (let c = s.c0; c <= s.c1; c++) slot.set(`${r},${c}`, i);
  });
  const out = new Set<string>();
  spans.forEach((s, i) => {
    if (!s.text) return;
    for (let r = s.r0; r <= s.r1; r++) {
      for (let c = s.c1 + 1; c < cols; c++) {
        const j = slot.get(`${r},${c}`);
        if (j !== undefined && j !== i) {
          out.add(`${i}>${j}|${s.text}→${spans[j]!.text}`);
          break;
        }
      }
    }
    for (let c = s.c0; c <= s.c1; c++) {
      for (let r = s.r1 + 1; r < rows; r++) {
        const j = slot.get(`${r},${c}`);
        if (j !== undefined && j !== i) {
          out.add(`${i}v${j}|${s.text}↓${spans[j]!.text}`);
          break;
        }
      }
    }
  });
  // Relations are compared by content and direction, not by cell index.
  return [...out].map((k) => k.slice(k.indexOf('|') + 1));
}

export interface AdjacencyScore {
  correct: number;
  ours: number;
  truth: number;
}

export function adjacencyScore(gt: SpanCell[], ours: SpanCell[]): AdjacencyScore {
  const truth = adjacencyRelations(gt);
  const mine = adjacencyRelations(ours);
  const pool = new Map<string, number>();
  for (const t of truth) pool.set(t, (pool.get(t) ?? 0) + 1);
  let correct = 0;
  for (const m of mine) {
    const n = pool.get(m) ?? 0;
    if (n > 0) {
      correct++;
      pool.set(m, n - 1);
    }
  }
  return { correct, ours: mine.length, truth: truth.length };
}

export const prf = (s: AdjacencyScore) => {
  const precision = s.ours ? s.correct / s.ours : s.truth ? 0 : 1;
  const recall = s.truth ? s.correct / s.truth : 1;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
};
