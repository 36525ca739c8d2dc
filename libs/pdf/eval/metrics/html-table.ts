// HTML table (PubTabNet ground truth) → cells at their grid positions, honouring row/col spans.
import type { GtCell } from './table-accuracy';

const decode = (s: string) =>
  s
    .replace(/<[^>]+>/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/&nbsp;/g, ' ')
    .trim();

export function htmlTableCells(html: string): GtCell[] {
  const cells: GtCell[] = [];
  const taken = new Set<string>();
  [...html.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].forEach((tr, r) => {
    let c = 0;
    for (const td of tr[1]!.matchAll(/<t([dh])([^>]*)>([\s\S]*?)<\/t\1>/g)) {
      while (taken.has(`${r},${c}`)) c++;
      const rs = Number(/rowspan="?(\d+)/.exec(td[2]!)?.[1] ?? 1),
        cs = Number(/colspan="?(\d+)/.exec(td[2]!)?.[1] ?? 1);
      cells.push({ row: r, col: c, text: decode(td[3]!) });
      for (let i = 0; i < rs; i++) for (let j = 0; j < cs; j++) taken.add(`${r + i},${c + j}`);
      c += cs;
    }
  });
  return cells;
}
