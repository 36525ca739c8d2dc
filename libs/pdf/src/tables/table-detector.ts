// Finds the tables on a page: ruled regions first (lattice, rule stacks), then aligned text
// without rulings. Returns tables in page points; callers remove the covered lines from the flow.
import { boxArea, centerInside, intersectionArea, type Box } from '../geometry';
import { detectFigures } from '../layout/figure-detector';
import { cleanRuns } from '../layout/line-builder';
import type { Line, PageLayoutInput, TableModel } from '../types';
import { buildGridTable } from './grid-table';
import { findRulingRegions } from './ruling-regions';
import { mathShare, streamTableRegions } from './stream-tables';
import { toWords } from './words';

export function detectTables(input: PageLayoutInput, lines: Line[]): TableModel[] {
  const words = toWords(cleanRuns(input.runs));
  const g = input.graphics;
  const tables: TableModel[] = [];
  const textChars = input.runs.reduce((n, r) => n + r.text.length, 0);
  // A chart's axes, ticks and grid lines form a lattice too; with curves drawn inside it and most
  // of its grid empty, it is a figure.
  const drawn = detectFigures(g, input.width, input.height, textChars, []);
  for (const region of findRulingRegions(g.hRules, g.vRules, input.width, input.height)) {
    const t = buildGridTable({
      region,
      hRules: region.hRules,
      vRules: region.vRules,
      words,
      fills: g.fillRects,
      kind: region.kind,
    });
    if (t && !isChart(t, drawn)) tables.push(t);
  }
  // Labels and legends inside a drawn figure line up like cells but are not a table.
  const figures = detectFigures(g, input.width, input.height, textChars, tables);
  const free = lines.filter(
    (l) =>
      !tables.some((t) => intersectionArea(l, t) > 0.5 * boxArea(l)) &&
      !figures.some((f) => centerInside(l, f, 2 * l.size)),
  );
  for (const region of streamTableRegions(free, input.width)) {
    const t = buildGridTable({ region, hRules: [], vRules: [], words, fills: g.fillRects, kind: 'stream' });
    if (t && !tables.some((o) => intersectionArea(o, t) > 0.2 * Math.min(boxArea(o), boxArea(t)))) tables.push(t);
  }
  return dedupe(tables);
}

function isChart(t: TableModel, figures: Box[]): boolean {
  // Rules around displayed math (fraction bars, matrices, diagrams with frames) are not a table.
  if (mathShare(t.cells.map((c) => c.text)) > 0.4) return true;
  const inFigure = figures.some((f) => intersectionArea(f, t) >= 0.5 * Math.min(boxArea(f), boxArea(t)));
  if (!inFigure) return false;
  return t.cells.filter((c) => c.text).length < 0.7 * t.cells.length;
}

function dedupe(tables: TableModel[]): TableModel[] {
  const sorted = [...tables].sort((a, b) => boxArea(b) - boxArea(a));
  const out: TableModel[] = [];
  for (const t of sorted) if (!out.some((o) => intersectionArea(o, t) > 0.5 * boxArea(t))) out.push(t);
  return out.sort((a, b) => a.y0 - b.y0);
}
