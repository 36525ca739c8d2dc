// The dash of a range of figures ("0.310–2.268"). Tables print ranges with an en dash; Tesseract
// reads an en dash and a hyphen alike as "-" in small print. The two differ in the ink: an en
// dash is as wide as a figure (half an em; a figure is about 0.7 em tall, so the bar is some 0.7
// of the figures' height), a hyphen a third of an em (its bar some 0.35 of their height). So the
// bar is measured where the reading has a dash between two digits, and a column's ranges, which
// one table prints with one dash, take the en dash when their bars are, at the median, as wide as
// an en dash's.
import type { PixelBox } from './band-reread';
import type { GrayImage } from './preprocess';

/** A dash between two digits, not an exponent's sign ("1.2E-03") nor a word's hyphen. */
const RANGE_HYPHEN = /(?<=\d)\s*-\s*(?=\d)/gu;
/** Bar width over figure height from which a bar is an en dash (hyphen ~0.35-0.45, en dash ~0.7-0.8). */
const EN_DASH_RATIO = 0.58;
/** Share of the box's darkest ink (over the paper) that makes a pixel the line's ink (its top and bottom rows). */
const INK_SHARE = 0.5;
/** Darkening (grey levels under the paper, the box's lightest grey) that makes a pixel a mark at all. */
const MARK = 20;

export const hasRangeHyphen = (text: string) => /(?<=\d)-(?=\d)/u.test(text.replace(/\s+/g, ''));

/**
 * The widest bar in a box of one line of figures, over the height of the figures. The line's top
 * and bottom are its first and last pixel rows with ink; a bar is a run of pixel columns whose
 * marks (any darkening) lie strictly between them, in at most half the line's height (digits reach
 * both, a decimal point sits on the bottom one). Small print draws a bar's ends in faint grey, so
 * its width is measured by its darkness: the run's summed darkness over its darkest column's.
 * Undefined when the box holds no line of ink or no bar.
 */
export function barWidthRatio(gray: GrayImage, b: PixelBox): number | undefined {
  const x0 = Math.max(0, Math.floor(b.x0)),
    x1 = Math.min(gray.width, Math.ceil(b.x1)),
    y0 = Math.max(0, Math.floor(b.y0)),
    y1 = Math.min(gray.height, Math.ceil(b.y1));
  if (x1 - x0 < 3 || y1 - y0 < 3) return undefined;
  const at = (x: number, y: number) => gray.data[y * gray.width + x]!;
  let darkest = 255,
    paper = 0;
  for (let y = y0; y < y1; y++)
    for (let x = x0; x < x1; x++) {
      darkest = Math.min(darkest, at(x, y));
      paper = Math.max(paper, at(x, y));
    }
  if (paper - darkest < 4 * MARK) return undefined;
  const cut = paper - INK_SHARE * (paper - darkest);
  let top = -1,
    bottom = -1;
  for (let y = y0; y < y1; y++) {
    let any = false;
    for (let x = x0; x < x1 && !any; x++) any = at(x, y) < cut;
    if (any) {
      if (top < 0) top = y;
      bottom = y;
    }
  }
  const h = bottom - top + 1;
  if (top < 0 || h < 4) return undefined;
  let widest = 0,
    sum = 0,
    peak = 0;
  for (let x = x0; x <= x1; x++) {
    let rows = 0,
      dark = 0,
      edge = false;
    for (let y = top; x < x1 && y <= bottom; y++) {
      const d = paper - at(x, y);
      if (d < MARK) continue;
      rows++;
      dark += d;
      if (y === top || y === bottom) edge = true;
    }
    if (rows > 0 && !edge && rows <= h / 2) {
      sum += dark;
      peak = Math.max(peak, dark);
    } else {
      if (peak) widest = Math.max(widest, sum / peak);
      sum = peak = 0;
    }
  }
  return widest ? widest / h : undefined;
}

/**
 * A column's ranges with the dash their bars show: when the median bar (barWidthRatio of each
 * cell whose reading has a dash between digits) is as wide as an en dash, those dashes become en
 * dashes; otherwise (hyphens, or nothing measured) the texts stay as read.
 */
export function withRangeDashes(texts: string[], ratios: Array<number | undefined>): string[] {
  const measured = texts
    .map((t, i) => (hasRangeHyphen(t) ? ratios[i] : undefined))
    .filter((r): r is number => r !== undefined)
    .sort((a, b) => a - b);
  if (!measured.length) return texts;
  const median = measured[Math.floor(measured.length / 2)]!;
  if (median < EN_DASH_RATIO) return texts;
  return texts.map((t) => (hasRangeHyphen(t) ? t.replace(RANGE_HYPHEN, '–') : t));
}
