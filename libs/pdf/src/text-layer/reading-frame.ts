// Sideways pages (issue 21.6). A page shown with /Rotate 90, 180 or 270, or an upright page whose
// content is printed sideways (text matrices turned 90°), has most of its text running down, up or
// right-to-left in the coordinates of the page as displayed. Layout (lines, columns, tables) is
// written for text that runs left to right, so such a page is laid out in its reading frame: the
// displayed page turned so that its dominant text direction runs left to right. Text runs and
// graphics are mapped into that frame, and the elements found there are mapped back, so grounding
// boxes stay in the coordinates of the page as displayed.
import { applyPoint, multiply, transformBox, type Box, type Matrix } from '../geometry';
import type { LayoutElement, PageGraphics, Ruling } from '../types';

/** Direction text runs in, clockwise from left-to-right, in displayed (y-down) page space. */
export type Turn = 0 | 90 | 180 | 270;

export interface ReadingFrame {
  turn: Turn;
  /** Displayed page → reading frame. */
  toFrame: Matrix;
  /** Reading frame → displayed page. */
  toDisplay: Matrix;
  /** Size of the reading frame (the displayed size, swapped for 90 and 270). */
  width: number;
  height: number;
}

/** The 90° step a text matrix's baseline runs in (displayed space), or undefined when it is skewed. */
export function turnOf(m: Matrix): Turn | undefined {
  const len = Math.hypot(m[0], m[1]);
  if (!(len > 0)) return undefined;
  const dx = m[0] / len,
    dy = m[1] / len;
  const tol = 0.02;
  if (Math.abs(dy) < tol) return dx > 0 ? 0 : 180;
  if (Math.abs(dx) < tol) return dy > 0 ? 90 : 270;
  return undefined;
}

/**
 * The turn that most of the page's characters are set in. A page turns only when more of its
 * characters run in one other direction than left to right (a margin note or a sideways
 * identifier on an upright page does not turn it).
 */
export function dominantTurn(items: Array<{ m: Matrix; chars: number }>): Turn {
  const count = new Map<Turn, number>();
  for (const { m, chars } of items) {
    const t = turnOf(m);
    if (t !== undefined) count.set(t, (count.get(t) ?? 0) + chars);
  }
  let best: Turn = 0;
  for (const [t, n] of count) if (n > (count.get(best) ?? 0)) best = t;
  return best;
}

export function readingFrame(turn: Turn, width: number, height: number): ReadingFrame {
  // (x, y) displayed → (u, v) in the frame, chosen so the turn's direction maps to +u and the
  // letters' "up" to −v.
  let toFrame: Matrix;
  if (turn === 90) toFrame = [0, -1, 1, 0, 0, width];
  else if (turn === 270) toFrame = [0, 1, -1, 0, height, 0];
  else if (turn === 180) toFrame = [-1, 0, 0, -1, width, height];
  else toFrame = [1, 0, 0, 1, 0, 0];
  const sideways = turn === 90 || turn === 270;
  return {
    turn,
    toFrame,
    toDisplay: invert(toFrame),
    width: sideways ? height : width,
    height: sideways ? width : height,
  };
}

function invert(m: Matrix): Matrix {
  const det = m[0] * m[3] - m[1] * m[2];
  const a = m[3] / det,
    b = -m[1] / det,
    c = -m[2] / det,
    d = m[0] / det;
  return [a, b, c, d, -(m[4] * a + m[5] * c), -(m[4] * b + m[5] * d)];
}

/** Composes a text or viewport transform with the frame (the frame applied last). */
export const intoFrame = (m: Matrix, f: ReadingFrame): Matrix => (f.turn ? multiply(m, f.toFrame) : m);

const mapBox = <T extends Box>(b: T, m: Matrix): T => ({ ...b, ...transformBox(m, b.x0, b.y0, b.x1, b.y1) });

/** Graphics found in displayed space, mapped into the frame (rulings change axis on a quarter turn). */
export function graphicsIntoFrame(g: PageGraphics, f: ReadingFrame): PageGraphics {
  if (!f.turn) return g;
  const rule = (r: Ruling): Ruling => {
    const [x0, y0] = applyPoint(f.toFrame, r.x0, r.y0);
    const [x1, y1] = applyPoint(f.toFrame, r.x1, r.y1);
    return { x0: Math.min(x0, x1), y0: Math.min(y0, y1), x1: Math.max(x0, x1), y1: Math.max(y0, y1) };
  };
  const quarter = f.turn === 90 || f.turn === 270;
  const h = g.hRules.map(rule),
    v = g.vRules.map(rule);
  return {
    images: g.images.map((b) => mapBox(b, f.toFrame)),
    drawings: g.drawings.map((b) => mapBox(b, f.toFrame)),
    fillRects: g.fillRects.map((b) => mapBox(b, f.toFrame)),
    shapes: g.shapes.map((b) => mapBox(b, f.toFrame)),
    hRules: quarter ? v : h,
    vRules: quarter ? h : v,
  };
}

/** Elements laid out in the frame, with their boxes (and their table cells') on the displayed page. */
export function elementsToDisplay(elements: LayoutElement[], f: ReadingFrame): LayoutElement[] {
  if (!f.turn) return elements;
  return elements.map((e) => {
    const out = mapBox(e, f.toDisplay);
    if (e.table)
      out.table = {
        ...mapBox(e.table, f.toDisplay),
        cells: e.table.cells.map((c) => mapBox(c, f.toDisplay)),
      };
    return out;
  });
}
