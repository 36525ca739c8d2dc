// Reading several horizontal bands of a page again, larger, in one Tesseract run. A Tesseract run
// pays a process start and a model load, and its page analysis grows with the pixels it is given:
// a whole page upscaled ×1.65–2.55 (small text) costs 2–4× its first reading. The bands (the
// page's printed rows, full width) are cut out, upscaled, and stacked one under the other with
// white gaps, so the run sees only the rows' pixels, once, and each word comes back in the band it
// was read in and in the page's own pixels.
import fs from 'node:fs/promises';
import path from 'node:path';
import { crop, resizeGray, writePgm, type GrayImage } from './preprocess';
import { parseTsv, runTesseractTsv, startTesseractTsv, type TesseractRun } from './tesseract-tsv';
import type { OcrWord } from './recognise';

/** A horizontal band of the page, in its pixels (top inclusive, bottom exclusive). */
export interface Band {
  y0: number;
  y1: number;
}

export interface BandReadOptions {
  lang: string;
  timeoutSeconds: number;
  pageNumber: number;
  tmpDir: string;
  /** Tesseract's page segmentation for the run (6: each band is a block of lines of text). */
  psm?: number;
  /** --dpi of the upscaled pixels (0: Tesseract's own estimate). */
  dpi?: number;
  /** White rows between stacked bands (and above the first, below the last), in stacked pixels. */
  gap?: number;
  /** File name stem in tmpDir (distinct per concurrent call). */
  name?: string;
  /** Directory of the model to read with when not the system's (tessdata-best.ts). */
  tessdataDir?: string;
  /** Tesseract started beforehand with this call's arguments (startTesseractTsv): given the stack's file. */
  run?: TesseractRun;
}

/**
 * A Tesseract run for a stack of rows cut from a page, each read as a block of text (psm 6, the
 * resolution Tesseract's own estimate), started before the stack is written so that its model loads
 * meanwhile (the header and body re-reads).
 */
export const startStackRun = (opts: {
  lang: string;
  timeoutSeconds: number;
  pageNumber: number;
  /** Directory of the model when not the system's (tessdata-best.ts). */
  tessdataDir?: string;
}): TesseractRun => startTesseractTsv({ dpi: 0, psm: 6, ...opts });

/** The stacked image and where each band sits in it (top edge, in the stacked image's pixels). */
export interface BandStack {
  image: GrayImage;
  tops: number[];
  heights: number[];
  /** White columns left of every part (rectangles not at the page's left edge get a margin). */
  left: number;
}

/**
 * The bands of `img`, each upscaled by `scale` at the page's full width, stacked top to bottom with
 * a white gap of `gap` pixels (in the stacked image) above, between and below them.
 */
export function stackBands(img: GrayImage, bands: Band[], scale: number, gap: number): Promise<BandStack> {
  return stackRects(img, bands.map(fullWidth(img)), scale, gap);
}

/** A band as a rectangle across the whole width of `img`. */
const fullWidth =
  (img: GrayImage) =>
  (b: Band): PixelBox => ({ x0: 0, y0: b.y0, x1: img.width, y1: b.y1 });

/** A rectangle of the page in its pixels (left and top inclusive, right and bottom exclusive). */
export interface PixelBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * Rectangles of `img` (cells of a table, bands of a page), each upscaled by `scale`, stacked top
 * to bottom at the left edge with a white gap of `gap` pixels (in the stacked image) above, between
 * and below them.
 */
