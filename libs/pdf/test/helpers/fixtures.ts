// Test inputs: corpus files read in place, plus small PDFs generated on the fly (pdf-lib) for
// the error paths and the page-hash identity checks.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, PDFHexString, PDFName, PDFNumber, StandardFonts } from 'pdf-lib';
import sharp from 'sharp';

export const CORPUS = process.env.DOCFLEET_CORPUS ?? path.resolve(__dirname, '../../../../../shared/corpus');
export const corpus = (rel: string) => path.join(CORPUS, rel);

export const BORN_DIGITAL = corpus('a_born_digital/docling/2305.03393v1-pg9.pdf');
export const CODE_FORMULA = corpus('a_born_digital/docling/code_and_formula.pdf');
export const REDBOOK = corpus('a_born_digital/docling/redp5110_sampled.pdf');
export const ICDAR_US005 = corpus('b_tables/icdar2013/us-005.pdf');
export const SCANNED_PDF = corpus('c_scanned_images/docling/ocr_test.pdf');
export const TESTOCR_PNG = corpus('c_scanned_images/tesseract.js/testocr.png');

/**
 * A PNG of one scanned page stacked `times` times top to bottom: the same width, `times` as much text
 * for Tesseract. A page that takes seconds to read on any machine (a single scan can be read within
 * a one-second limit on a fast one) for tests of the page time limit.
 */
export async function stackedScanPng(file: string, times: number): Promise<Buffer> {
  const { width, height } = await sharp(file).metadata();
  const tile = await sharp(file).png().toBuffer();
  return sharp({ create: { width: width!, height: height! * times, channels: 3, background: '#ffffff' } })
    .composite(Array.from({ length: times }, (_, i) => ({ input: tile, left: 0, top: i * height! })))
    .png()
    .toBuffer();
}

export async function tempDir(prefix = 'pdf-test-'): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), prefix));
}

/** A PDF of text pages, one string per page; enough text to pass the 150-character floor. */
export async function textPdf(pages: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = doc.addPage([612, 792]);
    text.split('\n').forEach((line, i) => page.drawText(line, { x: 72, y: 720 - i * 16, size: 11, font }));
  }
  return doc.save({ useObjectStreams: false });
}

/** Copies the given (0-based) pages of several PDFs into one new PDF. */
export async function combine(parts: Array<{ bytes: Uint8Array; pages: number[] }>): Promise<Uint8Array> {
  const out = await PDFDocument.create();
  for (const part of parts) {
    const src = await PDFDocument.load(part.bytes);
    for (const p of await out.copyPages(src, part.pages)) out.addPage(p);
  }
  return out.save();
}

/**
 * A PDF whose trailer declares Standard-security encryption with a user password we never set:
 * readers must ask for a password (pdf.js throws PasswordException).
 */
export async function encryptedPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.load(await textPdf(['secret page '.repeat(20)]));
  const ctx = doc.context;
  const filled = (byte: number) => PDFHexString.of(Buffer.alloc(32, byte).toString('hex'));
  const encrypt = ctx.obj({
    Filter: PDFName.of('Standard'),
    V: PDFNumber.of(1),
    R: PDFNumber.of(2),
    O: filled(0x11),
    U: filled(0x22),
    P: PDFNumber.of(-44),
  });
  ctx.trailerInfo.Encrypt = ctx.register(encrypt);
  ctx.trailerInfo.ID = ctx.obj([
    PDFHexString.of('00112233445566778899aabbccddeeff'),
    PDFHexString.of('00112233445566778899aabbccddeeff'),
  ]);
  return doc.save({ useObjectStreams: false });
}

export async function writeTemp(dir: string, name: string, bytes: Uint8Array | string): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, bytes);
  return file;
}
