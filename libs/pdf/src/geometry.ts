// Boxes in page points with a top-left origin: every backend converts into this space first, so
// layout, tables and markdown never care whether words came from a text layer or from OCR.

export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export const emptyBox = (): Box => ({ x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity });

export function unionBox(a: Box, b: Box): Box {
  return { x0: Math.min(a.x0, b.x0), y0: Math.min(a.y0, b.y0), x1: Math.max(a.x1, b.x1), y1: Math.max(a.y1, b.y1) };
}

export function unionAll(boxes: Iterable<Box>): Box {
  let out = emptyBox();
  for (const b of boxes) out = unionBox(out, b);
  return out;
}

export const boxWidth = (b: Box): number => Math.max(0, b.x1 - b.x0);
export const boxHeight = (b: Box): number => Math.max(0, b.y1 - b.y0);
export const boxArea = (b: Box): number => boxWidth(b) * boxHeight(b);

export function intersect(a: Box, b: Box): Box {
  return { x0: Math.max(a.x0, b.x0), y0: Math.max(a.y0, b.y0), x1: Math.min(a.x1, b.x1), y1: Math.min(a.y1, b.y1) };
}

export const intersectionArea = (a: Box, b: Box): number => boxArea(intersect(a, b));

/** Fraction of `inner` that lies inside `outer`. */
export function coverage(inner: Box, outer: Box): number {
  const area = boxArea(inner);
  if (area <= 0) {
    const cx = (inner.x0 + inner.x1) / 2;
    const cy = (inner.y0 + inner.y1) / 2;
    return cx >= outer.x0 && cx <= outer.x1 && cy >= outer.y0 && cy <= outer.y1 ? 1 : 0;
  }
  return intersectionArea(inner, outer) / area;
}

export function centerInside(inner: Box, outer: Box, pad = 0): boolean {
  const cx = (inner.x0 + inner.x1) / 2;
  const cy = (inner.y0 + inner.y1) / 2;
  return cx >= outer.x0 - pad && cx <= outer.x1 + pad && cy >= outer.y0 - pad && cy <= outer.y1 + pad;
}

export function overlap1d(a0: number, a1: number, b0: number, b1: number): number {
  return Math.max(0, Math.min(a1, b1) - Math.max(a0, b0));
}

export function expand(b: Box, d: number): Box {
  return { x0: b.x0 - d, y0: b.y0 - d, x1: b.x1 + d, y1: b.y1 + d };
}

export function clipBox(b: Box, w: number, h: number): Box {
  return { x0: clamp(b.x0, 0, w), y0: clamp(b.y0, 0, h), x1: clamp(b.x1, 0, w), y1: clamp(b.y1, 0, h) };
}

export const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

/** Affine matrix [a, b, c, d, e, f] as used by PDF and pdf.js. */
export type Matrix = [number, number, number, number, number, number];

export function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[1] * n[2],
    m[0] * n[1] + m[1] * n[3],
    m[2] * n[0] + m[3] * n[2],
    m[2] * n[1] + m[3] * n[3],
    m[4] * n[0] + m[5] * n[2] + n[4],
    m[4] * n[1] + m[5] * n[3] + n[5],
  ];
}

export function applyPoint(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** Axis-aligned bounds of a rectangle after a transform. */
export function transformBox(m: Matrix, x0: number, y0: number, x1: number, y1: number): Box {
  const pts = [applyPoint(m, x0, y0), applyPoint(m, x1, y0), applyPoint(m, x0, y1), applyPoint(m, x1, y1)];
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  return { x0: Math.min(...xs), y0: Math.min(...ys), x1: Math.max(...xs), y1: Math.max(...ys) };
}

/**
 * Area of the union of boxes as a fraction of the page, on a 1000x1000 grid that stores the
 * covered *fraction* of each cell (max over boxes, so overlaps count once). Whole-cell rounding
 * would inflate every hairline to full cells: a ruled table measured 10% instead of ~4%.
 */
let gridBuf: Float32Array | undefined;
export function unionAreaFraction(boxes: Box[], w: number, h: number, cells = 1000): number {
  if (w <= 0 || h <= 0 || boxes.length === 0) return 0;
  if (!gridBuf || gridBuf.length !== cells * cells) gridBuf = new Float32Array(cells * cells);
  const grid = gridBuf;
  grid.fill(0);
  const sx = cells / w;
  const sy = cells / h;
  for (const raw of boxes) {
    const b = clipBox(raw, w, h);
    if (b.x1 <= b.x0 || b.y1 <= b.y0) continue;
    const gx0 = b.x0 * sx,
      gx1 = b.x1 * sx,
      gy0 = b.y0 * sy,
      gy1 = b.y1 * sy;
    const c0 = Math.floor(gx0),
      c1 = Math.min(cells - 1, Math.ceil(gx1) - 1);
    const r0 = Math.floor(gy0),
      r1 = Math.min(cells - 1, Math.ceil(gy1) - 1);
    for (let r = r0; r <= r1; r++) {
      const fy = Math.min(r + 1, gy1) - Math.max(r, gy0);
      const row = r * cells;
      for (let c = c0; c <= c1; c++) {
        const f = fy * (Math.min(c + 1, gx1) - Math.max(c, gx0));
        if (f > grid[row + c]!) grid[row + c] = f;
      }
    }
  }
  let on = 0;
  for (let i = 0; i < grid.length; i++) on += grid[i]!;
  return on / grid.length;
}
