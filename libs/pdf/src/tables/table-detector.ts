// Finds the tables on a page: ruled regions first (lattice, rule stacks), then aligned text
// without rulings. Returns tables in page points; callers remove the covered lines from the flow.
import { boxArea, centerInside, intersectionArea, type Box } from '../geometry';
import { detectFigures } from '../layout/figure-detector';
import { cleanRuns } from '../layout/line-builder';
import type { Line, PageLayoutInput, Ruling, TableModel } from '../types';
import { rowPhrases, textRows } from './alignment';
import { buildGridTable } from './grid-table';
import { findRulingRegions } from './ruling-regions';
import { CAPTION, mathShare, streamTableRegions } from './stream-tables';
import { toWords, type Word } from './words';

/** A detected table with the evidence it was built from, so pieces can be rebuilt as one. */
interface Found {
  t: TableModel;
  hRules: Ruling[];
  vRules: Ruling[];
  kind: 'lattice' | 'stack' | 'stream';
}

export function detectTables(input: PageLayoutInput, lines: Line[]): TableModel[] {
  const words = toWords(cleanRuns(input.runs));
  const g = input.graphics;
  const found: Found[] = [];
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
    if (t && !isChart(t, drawn)) {
      tables.push(t);
      found.push({ t, hRules: region.hRules, vRules: region.vRules, kind: region.kind });
    }
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
    if (t && !tables.some((o) => intersectionArea(o, t) > 0.2 * Math.min(boxArea(o), boxArea(t)))) {
      tables.push(t);
      found.push({ t, hRules: [], vRules: [], kind: 'stream' });
    }
  }
  const kept = new Set(dedupe(tables));
  return joinStackedPieces(
    found.filter((f) => kept.has(f.t)),
    lines,
    words,
    g.fillRects,
  );
}

function isChart(t: TableModel, figures: Box[]): boolean {
  // Rules around displayed math (fraction bars, matrices, diagrams with frames) are not a table.
  if (mathShare(t.cells.map((c) => c.text)) > 0.4) return true;
  const inFigure = figures.some((f) => intersectionArea(f, t) >= 0.5 * Math.min(boxArea(f), boxArea(t)));
  if (!inFigure) return false;
  // A lattice inside a chart whose cells hold no number at all carries a panel letter, a legend or
  // axis titles: a table drawn among curves would hold values.
  if (!t.cells.some((c) => /\d/.test(c.text))) return true;
  return t.cells.filter((c) => c.text).length < 0.7 * t.cells.length;
}

function dedupe(tables: TableModel[]): TableModel[] {
  const sorted = [...tables].sort((a, b) => boxArea(b) - boxArea(a));
  const out: TableModel[] = [];
  for (const t of sorted) if (!out.some((o) => intersectionArea(o, t) > 0.5 * boxArea(t))) out.push(t);
  return out.sort((a, b) => a.y0 - b.y0);
}

/**
 * One table is often found as several pieces stacked on top of each other: a ruled header above
 * an unruled body, or a body cut where a section label ("Sex", "Projected") stands alone in its
 * row or the row spacing opens up. Two vertically adjacent pieces are one table when they cover
 * the same horizontal extent, their column boundaries line up, and nothing but short labels lies
 * between them (a caption or a paragraph means a new table). The pieces are rebuilt as one grid
 * from their words and rules; when that grid is not a table, or loses the columns, they stay apart.
 * At least one piece must be unruled: two ruled grids one under the other are two tables.
 */
