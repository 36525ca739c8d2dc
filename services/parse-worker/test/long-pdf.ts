// Long text-layer PDFs drawn with pdf-lib for the sharded-parse tests and benchmark: every page
// has a heading and a paragraph naming its own page (`PAGEMARK-<n>-END`), so a test can count each
// page in result.md, grounding.json and segments.json.
import { PDFDocument, StandardFonts } from 'pdf-lib';

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
