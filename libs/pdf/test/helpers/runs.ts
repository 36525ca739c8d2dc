// Text runs placed by hand for layout code fed without a PDF (symbols pdf-lib's standard fonts
// lack, exact positions of a page's fragments).
import type { TextRun } from '../../src/types';

/** One run at (x, baseline), 0.5 em per character unless its right end `x1` is given. */
export function run(
  text: string,
  x: number,
  baseline: number,
  size = 8,
  mono = false,
  x1 = x + text.length * size * 0.5,
): TextRun {
  return {
    text,
    x0: x,
    x1,
    y0: baseline - 0.8 * size,
    y1: baseline + 0.2 * size,
    baseline,
    size,
    bold: false,
    italic: false,
    mono,
  };
}
