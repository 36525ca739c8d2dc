// Ruling lines in a scanned page: long runs of dark pixels, horizontal and vertical. They give
// scanned tables the same lattice evidence a PDF's vector rulings give (and are erased before a
// table region is re-read, since lines confuse Tesseract's segmentation).
import type { RawImage } from '../render/ppm';
import type { Ruling } from '../types';

export interface RasterLine {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  thickness: number;
}

const DARK = 140;

/**
 * Lines in raster pixels. Minimum lengths (1/2 inch across, 1/4 inch down) sit above the
 * strokes of large bold letters but below any real table rule.
 */
export function detectRasterLines(img: RawImage, dpi: number): { h: RasterLine[]; v: RasterLine[] } {
  if (img.channels !== 1) throw new Error('detectRasterLines expects a greyscale raster');
  const minLen = Math.max(20, Math.round(dpi / 2));
  const minLenV = Math.max(15, Math.round(dpi / 4));
  const maxThick = Math.max(3, Math.round(dpi / 18));
  const { width: w, height: h, data } = img;
  const hSegs: Array<[number, number, number]> = []; // x0, x1, y
  const vSegs: Array<[number, number, number]> = []; // y0, y1, x
  const vStart = new Int32Array(w).fill(-1);
  const vGap = new Int32Array(w);
  for (let y = 0; y < h; y++) {
    let start = -1,
      gap = 0;
    const row = y * w;
    for (let x = 0; x <= w; x++) {
      const dark = x < w && data[row + x]! < DARK;
      // Horizontal runs, tolerating 2-pixel breaks from scanning noise.
      if (dark) {
        if (start < 0) start = x;
        gap = 0;
      } else if (start >= 0 && ++gap > 2) {
        const end = x - gap;
        if (end - start >= minLen) hSegs.push([start, end, y]);
        start = -1;
        gap = 0;
      }
      if (x === w) {
        if (start >= 0 && w - start >= minLen) hSegs.push([start, w - 1, y]);
        break;
      }
      // Vertical runs, tracked per column.
      if (dark) {
        if (vStart[x]! < 0) vStart[x] = y;
        vGap[x] = 0;
      } else if (vStart[x]! >= 0 && ++vGap[x]! > 2) {
        const end = y - vGap[x]!;
        if (end - vStart[x]! >= minLenV) vSegs.push([vStart[x]!, end, x]);
        vStart[x] = -1;
        vGap[x] = 0;
      }
    }
  }
  for (let x = 0; x < w; x++) if (vStart[x]! >= 0 && h - vStart[x]! >= minLenV) vSegs.push([vStart[x]!, h - 1, x]);
  const hLines = mergeAdjacent(hSegs, maxThick).map(([a, b, c0, c1]) => ({
    x0: a,
    x1: b,
    y0: (c0 + c1) / 2,
    y1: (c0 + c1) / 2,
    thickness: c1 - c0 + 1,
  }));
  const vLines = mergeAdjacent(vSegs, maxThick).map(([a, b, c0, c1]) => ({
    y0: a,
    y1: b,
    x0: (c0 + c1) / 2,
    x1: (c0 + c1) / 2,
    thickness: c1 - c0 + 1,
  }));
  // Letter strokes of big type can pass the length test; a real rule meets a perpendicular rule.
  const meets = (a: RasterLine, b: RasterLine, tol: number) =>
    b.x0 >= a.x0 - tol && b.x0 <= a.x1 + tol && a.y0 >= b.y0 - tol && a.y0 <= b.y1 + tol;
  const tol = Math.max(4, Math.round(dpi / 50));
  return {
    h: hLines.filter((hl) => vLines.some((vl) => meets(hl, vl, tol)) || hl.x1 - hl.x0 >= 3 * minLen),
    v: vLines.filter((vl) => hLines.some((hl) => meets(hl, vl, tol))),
  };
}

/** Joins runs on neighbouring rows/columns into one line; too-thick bands are fills, not lines. */
function mergeAdjacent(
  segs: Array<[number, number, number]>,
  maxThick: number,
): Array<[number, number, number, number]> {
  segs.sort((p, q) => p[2] - q[2] || p[0] - q[0]);
  const open: Array<[number, number, number, number]> = []; // a, b, firstCross, lastCross
  const done: Array<[number, number, number, number]> = [];
  for (const [a, b, c] of segs) {
    const hit = open.find(
      (o) => c - o[3] <= 1 && Math.min(o[1], b) - Math.max(o[0], a) > 0.5 * Math.min(o[1] - o[0], b - a),
    );
    if (hit) {
      hit[0] = Math.min(hit[0], a);
      hit[1] = Math.max(hit[1], b);
      hit[3] = c;
    } else open.push([a, b, c, c]);
    for (let i = open.length - 1; i >= 0; i--) if (c - open[i]![3] > 1) done.push(...open.splice(i, 1));
  }
  done.push(...open);
  return done.filter((l) => l[3] - l[2] + 1 <= maxThick);
}

export function toRulings(lines: RasterLine[], dpi: number): Ruling[] {
  const k = 72 / dpi;
  return lines.map((l) => ({ x0: l.x0 * k, y0: l.y0 * k, x1: l.x1 * k, y1: l.y1 * k }));
}

/** Copy of a raster region with the given lines painted white. */
export function eraseLines(
  img: RawImage,
  lines: RasterLine[],
  region: { left: number; top: number; width: number; height: number },
): RawImage {
  const out = Buffer.alloc(region.width * region.height);
  for (let y = 0; y < region.height; y++) {
    const src = (region.top + y) * img.width + region.left;
    img.data.copy(out, y * region.width, src, src + region.width);
  }
  for (const l of lines) {
    const pad = Math.ceil(l.thickness / 2) + 1;
    const x0 = Math.max(0, Math.floor(l.x0 - pad - region.left)),
      x1 = Math.min(region.width - 1, Math.ceil(l.x1 + pad - region.left));
    const y0 = Math.max(0, Math.floor(l.y0 - pad - region.top)),
      y1 = Math.min(region.height - 1, Math.ceil(l.y1 + pad - region.top));
    // A ruling that lies outside the region (a page-wide line beside a cropped cell) erases nothing.
    if (x0 > x1 || y0 > y1) continue;
    for (let y = y0; y <= y1; y++) out.fill(255, y * region.width + x0, y * region.width + x1 + 1);
  }
  return { width: region.width, height: region.height, channels: 1, data: out };
}
