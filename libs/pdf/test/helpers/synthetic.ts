// Small synthetic PDFs drawn with pdf-lib for layout-rule tests: text placed word by word at known
// positions (top-left coordinates, as the layout code sees them), rules, curves.
import fs from 'node:fs/promises';
import path from 'node:path';
import { PDFDocument, PDFFont, PDFPage, StandardFonts, rgb } from 'pdf-lib';
import { assembleDocument, parsePages } from '../../src';
import { tempDir } from './fixtures';

export interface Canvas {
  page: PDFPage;
  font: PDFFont;
  bold: PDFFont;
  width: number;
  height: number;
  /** Text with its baseline at `top` points from the top of the page. */
  text(s: string, x: number, top: number, size?: number, font?: PDFFont): number;
  /** Words spread over [x0, x1] like a justified line. */
  justified(words: string[], x0: number, x1: number, top: number, size?: number): void;
  line(x0: number, top0: number, x1: number, top1: number, thickness?: number): void;
  /** An SVG path in top-left page coordinates (curves make figure evidence). */
  path(d: string): void;
}

export async function synthPdf(
  pages: Array<(c: Canvas) => void>,
  size: [number, number] = [612, 792],
): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  for (const draw of pages) {
    const page = doc.addPage(size);
    const [width, height] = size;
    const c: Canvas = {
      page,
      font,
      bold,
      width,
      height,
      text: (s, x, top, sz = 10, f = font) => {
        page.drawText(s, { x, y: height - top, size: sz, font: f });
        return f.widthOfTextAtSize(s, sz);
      },
      justified: (words, x0, x1, top, sz = 10) => {
        const widths = words.map((w) => font.widthOfTextAtSize(w, sz));
        const gap = (x1 - x0 - widths.reduce((a, b) => a + b, 0)) / Math.max(1, words.length - 1);
        let x = x0;
        words.forEach((w, i) => {
          page.drawText(w, { x, y: height - top, size: sz, font });
          x += widths[i]! + gap;
        });
      },
      line: (x0, t0, x1, t1, thickness = 0.6) =>
        page.drawLine({
          start: { x: x0, y: height - t0 },
          end: { x: x1, y: height - t1 },
          thickness,
          color: rgb(0, 0, 0),
        }),
      path: (d) => page.drawSvgPath(d, { x: 0, y: height, borderColor: rgb(0, 0, 0), borderWidth: 1 }),
    };
    draw(c);
  }
  return doc.save({ useObjectStreams: false });
}

/** Parses synthetic PDF bytes with the text backend: markdown plus every page's elements. */
export async function parseSynthetic(bytes: Uint8Array) {
  const dir = await tempDir('pdf-synth-');
  try {
    const file = path.join(dir, 'in.pdf');
    await fs.writeFile(file, bytes);
    const res = await parsePages({ path: file, kind: 'pdf', backend: 'text', outDir: dir, renderPages: false });
    const { grounding, markdown } = assembleDocument(
      'in.pdf',
      'pdf',
      res.pages.map((p) => p.grounding),
      res.pages.map((p) => p.markdown),
      'text',
    );
    return { markdown, grounding, elements: grounding.pages.flatMap((p) => p.elements) };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** Deterministic filler words ("alpha3", "brisk7", …) so prose lines are unique and searchable. */
export function proseWords(prefix: string, n: number): string[] {
  const stems = [
    'over',
    'the',
    'model',
    'shows',
    'that',
    'with',
    'data',
    'which',
    'has',
    'been',
    'used',
    'for',
    'these',
    'results',
    'a',
    'measured',
    'in',
  ];
  let h = 0;
  for (const ch of prefix) h = (h * 31 + ch.charCodeAt(0)) % 9973;
  return Array.from({ length: n }, (_, i) => (i % 4 === 2 ? `${prefix}${i}` : stems[(i * 7 + h) % stems.length]!));
}
