// Greyscale raster clean-up before Tesseract, each step decided from the pixels of the page:
// dark scanner borders and margins cropped, dashed and dotted separator rules (receipts print
// them between sections) whitened so they are not read as rows of letters, and the variants a
// failed first reading is retried with (contrast-stretched and binarised, inverted).
import fs from 'node:fs/promises';
import sharp from 'sharp';
import type { RawImage } from '../render/ppm';

export interface GrayImage extends RawImage {
  channels: 1;
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Luma (Rec. 601 weights, truncated to an integer). Every byte of the result is written, so it is not
 * zero-filled first; `| 0` truncates as the store into a byte array would, without the double's conversion.
 */
export function toGray(img: RawImage): GrayImage {
  if (img.channels === 1) return img as GrayImage;
  const n = img.width * img.height;
  const out = Buffer.allocUnsafe(n);
  const d = img.data;
  for (let i = 0, j = 0; i < n; i++, j += 3) out[i] = ((d[j]! * 299 + d[j + 1]! * 587 + d[j + 2]! * 114) / 1000) | 0;
  return { width: img.width, height: img.height, channels: 1, data: out };
}

/** Otsu's threshold over the histogram (optionally of a sub-rectangle). */
export function otsuThreshold(img: GrayImage, r: Rect = { x: 0, y: 0, width: img.width, height: img.height }): number {
  const step = Math.max(1, Math.floor(Math.sqrt((r.width * r.height) / 1_000_000)));
  return otsuOfHistogram(histogram(img, r, step));
}

/** The level that best splits a histogram of grey levels into two classes (Otsu's method; 128 for an empty one). */
export function otsuOfHistogram(hist: ArrayLike<number>): number {
  let total = 0,
    sum = 0;
  for (let i = 0; i < 256; i++) {
    total += hist[i]!;
    sum += i * hist[i]!;
  }
  let wB = 0,
    sumB = 0,
    best = 0,
    t = 128;
  for (let i = 0; i < 256; i++) {
    wB += hist[i]!;
    if (!wB) continue;
    const wF = total - wB;
    if (!wF) break;
    sumB += i * hist[i]!;
    const mB = sumB / wB,
      mF = (sum - sumB) / wF;
    const between = wB * wF * (mB - mF) ** 2;
    if (between > best) {
      best = between;
      t = i;
    }
  }
  return t;
}

/**
 * Pixel counts per grey level over every `step`-th pixel of every `step`-th row of `r`. Without
 * sampling, four counts run side by side (one per pixel of four) so that neighbouring pixels of the
 * same level do not wait on each other's increment, and are added up at the end.
 */
function histogram(img: GrayImage, r: Rect, step: number): Uint32Array {
  const d = img.data;
  const h4 = new Uint32Array(step === 1 ? 1024 : 256);
  for (let y = r.y; y < r.y + r.height; y += step) {
    const end = y * img.width + r.x + r.width;
    let k = y * img.width + r.x;
    if (step === 1) {
      for (; k + 3 < end; k += 4) {
        h4[d[k]!]!++;
        h4[256 + d[k + 1]!]!++;
        h4[512 + d[k + 2]!]!++;
        h4[768 + d[k + 3]!]!++;
      }
      for (; k < end; k++) h4[d[k]!]!++;
    } else for (; k < end; k += step) h4[d[k]!]!++;
  }
  if (step !== 1) return h4;
  const hist = new Uint32Array(256);
  for (let i = 0; i < 256; i++) hist[i] = h4[i]! + h4[256 + i]! + h4[512 + i]! + h4[768 + i]!;
  return hist;
}

/** Share of pixels darker than the threshold. */
export function inkShare(img: GrayImage, threshold = otsuThreshold(img)): number {
  let n = 0,
    dark = 0;
  const step = Math.max(1, Math.floor(Math.sqrt((img.width * img.height) / 500_000)));
  for (let y = 0; y < img.height; y += step) {
    const row = y * img.width;
    for (let x = 0; x < img.width; x += step) {
      n++;
      if (img.data[row + x]! <= threshold) dark++;
    }
  }
  return n ? dark / n : 0;
}

export function meanBrightness(img: GrayImage): number {
  let s = 0,
    n = 0;
  const step = Math.max(1, Math.floor(Math.sqrt((img.width * img.height) / 500_000)));
  for (let y = 0; y < img.height; y += step) {
    const row = y * img.width;
    for (let x = 0; x < img.width; x += step) {
      s += img.data[row + x]!;
      n++;
    }
  }
  return n ? s / n : 255;
}

/**
 * The paper inside dark scanner borders: from each edge, rows (columns) that are mostly dark are
 * border, up to the first mostly light one. Nothing is cropped when the borders would take more
 * than 40% of a side (a dark page is not a border) or when there are none.
 */
export function paperRect(img: GrayImage): Rect {
  const { width: w, height: h, data } = img;
  const full = { x: 0, y: 0, width: w, height: h };
  if (w < 32 || h < 32) return full;
  // "Dark" relative to the paper: well below the page's bright level.
  const paper = brightLevel(img);
  const dark = Math.min(110, paper * 0.55);
  const rowDark = (y: number, x0: number, x1: number) => {
    let n = 0;
    const row = y * w;
    for (let x = x0; x < x1; x += 2) if (data[row + x]! < dark) n++;
    return n / Math.ceil((x1 - x0) / 2);
  };
  const colDark = (x: number, y0: number, y1: number) => {
    let n = 0;
    for (let y = y0; y < y1; y += 2) if (data[y * w + x]! < dark) n++;
    return n / Math.ceil((y1 - y0) / 2);
  };
  const MOSTLY = 0.6;
  let top = 0,
    bottom = h,
    left = 0,
    right = w;
  while (top < h * 0.4 && rowDark(top, 0, w) > MOSTLY) top++;
  while (bottom > h * 0.6 && rowDark(bottom - 1, 0, w) > MOSTLY) bottom--;
  while (left < w * 0.4 && colDark(left, top, bottom) > MOSTLY) left++;
  while (right > w * 0.6 && colDark(right - 1, top, bottom) > MOSTLY) right--;
  // A second look at rows once the side borders are gone (a border that frames only part of the page).
  while (top < h * 0.4 && rowDark(top, left, right) > MOSTLY) top++;
  while (bottom > h * 0.6 && rowDark(bottom - 1, left, right) > MOSTLY) bottom--;
  if (top === 0 && left === 0 && bottom === h && right === w) return full;
  // The border's soft edge (scanner shadow) goes too.
  const pad = Math.max(2, Math.round(Math.min(w, h) / 300));
  top = top ? Math.min(h - 1, top + pad) : 0;
  left = left ? Math.min(w - 1, left + pad) : 0;
  bottom = bottom < h ? Math.max(top + 1, bottom - pad) : h;
  right = right < w ? Math.max(left + 1, right - pad) : w;
  if (right - left < w * 0.5 || bottom - top < h * 0.5) return full;
  return { x: left, y: top, width: right - left, height: bottom - top };
}

/** The 90th percentile of brightness: the paper's level. */
function brightLevel(img: GrayImage): number {
  const hist = new Uint32Array(256);
  const step = Math.max(1, Math.floor(Math.sqrt((img.width * img.height) / 300_000)));
  let n = 0;
  for (let y = 0; y < img.height; y += step)
    for (let x = 0; x < img.width; x += step) {
      hist[img.data[y * img.width + x]!]!++;
      n++;
    }
  let acc = 0;
  for (let i = 0; i < 256; i++) {
    acc += hist[i]!;
    if (acc >= n * 0.9) return i;
  }
  return 255;
}

export function crop(img: GrayImage, r: Rect): GrayImage {
  if (r.x === 0 && r.y === 0 && r.width === img.width && r.height === img.height) return img;
  const out = Buffer.allocUnsafe(r.width * r.height); // every row is copied in whole
  for (let y = 0; y < r.height; y++)
    img.data.copy(out, y * r.width, (r.y + y) * img.width + r.x, (r.y + y) * img.width + r.x + r.width);
  return { width: r.width, height: r.height, channels: 1, data: out };
}

export interface RuleBand {
  y0: number;
  y1: number;
  x0: number;
  x1: number;
  segments: number;
  pieceLen: number;
  coverage: number;
}

/**
 * Dashed, dotted and double separator rules: horizontal bands of ink much thinner than the page's
 * text rows, with white above and below, made of many short pieces spread across the page. Solid
 * rules (table borders) are left alone: the table pass uses them.
 */
export function findDashedRules(img: GrayImage, threshold = otsuThreshold(img)): RuleBand[] {
  return rowBands(img, threshold).rules;
}

/**
 * Horizontal ink bands (printed rows separated by white): the median height of the taller ones
 * (the page's text row height, undefined with fewer than three) and the dashed rules among the thin ones.
 */
export function rowBands(img: GrayImage, threshold = otsuThreshold(img)): { textRowPx?: number; rules: RuleBand[] } {
  const { width: w, data } = img;
  const bands = inkRows(img, threshold);
  const tall = bands
    .map((b) => b.y1 - b.y0)
    .filter((x) => x >= 6)
    .sort((a, b) => a - b);
  if (tall.length < 3) return { rules: [] };
  const textH = tall[Math.floor(tall.length / 2)]!;
  const out: RuleBand[] = [];
  for (const b of bands) {
    const bh = b.y1 - b.y0;
    if (bh > Math.max(2, textH * 0.4)) continue;
    // Columns with ink in the band → pieces (gaps of one pixel closed).
    const pieces: Array<[number, number]> = [];
    let start = -1,
      gap = 0;
    for (let x = 0; x <= w; x++) {
      let ink = false;
      if (x < w) for (let y = b.y0; y < b.y1 && !ink; y++) ink = data[y * w + x]! <= threshold;
      if (ink) {
        if (start < 0) start = x;
        gap = 0;
      } else if (start >= 0 && (++gap > 1 || x === w)) {
        pieces.push([start, x - gap + 1]);
        start = -1;
        gap = 0;
      }
    }
    if (pieces.length < 6) continue;
    const x0 = pieces[0]![0],
      x1 = pieces[pieces.length - 1]![1];
    if (x1 - x0 < w * 0.25) continue;
    // Pieces of a rule are short and alike; letters of a tiny text line are not alike in width.
    const lens = pieces.map(([a, z]) => z - a).sort((a, z) => a - z);
    const med = lens[Math.floor(lens.length / 2)]!;
    if (med > textH * 1.5) continue;
    const alike = lens.filter((l) => l <= med * 2 + 2 && l >= med / 2 - 1).length / lens.length;
    if (alike < 0.7) continue;
    // Ink over 10–88% of the span: specks of scan noise are less, a solid rule broken by the scan more.
    const coverage = lens.reduce((a, z) => a + z, 0) / (x1 - x0);
    if (coverage < 0.1 || coverage > 0.88) continue;
    out.push({ y0: b.y0, y1: b.y1, x0, x1, segments: pieces.length, pieceLen: med, coverage });
  }
  return { textRowPx: textH, rules: out };
}

/**
 * Runs of pixel rows that carry ink (at least 0.4% of the width, three pixels or more, darker than
 * `threshold`): the page's printed rows and rules, top to bottom.
 */
export function inkRows(img: GrayImage, threshold = otsuThreshold(img)): Array<{ y0: number; y1: number }> {
  const { width: w, height: h, data } = img;
  const minInk = Math.max(3, Math.round(w * 0.004));
  const rowInk = new Uint32Array(h);
  for (let y = 0; y < h; y++) {
    const row = y * w;
    let n = 0;
    for (let x = 0; x < w; x++) if (data[row + x]! <= threshold) n++;
    rowInk[y] = n;
  }
  const bands: Array<{ y0: number; y1: number }> = [];
  for (let y = 0; y < h;) {
    if (rowInk[y]! < minInk) {
      y++;
      continue;
    }
    const y0 = y;
    while (y < h && rowInk[y]! >= minInk) y++;
    bands.push({ y0, y1: y });
  }
  return bands;
}

/** A copy with the bands painted paper white (one pixel of margin above and below). */
export function whiten(img: GrayImage, bands: RuleBand[]): GrayImage {
  if (!bands.length) return img;
  const data = Buffer.from(img.data);
  for (const b of bands) {
    const y0 = Math.max(0, b.y0 - 1),
      y1 = Math.min(img.height, b.y1 + 1);
    for (let y = y0; y < y1; y++)
      data.fill(255, y * img.width + Math.max(0, b.x0 - 2), y * img.width + Math.min(img.width, b.x1 + 2));
  }
  return { ...img, data };
}

/** Binarised at Otsu's threshold (ink black, paper white). */
export function binarise(img: GrayImage): GrayImage {
  const t = otsuThreshold(img);
  const data = Buffer.alloc(img.data.length);
  for (let i = 0; i < data.length; i++) data[i] = img.data[i]! <= t ? 0 : 255;
  return { ...img, data };
}

export function invert(img: GrayImage): GrayImage {
  const data = Buffer.alloc(img.data.length);
  for (let i = 0; i < data.length; i++) data[i] = 255 - img.data[i]!;
  return { ...img, data };
}

/** Writes the image as a binary PGM without copying its pixels into one buffer first. */
export async function writePgm(file: string, img: Pick<GrayImage, 'width' | 'height' | 'data'>): Promise<void> {
  const fh = await fs.open(file, 'w');
  try {
    const parts = [
      Buffer.from(`P5\n${img.width} ${img.height}\n255\n`, 'latin1'),
      img.data.subarray(0, img.width * img.height),
    ];
    const { bytesWritten } = await fh.writev(parts);
    if (bytesWritten !== parts[0]!.length + parts[1]!.length) throw new Error(`short write of ${file}`);
  } finally {
    await fh.close();
  }
}

export async function resizeGray(img: GrayImage, s: number): Promise<GrayImage> {
  const width = Math.round(img.width * s),
    height = Math.round(img.height * s);
  const data = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 1 } })
    .resize(width, height, { kernel: 'lanczos3' })
    .greyscale()
    .raw()
    .toBuffer();
  return { width, height, channels: 1, data: data.subarray(0, width * height) };
}
