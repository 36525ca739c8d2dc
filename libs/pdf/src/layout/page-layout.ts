// One page from runs + graphics to ordered elements: tables and figures are found first and
// take their text out of the flow; the rest becomes lines, blocks, typed elements in reading order.
import { boxArea, centerInside, expand, intersectionArea, type Box } from '../geometry';
import { termListRows } from '../tables/stream-tables';
import { detectTables } from '../tables/table-detector';
import type { Block, LayoutElement, Line, PageLayoutInput } from '../types';
import { blockText, buildBlocks, pageVocabulary } from './block-builder';
import { bodyFontSize, bodyIsMono, classifyBlock, marginalType, type PageStats } from './element-classifier';
import { detectFigures } from './figure-detector';
import { buildLines, makeLine } from './line-builder';
import { readingOrder } from './reading-order';

export function layoutPage(input: PageLayoutInput): LayoutElement[] {
  const lines = buildLines(input.runs);
  const textChars = input.runs.reduce((n, r) => n + r.text.length, 0);

  const tables = detectTables(input, lines);
  const tableBoxes: Box[] = tables.map((t) => expand(t, 1));
  const figures = detectFigures(input.graphics, input.width, input.height, textChars, tableBoxes);

  const inTable = (l: Line) => tableBoxes.some((t) => centerInside(l, t));
  const figureOf = (l: Line) =>
    figures.findIndex((f) => intersectionArea(l, f) > 0.6 * Math.max(boxArea(l), 0.01) || centerInside(l, f));
  const figureText: string[][] = figures.map(() => []);
  const figureLines: Line[][] = figures.map(() => []);
  const flow: Line[] = [];
  for (const l of lines) {
    if (inTable(l)) continue;
    const fi = figureOf(l);
    if (fi >= 0) figureLines[fi]!.push(l);
    else flow.push(l);
  }
  // Chart labels belong to the figure; a "figure" holding real prose is a designed page
  // (background art behind text), whose text must stay in the reading flow.
  // A captioned figure ("Figure 3-1 ...") is a diagram even when it holds a lot of text.
  figureLines.forEach((ls, i) => {
    const chars = ls.reduce((n, l) => n + l.text.length, 0);
    if (chars > 250 && !hasCaption(figures[i]!, flow)) flow.push(...ls);
    else figureText[i] = ls.map((l) => l.text);
  });

  const blocks = buildBlocks(joinTermRows(flow, input.width));
  const stats: PageStats = {
    width: input.width,
    height: input.height,
    bodySize: bodyFontSize(blocks),
    bodyMono: bodyIsMono(blocks),
    source: input.source,
    vocab: pageVocabulary(lines),
  };
  const headers: LayoutElement[] = [];
  const footers: LayoutElement[] = [];
  const body: Array<LayoutElement & { lineCount: number; rtl?: boolean }> = [];
  for (const b of blocks) {
    const marginal = marginalType(b, blocks, stats);
    if (marginal) {
      const el: LayoutElement = {
        x0: b.x0,
        y0: b.y0,
        x1: b.x1,
        y1: b.y1,
        type: marginal,
        text: blockText(b, stats.vocab),
        ...confOf(b),
      };
      (marginal === 'page_header' ? headers : footers).push(el);
      continue;
    }
    const rtl = b.lines.filter((l) => l.rtl).length > b.lines.length / 2;
    body.push({ ...classifyBlock(b, stats), lineCount: b.lines.length, ...(rtl ? { rtl } : {}) });
  }
  tables.forEach((t) =>
    body.push({
      x0: t.x0,
      y0: t.y0,
      x1: t.x1,
      y1: t.y1,
      type: 'table',
      text: tableText(t),
      table: t,
      lineCount: t.rows,
    }),
  );
  figures.forEach((f, i) => body.push({ ...f, type: 'figure', text: figureText[i]!.join(' '), lineCount: 3 }));

  const ordered = readingOrder(body).map(({ lineCount: _omit, rtl: _rtl, ...el }) => el);
  const byY = (a: LayoutElement, b: LayoutElement) => a.y0 - b.y0 || a.x0 - b.x0;
  return [...headers.sort(byY), ...ordered, ...footers.sort(byY)];
}