function joinStackedPieces(found: Found[], lines: Line[], words: Word[], fills: Box[]): TableModel[] {
  const list = [...found].sort((a, b) => a.t.y0 - b.t.y0);
  let changed = true;
  while (changed) {
    changed = false;
    for (let i = 0; i < list.length && !changed; i++) {
      const a = list[i]!;
      // The next piece below that shares the horizontal extent.
      const j = list.findIndex((b, k) => k > i && b.t.y0 >= a.t.y1 - 2 && xOverlap(a.t, b.t) > 0);
      if (j < 0) continue;
      const b = list[j]!;
      // Two ruled grids are two tables: each is closed by its own frame.
      if (a.kind !== 'stream' && b.kind !== 'stream') continue;
      if (!sameExtent(a.t, b.t) || !columnsAgree(a.t, b.t, words)) continue;
      if (!onlyLabelsBetween(a.t, b.t, lines)) continue;
      const region = {
        x0: Math.min(a.t.x0, b.t.x0),
        y0: a.t.y0,
        x1: Math.max(a.t.x1, b.t.x1),
        y1: b.t.y1,
      };
      const kind =
        a.kind === 'lattice' && b.kind === 'lattice'
          ? 'lattice'
          : a.kind === 'stream' && b.kind === 'stream'
            ? 'stream'
            : 'stack';
      const hRules = [...a.hRules, ...b.hRules],
        vRules = [...a.vRules, ...b.vRules];
      const t = buildGridTable({ region, hRules, vRules, words, fills, kind });
      if (!t || t.cols < 0.75 * Math.max(a.t.cols, b.t.cols) || t.rows < Math.max(a.t.rows, b.t.rows)) continue;
      list.splice(j, 1);
      list[i] = { t, hRules, vRules, kind };
      changed = true;
    }
  }
  return list.map((f) => f.t);
}

const xOverlap = (a: Box, b: Box) => Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0);

function sameExtent(a: Box, b: Box): boolean {
  const wa = a.x1 - a.x0,
    wb = b.x1 - b.x0;
  return xOverlap(a, b) >= 0.85 * Math.max(wa, wb);
}

/** Internal column boundaries of a table (left edges of cells that start after its first column). */
function colEdges(t: TableModel): number[] {
  const xs = new Set<number>();
  for (const c of t.cells) if (c.col > 0) xs.add(Math.round(c.x0 * 2) / 2);
  return [...xs].sort((p, q) => p - q);
}

/**
 * The pieces' columns line up: the piece with fewer columns has most of its column boundaries
 * where the other has one, or (a header over a body, whose boundaries sit elsewhere because its
 * labels are centred or span columns) few of the shorter piece's phrases cross the taller
 * piece's column boundaries.
 */
function columnsAgree(a: TableModel, b: TableModel, words: Word[]): boolean {
  const [few, many] = a.cols <= b.cols ? [a, b] : [b, a];
  const ef = colEdges(few),
    em = colEdges(many);
  if (!ef.length || !em.length) return false;
  const tol = Math.max(6, 0.02 * (many.x1 - many.x0));
  const hit = ef.filter((x) => em.some((y) => Math.abs(x - y) <= tol)).length;
  if (hit >= 0.6 * ef.length) return true;
  const [short, tall] = a.rows <= b.rows ? [a, b] : [b, a];
  const edges = colEdges(tall);
  const inside = words.filter((w) => centerInside(w, short));
  const phrases = textRows(inside).flatMap((r) => rowPhrases(r));
  if (phrases.length < 3) return false;
  const crossing = phrases.filter((p) => edges.some((x) => p.x0 < x - 1 && p.x1 > x + 1)).length;
  return crossing <= 0.25 * phrases.length;
}

/**
 * Between the pieces: at most a few short lines that start in the table's first columns (section
 * labels), no caption and no paragraph, and no more space than those lines and a blank row need.
 */
function onlyLabelsBetween(a: TableModel, b: TableModel, lines: Line[]): boolean {
  const x0 = Math.min(a.x0, b.x0),
    x1 = Math.max(a.x1, b.x1),
    w = x1 - x0;
  const between = lines.filter((l) => {
    const cy = (l.y0 + l.y1) / 2;
    return cy > a.y1 && cy < b.y0 && l.x1 > x0 && l.x0 < x1;
  });
  if (between.length > 3) return false;
  for (const l of between) {
    if (CAPTION.test(l.text) || l.text.length > 60 || l.x0 > x0 + 0.4 * w || l.x1 - l.x0 > 0.5 * w) return false;
  }
  const heights = [...a.cells, ...b.cells].filter((c) => c.text && c.rowSpan === 1).map((c) => c.y1 - c.y0);
  heights.sort((p, q) => p - q);
  const rowH = heights[Math.floor(heights.length / 2)] ?? 12;
  const used = between.reduce((n, l) => n + (l.y1 - l.y0), 0);
  return b.y0 - a.y1 <= used + 2.5 * rowH;
}
