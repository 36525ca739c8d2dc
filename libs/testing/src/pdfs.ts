// PDFs built on the fly for tests and benchmarks (pdf-lib): pages copied from corpus files (read in
// place, never modified), plain text pages, a hostile dense page, and long documents whose every page
// names itself.
import { readFile } from 'node:fs/promises';
import { PDFDocument, PDFName, StandardFonts, type PDFFont } from 'pdf-lib';

/** Copies (0-based) pages of corpus PDFs into one new PDF; a copied page hashes like its source. */
export async function combine(parts: Array<{ file: string; pages: number[] }>): Promise<Buffer> {
  const out = await PDFDocument.create();
  for (const part of parts) {
    const src = await PDFDocument.load(await readFile(part.file));
    for (const p of await out.copyPages(src, part.pages)) out.addPage(p);
  }
  return Buffer.from(await out.save());
}

/** A PDF of `total` pages cycling through the pages of `file` (the benchmark's 500-page document). */
export async function repeatPages(file: string, total: number): Promise<Buffer> {
  const src = await PDFDocument.load(await readFile(file));
  const n = src.getPageCount();
  const out = await PDFDocument.create();
  for (let done = 0; done < total;) {
    const take = Math.min(n, total - done);
    for (const p of await out.copyPages(
      src,
      Array.from({ length: take }, (_, i) => i),
    ))
      out.addPage(p);
    done += take;
  }
  return Buffer.from(await out.save());
}

// Synthetic documents (pdf-lib): plain text pages, and the hostile page of issue 19.
const WORDS = (
  'the parse worker reads every page of a document within a budget of operators wall time and pixels ' +
  'so that one hostile page cannot take the memory of the whole fleet while the other pages are read as text'
).split(' ');

/** Page `n`: a heading and 45 lines of 10-pt Helvetica, different on every page. */
function drawTextPage(doc: PDFDocument, font: PDFFont, n: number) {
  const page = doc.addPage([612, 792]);
  page.drawText(`Page ${n} of the memory benchmark`, { x: 56, y: 740, size: 14, font });
  for (let line = 0; line < 45; line++) {
    const words = Array.from({ length: 14 }, (_, i) => WORDS[(n * 31 + line * 7 + i * 3) % WORDS.length]);
    page.drawText(words.join(' '), { x: 56, y: 710 - line * 14.5, size: 10, font });
  }
}

/** A PDF of `pages` pages of plain text (46 lines each, different on every page). */
export async function textPdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= pages; n++) drawTextPage(doc, font, n);
  return Buffer.from(await doc.save());
}

/** The baseline page, then one page of `ops` tiny strokes in a deflated content stream (as test/e2e/hostile-fleet.test.ts builds it). */
export async function densePdf(ops: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  drawTextPage(doc, font, 1);
  const dense = doc.addPage([612, 792]);
  dense.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream('0 0 m 1 1 l S\n'.repeat(ops))));
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

// Long text-layer PDFs for the sharded-parse tests and benchmark: every page has a heading and a
// paragraph naming its own page (`PAGEMARK-<n>-END`), so a test can count each page in result.md,
// grounding.json and segments.json.
export const pageMark = (n: number) => `PAGEMARK-${n}-END`;

export async function longPdf(pages: number, opts: { title?: string } = {}): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const bold = await doc.embedFont(StandardFonts.HelveticaBold);
  const words = 'the quarterly report lists revenue costs margins and the outlook for each region of the company'.split(
    ' ',
  );
  for (let n = 1; n <= pages; n++) {
    const page = doc.addPage([612, 792]);
    page.drawText(`${opts.title ?? 'Section'} ${n}`, { x: 72, y: 720, size: 16, font: bold });
    let y = 690;
    for (let line = 0; line < 8; line++) {
      const text = Array.from({ length: 12 }, (_, i) => words[(n * 7 + line * 12 + i) % words.length]).join(' ');
      page.drawText(line === 0 ? `${pageMark(n)} ${text}` : text, { x: 72, y, size: 11, font });
      y -= 16;
    }
  }
  return Buffer.from(await doc.save());
}
