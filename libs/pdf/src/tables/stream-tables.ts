// Tables without rulings: runs of consecutive text rows that split into several aligned
// fragments. Two-column prose also has two fragments per row, so long fragments in exactly
// two columns are rejected.
import type { Box } from '../geometry';
import type { Line } from '../types';

export function streamTableRegions(lines: Line[], pageWidth: number): Box[] {
  const rows = groupLineRows(lines);
  const regions: Box[] = [];
  let run: Line[][] = [];
  let singles = 0;
  const flush = () => {
    // Trailing single-fragment rows are not part of the table.
    while (run.length && run[run.length - 1]!.length < 2) run.pop();
    const multi = run.filter((r) => r.length >= 2);
    if (multi.length >= 3 && !looksLikeProse(multi, pageWidth)) {
      const all = run.flat();
      regions.push({
        x0: Math.min(...all.map((l) => l.x0)), y0: Math.min(...all.map((l) => l.y0)),
        x1: Math.max(...all.map((l) => l.x1)), y1: Math.max(...all.map((l) => l.y1)),
      });
    }
    run = []; singles = 0;
  };
  let prevBottom = -Infinity;
  for (const row of rows) {
    const top = Math.min(...row.map((l) => l.y0));
    const h = Math.max(...row.map((l) => l.y1 - l.y0));
    if (run.length && top - prevBottom > 1.6 * h) flush();
    if (row.length >= 2) { run.push(row); singles = 0; }
    else if (run.length && singles < 1 && row[0]!.text.length < 60) { run.push(row); singles++; }
    else flush();
    prevBottom = Math.max(...row.map((l) => l.y1));
  }
  flush();
  return regions;
}

function looksLikeProse(rows: Line[][], pageWidth: number): boolean {
  const frags = rows.flat();
  const avgLen = frags.reduce((s, l) => s + l.text.length, 0) / frags.length;
  const maxCols = Math.max(...rows.map((r) => r.length));
  const wide = frags.filter((l) => l.x1 - l.x0 > pageWidth * 0.3).length / frags.length;
  return (maxCols <= 2 && avgLen > 35) || wide > 0.5;
}

function groupLineRows(lines: Line[]): Line[][] {
  const sorted = [...lines].filter((l) => !l.runs.some((r) => r.rotated)).sort((a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2);
  const rows: Array<{ lines: Line[]; y0: number; y1: number }> = [];
  for (const l of sorted) {
    const last = rows[rows.length - 1];
    const ov = last ? Math.min(last.y1, l.y1) - Math.max(last.y0, l.y0) : 0;
    if (last && ov > 0.5 * Math.min(last.y1 - last.y0, l.y1 - l.y0)) { last.lines.push(l); last.y0 = Math.min(last.y0, l.y0); last.y1 = Math.max(last.y1, l.y1); }
    else rows.push({ lines: [l], y0: l.y0, y1: l.y1 });
  }
  return rows.map((r) => r.lines.sort((a, b) => a.x0 - b.x0));
}
