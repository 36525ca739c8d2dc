// The per-page budget (issue 19): operators pdf.js may produce for a page, wall time, and pixels of
// any raster. A page over it takes the bounded path (capped raster, OCR) or comes back failed
// (`page_too_complex`) while the other pages parse; a PDF whose /Count lies is refused.
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { DEFAULT_PAGE_BUDGET, ParseError, cappedDpi, inspectDocument, pageBudget, parsePages } from '../src';
import { openPdf, closePdf } from '../src/pdfjs-loader';
import { rasterisePage } from '../src/render/rasterise';
import { loadTextPage } from '../src/text-layer/load-page';
import { tempDir } from './helpers/fixtures';

const TEXT = 'The first page is ordinary text that must survive the dense page after it.';

async function densePdf(ops: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([612, 792]).drawText(TEXT, { x: 50, y: 700, size: 12, font });
  const dense = doc.addPage([612, 792]);
  dense.node.set(PDFName.of('Contents'), doc.context.register(doc.context.flateStream('0 0 m 1 1 l S\n'.repeat(ops))));
  return doc.save({ useObjectStreams: false });
}

async function textPagePdf(text: string, size: [number, number], fontSize: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage(size).drawText(text, { x: size[0] * 0.05, y: size[1] * 0.5, size: fontSize, font });
  return doc.save({ useObjectStreams: false });
}