export async function stackRects(img: GrayImage, rects: PixelBox[], scale: number, gap: number): Promise<BandStack> {
  const parts: GrayImage[] = [];
  for (const r of rects) {
    const { x0, y0, x1, y1 } = pixelRect(img, r);
    const part = crop(img, { x: x0, y: y0, width: Math.max(1, x1 - x0), height: Math.max(1, y1 - y0) });
    parts.push(scale === 1 ? part : await resizeGray(part, scale));
  }
  const g = Math.max(0, Math.round(gap));
  const width = Math.max(1, ...parts.map((p) => p.width)) + (rects.some((r) => r.x0 > 0) ? 2 * g : 0);
  const left = rects.some((r) => r.x0 > 0) ? g : 0;
  const height = parts.reduce((h, p) => h + p.height + g, g);
  const data = Buffer.alloc(width * height, 255);
  const tops: number[] = [];
  let y = g;
  for (const p of parts) {
    tops.push(y);
    for (let r = 0; r < p.height; r++) p.data.copy(data, (y + r) * width + left, r * p.width, (r + 1) * p.width);
    y += p.height + g;
  }
  return { image: { width, height, channels: 1, data }, tops, heights: parts.map((p) => p.height), left };
}

/** A rectangle's whole pixels inside `img`. */
function pixelRect(img: GrayImage, r: PixelBox): PixelBox {
  return {
    x0: Math.max(0, Math.floor(r.x0)),
    y0: Math.max(0, Math.floor(r.y0)),
    x1: Math.min(img.width, Math.ceil(r.x1)),
    y1: Math.min(img.height, Math.ceil(r.y1)),
  };
}

/**
 * Reads the bands of `img` upscaled by `scale` in one Tesseract run; the words of band i (by the
 * middle of their box) come back in `result[i]`, boxes in `img`'s pixels. Words that straddle two
 * bands' slots or fall in a gap belong to the nearest band.
 */
export function readBands(img: GrayImage, bands: Band[], scale: number, opts: BandReadOptions): Promise<OcrWord[][]> {
  return readRects(img, bands.map(fullWidth(img)), scale, opts);
}

/** readBands for any rectangles of `img` (stackRects): words of rectangle i in `result[i]`, in `img`'s pixels. */
export async function readRects(
  img: GrayImage,
  rects: PixelBox[],
  scale: number,
  opts: BandReadOptions,
): Promise<OcrWord[][]> {
  const out: OcrWord[][] = rects.map(() => []);
  if (!rects.length) return out;
  const meanH = rects.reduce((s, b) => s + b.y1 - b.y0, 0) / rects.length;
  // By default a gap of most of a band's height keeps Tesseract from joining two bands' lines.
  const stack = await stackRects(img, rects, scale, opts.gap ?? Math.max(12, 0.75 * meanH * scale));
  const file = path.join(opts.tmpDir, `${opts.name ?? 'bands'}-${opts.pageNumber}.pgm`);
  await writePgm(file, stack.image);
  let tsv: string;
  try {
    tsv = opts.run
      ? await opts.run.recognize(file)
      : await runTesseractTsv(file, {
          dpi: opts.dpi ?? 0,
          lang: opts.lang,
          psm: opts.psm ?? 6,
          timeoutSeconds: opts.timeoutSeconds,
          pageNumber: opts.pageNumber,
          ...(opts.tessdataDir ? { tessdataDir: opts.tessdataDir } : {}),
        });
  } finally {
    await fs.rm(file, { force: true });
  }
  for (const w of parseTsv(tsv).words) {
    const text = w.text.trim();
    if (!text) continue;
    const mid = w.top + w.height / 2;
    let i = 0,
      best = Infinity;
    stack.tops.forEach((top, j) => {
      const d = mid < top ? top - mid : mid > top + stack.heights[j]! ? mid - top - stack.heights[j]! : 0;
      if (d < best) {
        best = d;
        i = j;
      }
    });
    const top = stack.tops[i]!,
      { x0, y0 } = pixelRect(img, rects[i]!);
    out[i]!.push({
      text,
      conf: w.conf,
      x0: x0 + (w.left - stack.left) / scale,
      x1: x0 + (w.left + w.width - stack.left) / scale,
      y0: y0 + (w.top - top) / scale,
      y1: y0 + (w.top + w.height - top) / scale,
      block: w.block,
      par: w.par,
      line: w.line,
    });
  }
  return out;
}
