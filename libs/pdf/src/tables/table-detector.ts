// Finds the tables on a page: ruled regions first (lattice, rule stacks), then aligned text
// without rulings. Returns tables in page points; callers remove the covered lines from the flow.
import { boxArea, centerInside, intersectionArea, type Box } from '../geometry';
import { detectFigures } from '../layout/figure-detector';
import { cleanRuns } from '../layout/line-builder';
import type { Line, PageLayoutInput, Ruling, TableModel } from '../types';
import { rowPhrases, textRows } from './alignment';
import { buildGridTable } from './grid-table';
import { findRulingRegions } from './ruling-regions';
import { aboveFigureCaption, CAPTION, groupLineRows, mathShare, streamTableRegions } from './stream-tables';
import { toWords, type Word } from './words';

/** A detected table with the evidence it was built from, so pieces can be rebuilt as one. */
interface Found {
  t: TableModel;
  /** The region the grid was built over (with its rules), to build it again. */
  region: Box;
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
  const captions = lines.filter((l) => CAPTION.test(l.text)).map((l) => (l.y0 + l.y1) / 2);
  const rows = groupLineRows(lines);
  for (const ruledRegion of findRulingRegions(g.hRules, g.vRules, input.width, input.height, captions)) {
    const region = ruledRegion.kind === 'stack' ? withHeaderAbove(ruledRegion, rows) : ruledRegion;
    // Two or three rules with labels at them right above a figure caption draw a figure (number
    // lines, a scale bar); a closed lattice is left to isChart.
    if (region.kind === 'stack' && aboveFigureCaption(region, rows)) continue;
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
      found.push({ t, region, hRules: region.hRules, vRules: region.vRules, kind: region.kind });
    }
  }
  // Labels and legends inside a drawn figure line up like cells but are not a table.
  const figures = detectFigures(g, input.width, input.height, textChars, tables);
  const free = lines.filter(
    (l) =>
      !tables.some((t) => intersectionArea(l, t) > 0.5 * boxArea(l)) &&
      !figures.some((f) => centerInside(l, f, 2 * l.size)),
  );
  const ruled = [...tables];
  const regions = streamTableRegions(free, input.width).flatMap((r) => cutUnderSideBySide(r, ruled, words));
  for (const region of regions) {
    const t = buildGridTable({ region, hRules: [], vRules: [], words, fills: g.fillRects, kind: 'stream' });
    if (t && !tables.some((o) => intersectionArea(o, t) > 0.2 * Math.min(boxArea(o), boxArea(t)))) {
      tables.push(t);
      found.push({ t, region, hRules: [], vRules: [], kind: 'stream' });
    }
  }
  const kept = new Set(dedupe(tables));
  return joinStackedPieces(
    found.filter((f) => kept.has(f.t)),
    lines,
    words,
    g.fillRects,
  ).map((f) => withMarksOnTheirLine(f, words, g.fillRects));
}

/**
 * Every table is built a second time with its script marks (superscripts, subscripts, footnote
 * marks: "43ᵃ", "27†", the "−1" of "s⁻¹", the "◦ ′ ′′" of a unit row) moved onto their base word's
 * line: set off the baseline, a mark can form a text row of its own and so a spurious table row.
 * The second build is kept only when it is still a table.
 */
function withMarksOnTheirLine(f: Found, words: Word[], fills: Box[]): TableModel {
  const moved = placeMarks(words, f.region);
  if (moved === words) return f.t;
  const t = buildGridTable({ region: f.region, hRules: f.hRules, vRules: f.vRules, words: moved, fills, kind: f.kind });
  return t && t.cols >= Math.min(2, f.t.cols) ? t : f.t;
}

const OPENS = /[([]$/,
  CLOSES = /^[)\]]/;

/**
 * The table's words with its marks on their base word's line (the same array when there is none).
 * A mark is smaller than the table's largest type, off its base word's baseline but overlapping the
 * base's box vertically, and starts within 0.3 em after the base ends (the base at least 1.1 times
 * the mark's size); or it follows a mark already placed, on that mark's baseline (the "1" of
 * "−1"); or it stands between two brackets of one line ("(◦ ′ ′′)").
 */
