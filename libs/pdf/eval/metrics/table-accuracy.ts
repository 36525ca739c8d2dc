// Table structure accuracy. A ground-truth cell counts as correct when our table has a cell with
// the same normalised text at the same (row, col), after the one grid offset that lines the two
// tables up best (our table may include a title row the ground truth leaves out, or vice versa).
export interface GtCell {
  row: number;
  col: number;
  text: string;
}
export interface OurCell {
  row: number;
  col: number;
  rowSpan?: number;
  colSpan?: number;
  text: string;
}

export const normCell = (s: string) =>
  s
    .replace(/\s+/g, '')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201C\u201D]/g, '"')
    .trim()
    .toLowerCase();

export interface CellScore {
  correct: number;
  total: number;
  accuracy: number;
  textRecall: number;
  offset: [number, number];
}

export function cellAccuracy(gt: GtCell[], ours: OurCell[]): CellScore {
  const gtCells = gt.filter((c) => normCell(c.text));
  const total = gtCells.length;
  if (total === 0) return { correct: 0, total: 0, accuracy: 1, textRecall: 1, offset: [0, 0] };
  const at = new Map<string, string>();
  const byText = new Map<string, OurCell[]>();
  for (const c of ours) {
    const t = normCell(c.text);
    if (!t) continue;
    at.set(`${c.row},${c.col}`, t);
    const list = byText.get(t) ?? [];
    list.push(c);
    byText.set(t, list);
  }
  // Candidate offsets from every text-equal pair; keep the one with the most positional matches.
  const votes = new Map<string, number>();
  for (const g of gtCells)
    for (const o of byText.get(normCell(g.text)) ?? []) {
      const k = `${o.row - g.row},${o.col - g.col}`;
      votes.set(k, (votes.get(k) ?? 0) + 1);
    }
  let best: [number, number] = [0, 0],
    bestCorrect = -1;
  const candidates = [...votes.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 10)
    .map(([k]) => k.split(',').map(Number) as [number, number]);
  if (!candidates.length) candidates.push([0, 0]);
  for (const [dr, dc] of candidates) {
    const correct = gtCells.filter((g) => at.get(`${g.row + dr},${g.col + dc}`) === normCell(g.text)).length;
    if (correct > bestCorrect) {
      bestCorrect = correct;
      best = [dr, dc];
    }
  }
  const textRecall = gtCells.filter((g) => byText.has(normCell(g.text))).length / total;
  return { correct: bestCorrect, total, accuracy: bestCorrect / total, textRecall, offset: best };
}

/** Grid (rows of strings, e.g. a CSV) → cells; empty strings are spanned or blank slots. */
export function gridToCells(grid: string[][]): GtCell[] {
  const out: GtCell[] = [];
  grid.forEach((row, r) => row.forEach((text, c) => out.push({ row: r, col: c, text })));
  return out;
}
