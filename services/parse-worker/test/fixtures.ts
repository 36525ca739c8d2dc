// Inputs built on the fly from corpus pages (the corpus is read in place, never modified).
import { readFile } from 'node:fs/promises';
import { PDFDocument } from 'pdf-lib';
import { corpus } from './stack';

export const NDA3 = corpus('e_multipage_split/kleister_nda/435d6eaa82632030cfc84bbd93e96bf8.pdf');
export const NDA5 = corpus('e_multipage_split/kleister_nda/5089dc0cb013e46c3f9e21a2531504ed.pdf');
export const NDA8 = corpus('e_multipage_split/kleister_nda/9c05001246961d7ebcaa6e1758c808e6.pdf');

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
  for (let done = 0; done < total; ) {
    const take = Math.min(n, total - done);
    for (const p of await out.copyPages(src, Array.from({ length: take }, (_, i) => i))) out.addPage(p);
    done += take;
  }
  return Buffer.from(await out.save());
}
