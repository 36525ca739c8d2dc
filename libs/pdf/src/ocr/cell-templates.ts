// A table repeats its values: "0", "1.000", "5" stand in many cells of a table of figures. Where
// Tesseract reads one of them well and misreads another printing of the same value (the dotted
// zero of a 5-px font read "a" in one column and "0" in the next; "5" read "$"), the two cells'
// ink is the same picture. A cell of a column of figures whose reading is not a number takes the
// text of the cell, read as a number with confidence in the same table, whose ink it matches
// closely (normalised cross-correlation of the two cells' ink, scaled to one size), when no cell
// of another value matches it nearly as well.
import type { PixelBox } from './band-reread';
import type { GrayImage } from './preprocess';

/** A cell's ink: its tight box in the page's pixels and its pixels sampled onto a fixed grid. */
export interface CellInk {
  box: PixelBox;
  /** Darkness (255 − grey) sampled on GLYPH_H rows × `cols` columns, mean 0, unit length. */
  vec: Float64Array;
  cols: number;
}

/** Rows of the grid a cell's ink is sampled onto (the print is 5-10 px tall: a few times that). */
const GLYPH_H = 24;
/** Least correlation of a cell's ink with a template's for it to take the template's text. */
export const MATCH_NCC = 0.9;
/** Least lead of the best value's correlation over any other value's. */
export const MATCH_MARGIN = 0.04;
/** Ink widths (and heights) within this share of each other (at least 1.5 px) can be the same value. */
const SIZE_SLACK = 0.2;

/** The tight box of the pixels at or under `threshold` inside `b`, undefined for none. */
export function inkBox(gray: GrayImage, b: PixelBox, threshold: number): PixelBox | undefined {
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  for (let y = Math.max(0, Math.floor(b.y0)); y < Math.min(gray.height, Math.ceil(b.y1)); y++)
    for (let x = Math.max(0, Math.floor(b.x0)); x < Math.min(gray.width, Math.ceil(b.x1)); x++)
      if (gray.data[y * gray.width + x]! <= threshold) {
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
  return x1 < x0 ? undefined : { x0, y0, x1: x1 + 1, y1: y1 + 1 };
}

/** The ink of `box` (a tight box) sampled bilinearly onto GLYPH_H rows and `cols` columns. */
function sample(gray: GrayImage, box: PixelBox, cols: number): Float64Array {
  const out = new Float64Array(GLYPH_H * cols);
  const w = box.x1 - box.x0,
    h = box.y1 - box.y0;
  const at = (x: number, y: number) => {
    const xi = Math.min(gray.width - 1, Math.max(0, x)),
      yi = Math.min(gray.height - 1, Math.max(0, y));
    return 255 - gray.data[yi * gray.width + xi]!;
  };
  for (let r = 0; r < GLYPH_H; r++)
    for (let c = 0; c < cols; c++) {
      // Pixel centres: the grid's cell centres mapped into the box.
      const fx = box.x0 + ((c + 0.5) * w) / cols - 0.5,
        fy = box.y0 + ((r + 0.5) * h) / GLYPH_H - 0.5;
      const x = Math.floor(fx),
        y = Math.floor(fy),
        dx = fx - x,
        dy = fy - y;
      out[r * cols + c] =
        at(x, y) * (1 - dx) * (1 - dy) +
        at(x + 1, y) * dx * (1 - dy) +
        at(x, y + 1) * (1 - dx) * dy +
        at(x + 1, y + 1) * dx * dy;
    }
  let mean = 0;
  for (const v of out) mean += v;
  mean /= out.length;
  let norm = 0;
  for (let i = 0; i < out.length; i++) {
    out[i]! -= mean;
    norm += out[i]! ** 2;
  }
  norm = Math.sqrt(norm) || 1;
  for (let i = 0; i < out.length; i++) out[i]! /= norm;
  return out;
}

/** A cell's ink (inkBox of its box) sampled at the width `cols`; undefined when it has none. */
export function cellInk(gray: GrayImage, b: PixelBox, threshold: number, cols?: number): CellInk | undefined {
  const box = inkBox(gray, b, threshold);
  if (!box) return undefined;
  const n = cols ?? Math.max(2, Math.round((GLYPH_H * (box.x1 - box.x0)) / (box.y1 - box.y0)));
  return { box, vec: sample(gray, box, n), cols: n };
}

const near = (a: number, b: number) => Math.abs(a - b) <= Math.max(1.5, SIZE_SLACK * Math.max(a, b));

/**
 * Sub-pixel shifts (of the box's left/right and top/bottom edges together, and of its width) the
 * cell's ink is sampled at against a template: print of 5-7 px at another sub-pixel phase is a
 * blur of a different pixel pattern, and a whole-pixel tight box cannot say where its ink starts.
 */
const SHIFTS = [-0.5, 0, 0.5];

/** Correlation of two cells' ink (-1..1) at the best sub-pixel shift, or undefined when their sizes rule out one value. */
export function inkCorrelation(gray: GrayImage, a: CellInk, b: CellInk): number | undefined {
  const wa = a.box.x1 - a.box.x0,
    wb = b.box.x1 - b.box.x0,
    ha = a.box.y1 - a.box.y0,
    hb = b.box.y1 - b.box.y0;
  if (!near(wa, wb) || !near(ha, hb)) return undefined;
  let best = -Infinity;
  for (const va of shifted(gray, a, b.cols)) {
    let s = 0;
    for (let i = 0; i < va.length; i++) s += va[i]! * b.vec[i]!;
    if (s > best) best = s;
  }
  return best;
}

/** The cell's ink sampled at every shift (SHIFTS) at `cols` columns, kept on the cell for its next template. */
function shifted(
  gray: GrayImage,
  a: CellInk & { shifted?: Map<number, Float64Array[]> },
  cols: number,
): Float64Array[] {
  a.shifted ??= new Map();
  let out = a.shifted.get(cols);
  if (!out) {
    out = [];
    for (const dx of SHIFTS)
      for (const dy of SHIFTS)
        for (const dw of SHIFTS)
          out.push(
            sample(gray, { x0: a.box.x0 + dx, x1: a.box.x1 + dx + dw, y0: a.box.y0 + dy, y1: a.box.y1 + dy }, cols),
          );
    a.shifted.set(cols, out);
  }
  return out;
}

/**
 * The text a cell takes from the templates (cells of the table read as numbers with confidence),
 * or undefined: the best-matching template's text when its correlation is at least MATCH_NCC and
 * leads every template of another text by MATCH_MARGIN.
 */
export function matchTemplate(
  gray: GrayImage,
  cell: CellInk,
  templates: Array<{ text: string; ink: CellInk }>,
): { text: string; ncc: number } | undefined {
  const best = new Map<string, number>();
  for (const t of templates) {
    const r = inkCorrelation(gray, cell, t.ink);
    if (r !== undefined && r > (best.get(t.text) ?? -Infinity)) best.set(t.text, r);
  }
  const ranked = [...best].sort((a, b) => b[1] - a[1]);
  const [top, next] = ranked;
  if (!top || top[1] < MATCH_NCC) return undefined;
  if (next && top[1] - next[1] < MATCH_MARGIN) return undefined;
  return { text: top[0], ncc: top[1] };
}