let dir: string;
const file = async (name: string, bytes: Uint8Array) => {
  const p = path.join(dir, name);
  await fs.writeFile(p, bytes);
  return p;
};
beforeAll(async () => {
  dir = await tempDir('pdf-budget-');
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('operators', () => {
  it('stops reading a page at the operator budget, and the document can still be closed', async () => {
    const p = await file('dense.pdf', await densePdf(4_000));
    const doc = await openPdf(p);
    try {
      const budget = pageBudget({ maxOperators: 3_000 });
      await expect(loadTextPage(doc, 2, { ...budget, maxOperators: 100_000 })).resolves.toMatchObject({ textChars: 0 });
      const err = await loadTextPage(doc, 2, budget).catch((e) => e);
      expect(err).toBeInstanceOf(ParseError);
      expect(err).toMatchObject({ code: 'page_too_complex', pageNumber: 2 });
      expect(err.message).toMatch(/more than 3,000 drawing operators/);
      // the first page is untouched by it
      expect((await loadTextPage(doc, 1, budget)).textChars).toBeGreaterThan(40);
    } finally {
      await closePdf(doc); // ends pdf.js' abandoned walk; would hang otherwise
    }
  });

  it('a page over the operator budget takes the bounded path; the other pages parse as text', async () => {
    const p = await file('dense2.pdf', await densePdf(30_000));
    const out = path.join(dir, 'out-ops');
    const progress: Array<[number, boolean | undefined]> = [];
    const res = await parsePages({
      path: p,
      kind: 'pdf',
      backend: 'text',
      outDir: out,
      budget: { maxOperators: 5_000 },
      onProgress: (_d, _t, phase, page) => {
        if (phase === 'text') progress.push([page!.pageNumber, page!.failed]);
      },
    });
    expect(res.pages.map((x) => [x.pageNumber, x.source, !!x.failed])).toEqual([
      [1, 'text', false],
      [2, 'ocr', false],
    ]);
    expect(res.pages[0]!.markdown).toContain('The first page is ordinary text');
    expect(progress).toEqual([
      [1, false],
      [2, false],
    ]);
    expect((await fs.readdir(path.join(out, 'pages'))).sort()).toEqual(['page_0001.png', 'page_0002.png']);
  });

  it('the backend decision counts a page over budget as a reason for OCR instead of reading all of it', async () => {
    const p = await file('dense3.pdf', await densePdf(30_000));
    const r = await inspectDocument(p, 'pdf', { budget: pageBudget({ maxOperators: 5_000 }) });
    expect(r.pageCount).toBe(2);
    expect(r.backend.backend).toBe('ocr');
  });
});

describe('time', () => {
  it('a page read past the time budget is over budget', async () => {
    const p = await file('slow.pdf', await densePdf(200_000));
    const doc = await openPdf(p);
    try {
      const err = await loadTextPage(doc, 2, pageBudget({ maxSeconds: 0.001, maxOperators: 10_000_000 })).catch(
        (e) => e,
      );
      expect(err).toMatchObject({ code: 'page_too_complex' });
      expect(err.message).toMatch(/time budget|drawn shapes/);
    } finally {
      await closePdf(doc);
    }
  });

  it('rendering past the budget is page_too_complex (a failed page), past timeout_seconds page_timeout (a failed job)', async () => {
    const p = await file('slow2.pdf', await densePdf(200_000));
    const byBudget = await rasterisePage(p, path.join(dir, 'r1'), 2, {
      dpi: 300,
      timeoutMs: 60_000,
      budgetMs: 1,
    }).catch((e) => e);
    expect(byBudget).toMatchObject({ code: 'page_too_complex', pageNumber: 2 });
    const byTimeout = await rasterisePage(p, path.join(dir, 'r2'), 2, {
      dpi: 300,
      timeoutMs: 1,
      budgetMs: 60_000,
    }).catch((e) => e);
    expect(byTimeout).toMatchObject({ code: 'page_timeout' });
    for (const e of [byBudget, byTimeout]) expect(e.message).not.toMatch(/pdftoppm|\/tmp\//);
  });

  it('an OCR page that cannot be rasterised within the budget comes back failed, not thrown, and reports it', async () => {
    const p = await file('ocrfail.pdf', await densePdf(200_000));
    const progress: boolean[] = [];
    const res = await parsePages({
      path: p,
      kind: 'pdf',
      backend: 'ocr',
      outDir: path.join(dir, 'out-time'),
      pageNumbers: [2],
      budget: { maxSeconds: 0.001 },
      onProgress: (_d, _t, phase, page) => {
        if (phase === 'text') progress.push(page!.failed);
      },
    });
    expect(res.pages).toHaveLength(1);
    expect(res.pages[0]).toMatchObject({ pageNumber: 2, failed: { code: 'page_too_complex' }, markdown: '' });
    expect(res.pages[0]!.failed!.message).toMatch(/^Rendering page 2 took longer than the page time budget/);
    expect(progress).toEqual([true]);
  });
});

describe('pixels', () => {
  it('cappedDpi keeps the longer side and the area within the budget', () => {
    const b = DEFAULT_PAGE_BUDGET;
    expect(cappedDpi(612, 792, 150, b)).toBe(150);
    const d = cappedDpi(200_000, 200_000, 300, b);
    const px = Math.ceil((200_000 * d) / 72);
    expect(px).toBeLessThanOrEqual(b.maxPixels);
    expect(px * px).toBeLessThanOrEqual(b.maxMegapixels * 1e6);
    const long = cappedDpi(100, 200_000, 300, b);
    expect(Math.ceil((200_000 * long) / 72)).toBeLessThanOrEqual(b.maxPixels);
  });

  it('a 200,000-point page renders within the pixel cap and its text comes out', async () => {
    const p = await file('huge.pdf', await textPagePdf('Enormous page text', [200_000, 200_000], 4000));
    const out = path.join(dir, 'out-huge');
    for (const backend of ['text', 'ocr'] as const) {
      const res = await parsePages({
        path: p,
        kind: 'pdf',
        backend,
        outDir: out,
        budget: { maxMegapixels: 4, maxPixels: 4000 },
      });
      const page = res.pages[0]!;
      expect(page.markdown).toContain('Enormous page text');
      const png = await sharp(path.join(out, 'pages/page_0001.png')).metadata();
      expect(Math.max(png.width!, png.height!)).toBeLessThanOrEqual(4000);
      expect(png.width! * png.height!).toBeLessThanOrEqual(4e6);
      expect([page.grounding.width, page.grounding.height]).toEqual([png.width, png.height]);
    }
  }, 120_000);
});

describe('a page tree that lies', () => {
  it('a PDF claiming a million pages with one is invalid_pdf, with no tool output', async () => {
    const honest = Buffer.from(await textPagePdf('Liar', [612, 792], 14));
    const p = await file(
      'liar.pdf',
      Buffer.from(honest.toString('latin1').replace('/Count 1', '/Count 1000000'), 'latin1'),
    );
    const err = await inspectDocument(p, 'pdf').catch((e) => e);
    expect(err).toMatchObject({ code: 'invalid_pdf', permanent: true });
    expect(err.message).toMatch(/claims 1,000,000 page\(s\) but holds 1/);
  });
});
