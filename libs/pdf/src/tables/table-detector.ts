// Finds the tables on a page: ruled regions first (lattice, rule stacks), then aligned text
// without rulings. Returns tables in page points; callers remove the covered lines from the flow.
import { boxArea, intersectionArea } from '../geometry';
import type { Line, PageLayoutInput, TableModel } from '../types';
import { buildGridTable } from './grid-table';
import { findRulingRegions } from './ruling-regions';
import { streamTableRegions } from './stream-tables';
import { toWords } from './words';

export function detectTables(input: PageLayoutInput, lines: Line[]): TableModel[] {
  const words = toWords(input.runs);
  const g = input.graphics;
  const tables: TableModel[] = [];
  for (const region of findRulingRegions(g.hRules, g.vRules, input.width, input.height)) {
    const t = buildGridTable({ region, hRules: region.hRules, vRules: region.vRules, words, fills: g.fillRects, kind: region.kind });
    if (t) tables.push(t);
  }
  const free = lines.filter((l) => !tables.some((t) => intersectionArea(l, t) > 0.5 * boxArea(l)));
  for (const region of streamTableRegions(free, input.width)) {
    const t = buildGridTable({ region, hRules: [], vRules: [], words, fills: g.fillRects, kind: 'stream' });
    if (t && !tables.some((o) => intersectionArea(o, t) > 0.2 * Math.min(boxArea(o), boxArea(t)))) tables.push(t);
  }
  return dedupe(tables);
}

function dedupe(tables: TableModel[]): TableModel[] {
  const sorted = [...tables].sort((a, b) => boxArea(b) - boxArea(a));
  const out: TableModel[] = [];
  for (const t of sorted) if (!out.some((o) => intersectionArea(o, t) > 0.5 * boxArea(t))) out.push(t);
  return out.sort((a, b) => a.y0 - b.y0);
}