export const FIGURE_CAPTION = /^(figure|fig\.|chart|diagram|exhibit|illustration)\s*[0-9IVXA-Z]/i;

function hasCaption(fig: Box, flow: Line[]): boolean {
  // A caption's label may be cut from its number ("Figure" | "6. a) ...") where a column gutter,
  // found from the figure's own labels, runs between them: read it with the line next to it.
  const withNext = (l: Line) => {
    const next = flow
      .filter((m) => m !== l && Math.abs(m.y1 - l.y1) < 0.3 * l.size && m.x0 >= l.x1 - 1 && m.x0 - l.x1 < 2 * l.size)
      .sort((a, b) => a.x0 - b.x0)[0];
    return next ? `${l.text} ${next.text}` : l.text;
  };
  return flow.some(
    (l) =>
      l.x1 > fig.x0 &&
      l.x0 < fig.x1 &&
      (Math.abs(l.y0 - fig.y1) < 30 || Math.abs(fig.y0 - l.y1) < 30) &&
      FIGURE_CAPTION.test(withNext(l)),
  );
}

/** A table element's text: its rows, cells joined by " | ". */
export function tableText(t: { cells: Array<{ row: number; col: number; text: string }> }): string {
  const rows = new Map<number, string[]>();
  for (const c of t.cells)
    if (c.text) {
      const r = rows.get(c.row) ?? [];
      r.push(c.text);
      rows.set(c.row, r);
    }
  return [...rows.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, cs]) => cs.join(' | '))
    .join('\n');
}

function confOf(b: Block): { confidence?: number } {
  let s = 0,
    n = 0;
  for (const l of b.lines)
    for (const r of l.runs)
      if (r.conf !== undefined) {
        s += r.conf;
        n++;
      }
  return n ? { confidence: s / n } : {};
}

/**
 * Each row of a term list (term, definition) becomes one line, so the list reads row by row. Two
 * lists side by side (a symbol list set in two columns) are looked for in each column: rows across
 * the page hold four pieces, which is no list of two.
 */
function joinTermRows(flow: Line[], pageWidth: number): Line[] {
  const rows = sideBySide(flow).flatMap((part) => termListRows(part, pageWidth));
  if (!rows.length) return flow;
  const joined = new Set(rows.flat());
  const out = flow.filter((l) => !joined.has(l));
  for (const r of rows) out.push(makeLine(r.flatMap((l) => l.runs)));
  return out;
}

/**
 * The lines of a page split at a vertical gutter that (almost) no line crosses, when there is one
 * with a quarter of the lines or more on each side: the page's two columns. A line that runs into
 * the gutter (a superscript of the other column read into its row) goes with the side holding its
 * middle. One part when there is no such gutter.
 */
function sideBySide(lines: Line[]): Line[][] {
  if (lines.length < 8) return [lines];
  const x0 = Math.min(...lines.map((l) => l.x0)),
    x1 = Math.max(...lines.map((l) => l.x1));
  const allowed = Math.floor(0.03 * lines.length);
  let best: { x: number; crossing: number } | undefined;
  for (let x = Math.ceil(x0 + 0.25 * (x1 - x0)); x <= x1 - 0.25 * (x1 - x0); x++) {
    const crossing = lines.filter((l) => l.x0 < x && l.x1 > x).length;
    if (crossing <= allowed && (!best || crossing < best.crossing)) best = { x, crossing };
  }
  if (!best) return [lines];
  const left = lines.filter((l) => (l.x0 + l.x1) / 2 < best!.x);
  const right = lines.filter((l) => (l.x0 + l.x1) / 2 >= best!.x);
  return left.length >= 0.25 * lines.length && right.length >= 0.25 * lines.length ? [left, right] : [lines];
}
