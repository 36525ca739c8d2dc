import fs from 'node:fs/promises';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { inspectDocument, ParseError } from '../src';
import {
  BORN_DIGITAL,
  combine,
  encryptedPdf,
  REDBOOK,
  SCANNED_PDF,
  TESTOCR_PNG,
  tempDir,
  textPdf,
  writeTemp,
} from './helpers/fixtures';

const LINE = 'The quick brown fox jumps over the lazy dog while the parser counts characters.';
const LONG = Array.from({ length: 4 }, () => LINE).join('\n');

async function expectParseError(p: Promise<unknown>, code: string): Promise<ParseError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ParseError);
  expect((err as ParseError).code).toBe(code);
  expect((err as ParseError).message.length).toBeGreaterThan(10);
  return err as ParseError;
}

describe('inspectDocument', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir();
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('picks the text backend for a born-digital page and hashes each page', async () => {
    const r = await inspectDocument(BORN_DIGITAL, 'pdf');
    expect(r.pageCount).toBe(1);
    expect(r.pageHashes).toHaveLength(1);
    expect(r.pageHashes[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(r.backend.backend).toBe('text');
    expect(r.backend.pages[0]!.textChars).toBeGreaterThanOrEqual(150);
    expect(r.backend.pages[0]!.graphicsCoverage).toBeLessThan(0.1);
  });

  it('sends a document to OCR when one page is mostly graphics, naming the page', async () => {
    const r = await inspectDocument(REDBOOK, 'pdf');
    expect(r.pageCount).toBe(18);
    expect(r.backend.backend).toBe('ocr');
    expect(r.backend.reasons.join(' ')).toMatch(/page 1: images and drawings cover/);
  });

  it('sends an image-only PDF and plain images to OCR', async () => {
    const scanned = await inspectDocument(SCANNED_PDF, 'pdf');
    expect(scanned.backend.backend).toBe('ocr');
    expect(scanned.backend.reasons.join(' ')).toMatch(/text-layer characters/);
    const png = await inspectDocument(TESTOCR_PNG, 'image');
    expect(png).toMatchObject({ pageCount: 1, backend: { backend: 'ocr' } });
    expect(png.pageHashes[0]).toMatch(/^[0-9a-f]{64}$/);
  });

  it('sends a text page that is short of 150 characters to OCR', async () => {
    const file = await writeTemp(dir, 'short.pdf', await textPdf([LONG, 'Only a title']));
    const r = await inspectDocument(file, 'pdf');
    expect(r.backend.backend).toBe('ocr');
    expect(r.backend.reasons.join(' ')).toMatch(/page 2 has \d+ text-layer characters/);
  });

  it('sends a document with a form field to OCR', async () => {
    const doc = await PDFDocument.load(await textPdf([LONG]));
    const form = doc.getForm();
    const field = form.createTextField('name');
    field.addToPage(doc.getPage(0), {
      x: 72,
      y: 400,
      width: 200,
      height: 20,
      font: await doc.embedFont(StandardFonts.Helvetica),
    });
    const file = await writeTemp(dir, 'form.pdf', await doc.save());
    const r = await inspectDocument(file, 'pdf');
    expect(r.backend.backend).toBe('ocr');
    expect(r.backend.reasons.join(' ')).toMatch(/form field/);
  });

  it('hashes identical pages equal across files and changed pages differently', async () => {
    const a = await textPdf([LONG + ' page A', LONG + ' page B']);
    const b = await textPdf([LONG + ' page X', LONG + ' page B', LONG + ' page C']);
    const fa = await writeTemp(dir, 'a.pdf', a);
    const fb = await writeTemp(dir, 'b.pdf', b);
    // The same page copied into a different file (new object numbers, other neighbours).
    const fc = await writeTemp(
      dir,
      'c.pdf',
      await combine([
        { bytes: b, pages: [2] },
        { bytes: a, pages: [1] },
      ]),
    );
    const [ha, hb, hc] = await Promise.all(
      [fa, fb, fc].map((f) => inspectDocument(f, 'pdf', { decideBackend: false })),
    );
    expect(ha!.pageHashes[1]).toBe(hb!.pageHashes[1]);
    expect(ha!.pageHashes[0]).not.toBe(hb!.pageHashes[0]);
    expect(hc!.pageHashes[1]).toBe(ha!.pageHashes[1]);
    expect(hc!.pageHashes[0]).toBe(hb!.pageHashes[2]);
  });

  it('rejects a truncated PDF as corrupt', async () => {
    const bytes = await fs.readFile(BORN_DIGITAL);
    const file = await writeTemp(dir, 'truncated.pdf', bytes.subarray(0, 1500));
    await expectParseError(inspectDocument(file, 'pdf'), 'corrupt_pdf');
  });

  it('rejects a password-protected PDF', async () => {
    const file = await writeTemp(dir, 'locked.pdf', await encryptedPdf());
    await expectParseError(inspectDocument(file, 'pdf'), 'encrypted_pdf');
  });

  it('rejects a text file renamed to .pdf', async () => {
    const file = await writeTemp(dir, 'notes.pdf', 'just some notes, not a PDF\n');
    await expectParseError(inspectDocument(file, 'pdf'), 'not_a_pdf');
  });

  it('rejects an undecodable image and enforces the page limit', async () => {
    const file = await writeTemp(dir, 'broken.png', Buffer.from('\x89PNG\r\n\x1a\nthis is not really a png'));
    await expectParseError(inspectDocument(file, 'image'), 'unsupported_image');
    await expectParseError(inspectDocument(REDBOOK, 'pdf', { maxPages: 10 }), 'too_many_pages');
  });
});