function placeMarks(words: Word[], region: Box): Word[] {
  const inside = words.filter((w) => centerInside(w, region, 1));
  if (inside.length < 2) return words;
  const maxSize = Math.max(...inside.map((w) => w.size));
  const offBaseline = (a: Word, b: Word) => Math.abs(a.baseline - b.baseline) > 0.1 * Math.min(a.size, b.size);
  const yOverlap = (a: Word, b: Word) => Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) > 0;
  const after = (m: Word, b: Word, em: number) => m.x0 - b.x1 >= -0.1 * em && m.x0 - b.x1 <= 0.3 * em;
  const candidates = inside.filter((w) => w.size < maxSize - 0.01).sort((a, b) => a.x0 - b.x0);
  if (!candidates.length) return words;
  /** A placed mark → the base word whose line it goes on. */
  const base = new Map<Word, Word>();
  for (const m of candidates) {
    let best: Word | undefined;
    for (const b of inside) {
      if (b === m || b.size < 1.1 * m.size || !offBaseline(m, b) || !yOverlap(m, b) || !after(m, b, b.size)) continue;
      if (!best || Math.abs(m.x0 - b.x1) < Math.abs(m.x0 - best.x1)) best = b;
    }
    if (!best)
      for (const [p, b] of base)
        if (!offBaseline(m, p) && after(m, p, b.size)) {
          best = b;
          break;
        }
    if (!best) {
      const level = inside.filter((w) => w !== m && w.size >= m.size && offBaseline(m, w) && yOverlap(m, w));
      const open = level
        .filter((w) => OPENS.test(w.text) && w.x1 <= m.x0 + 0.1 * w.size)
        .sort((a, b) => b.x1 - a.x1)[0];
      if (open) {
        const close = level.find((w) => CLOSES.test(w.text) && w.x0 >= m.x1 - 0.1 * w.size && !offBaseline(w, open));
        if (close) best = open;
      }
    }
    if (best) base.set(m, best);
  }
  if (!base.size) return words;
  return words.map((w) => {
    const b = base.get(w);
    return b ? { ...w, y0: b.y0, y1: b.y1, baseline: b.baseline } : w;
  });
}

/**
 * A rule stack without a top rule (a rule only under the header, as some journals set tables):
 * the header is the row of short labels right above the first rule, within the rules' extent.
 * A caption or a line of prose above a top rule is neither short nor split into labels.
 */
function withHeaderAbove<R extends Box>(region: R, rows: Line[][]): R {
  const above = rows.filter((r) => Math.max(...r.map((l) => l.y1)) <= region.y0 + 1);
  const row = above[above.length - 1];
  if (!row) return region;
  const labels = row.filter((l) => l.x1 > region.x0 && l.x0 < region.x1);
  const top = Math.min(...labels.map((l) => l.y0)),
    bottom = Math.max(...labels.map((l) => l.y1));
  if (labels.length < 3 || region.y0 - bottom > bottom - top) return region;
  const fits = labels.every(
    (l) => l.x0 >= region.x0 - 2 && l.x1 <= region.x1 + 2 && l.text.length <= 24 && !CAPTION.test(l.text),
  );
  return fits ? { ...region, y0: top - 0.5 } : region;
}

/**
 * Two ruled tables side by side, each continued below (or above) its rules by unruled rows: those
 * rows stand level across both tables and are found as one text run. When the run's words leave
 * the gap between the ruled tables empty, the run is cut there, so each part can join its own
 * table (joinStackedPieces).
 */
function cutUnderSideBySide(region: Box, ruled: TableModel[], words: Word[]): Box[] {
  const inside = words.filter((w) => centerInside(w, region));
  if (!inside.length) return [region];
  const sizes = inside.map((w) => w.y1 - w.y0).sort((a, b) => a - b);
  const reach = 2.5 * sizes[Math.floor(sizes.length / 2)]!;
  const near = ruled
    .filter(
      (t) =>
        xOverlap(t, region) > 0 &&
        ((t.y1 <= region.y0 + 2 && region.y0 - t.y1 < reach) || (t.y0 >= region.y1 - 2 && t.y0 - region.y1 < reach)),
    )
    .sort((a, b) => a.x0 - b.x0);
  const cuts: number[] = [];
  for (let i = 1; i < near.length; i++) {
    const lo = near[i - 1]!.x1,
      hi = near[i]!.x0;
    if (hi <= lo || inside.some((w) => w.x1 > lo && w.x0 < hi)) continue;
    cuts.push((lo + hi) / 2);
  }
  if (!cuts.length) return [region];
  // Each part as wide as its words: the gap between the tables stays open (a column gutter).
  const xs = [region.x0, ...cuts, region.x1];
  return xs.slice(1).flatMap((x1, i) => {
    const mine = inside.filter((w) => (w.x0 + w.x1) / 2 >= xs[i]! && (w.x0 + w.x1) / 2 < x1);
    if (!mine.length) return [];
    return [{ ...region, x0: Math.min(...mine.map((w) => w.x0)), x1: Math.max(...mine.map((w) => w.x1)) }];
  });
}

function isChart(t: TableModel, figures: Box[]): boolean {
  // Rules around displayed math (fraction bars, matrices, diagrams with frames) are not a table.
  if (mathShare(t.cells.map((c) => c.text)) > 0.4) return true;
  // A grid whose cells hold no letter and no digit (empty squares, one mark repeated: a drawn
  // grid, a board) carries no values.
  if (!t.cells.some((c) => /[\p{L}\p{N}]/u.test(c.text))) return true;
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
function joinStackedPieces(found: Found[], lines: Line[], words: Word[], fills: Box[]): Found[] {
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
      list[i] = { t, region, hRules, vRules, kind };
      changed = true;
    }
  }
  return list;
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
