// OCR words of printed rows for the passes over a page's words (one Tesseract line per row, words
// left to right), each written "text@conf" where its confidence is not the default.
import type { OcrWord } from '../../src/ocr/recognise';

export function ocrPage(
  rows: string[],
  { conf = 80, pitch = 60, height = [] }: { conf?: number; pitch?: number; height?: number[] } = {},
): OcrWord[] {
  return rows.flatMap((row, r) =>
    row.split(' ').map((t, i) => {
      const m = /^(.*)@(\d+)$/.exec(t);
      const h = height[r] ?? 30;
      return {
        text: m ? m[1]! : t,
        conf: m ? Number(m[2]) : conf,
        x0: 100 * i,
        x1: 100 * i + 90,
        y0: pitch * r,
        y1: pitch * r + h,
        block: 1,
        par: 1,
        line: r + 1,
      };
    }),
  );
}
