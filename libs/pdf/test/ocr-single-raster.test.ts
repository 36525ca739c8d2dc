// The OCR path rasterises each page once: every process the library starts goes through
// run-tool's runner, which these tests replace with a recording wrapper.
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { inspectDocument, parsePages, startOcrHeadStart, type OcrHeadStart } from '../src';
import { PageRenderer } from '../src/render/page-renderer';
import { readPnm } from '../src/render/ppm';
import { rasterisePdf } from '../src/render/rasterise';
import { setToolRunner, spawnRunner } from '../src/render/run-tool';
import { combine, corpus, REDBOOK, SCANNED_PDF, tempDir, TESTOCR_PNG, writeTemp } from './helpers/fixtures';

const TABLE_SCAN = corpus('b_tables/unstructured/table-multi-row-column-cells.pdf');

interface Call {
  cmd: string;
  args: string[];
}

/** Records every process started while `work` runs. */
async function recording<T>(work: () => Promise<T>): Promise<{ result: T; calls: Call[] }> {
  const calls: Call[] = [];
  const restore = setToolRunner((cmd, args, opts) => {
    calls.push({ cmd, args });
    return spawnRunner(cmd, args, opts);
  });
  try {
    return { result: await work(), calls };
  } finally {
    restore();
  }
}

const pdftoppm = (calls: Call[]) => calls.filter((c) => c.cmd === 'pdftoppm');
const arg = (c: Call, flag: string) => c.args[c.args.indexOf(flag) + 1];

describe('OCR: one rasterisation per page', () => {
  let dir: string, out: string, pdf: string;
  beforeAll(async () => {
    dir = await tempDir('pdf-once-');
    out = path.join(dir, 'out');
    // Page 1: the docling scan (A4); page 2: a scanned ruled table (landscape), which gets a crop.
    pdf = await writeTemp(
      dir,
      'two-scans.pdf',
      await combine([
        { bytes: await fs.readFile(SCANNED_PDF), pages: [0] },
        { bytes: await fs.readFile(TABLE_SCAN), pages: [0] },
      ]),
    );
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('renders each page once at ocrDpi and derives the page image and crops from that raster', async () => {
    // What pdftoppm itself makes of these pages at 150 dpi (the page images' size before the change).
    const ref = await rasterisePdf(pdf, dir, { dpi: 150, firstPage: 1, lastPage: 2 });
    const refSize = await Promise.all(
      [1, 2].map(async (n) => {
        const r = await readPnm(ref.get(n)!);
        return [r.width, r.height];
      }),
    );

    // The worker's order: a head start for page 1, then the parse.
    let head!: OcrHeadStart;
    const { result: res, calls } = await recording(() => {
      head = startOcrHeadStart(pdf);
      return parsePages({ path: pdf, kind: 'pdf', backend: 'ocr', outDir: out, ocrHeadStart: head });
    });

    const renders = pdftoppm(calls);
    expect(renders).toHaveLength(2);
    expect(renders.map((c) => arg(c, '-f'))).toEqual(['1', '2']);
    for (const c of renders) {
      expect(arg(c, '-r')).toBe('300');
      expect(c.args).toEqual(expect.arrayContaining(['-gray', '-singlefile']));
    }
    // One Tesseract per page reading the page raster (started early, fed through stdin); the table
    // page adds its structure-pass reading of the table crop.
    const pageReads = calls.filter((c) => c.cmd === 'tesseract' && c.args[0] === 'stdin');
    expect(pageReads).toHaveLength(2);
    expect(pageReads.every((c) => arg(c, '--dpi') === '300')).toBe(true);

    for (const [i, page] of res.pages.entries()) {
      const png = path.join(out, `pages/page_000${i + 1}.png`);
      const meta = await sharp(png).metadata();
      expect(page.files).toContain(`pages/page_000${i + 1}.png`);
      // Same pixel grid as pdftoppm at `dpi`, greyscale like the OCR raster it comes from.
      expect([meta.width, meta.height]).toEqual(refSize[i]);
      expect([page.grounding.width, page.grounding.height]).toEqual(refSize[i]);
      expect(meta.channels).toBe(1);
      for (const e of page.grounding.elements) {
        expect(Math.abs(e.pixel_bbox[0] - e.bbox.x1 * meta.width!)).toBeLessThanOrEqual(1);
        expect(Math.abs(e.pixel_bbox[3] - e.bbox.y2 * meta.height!)).toBeLessThanOrEqual(1);
      }
    }
    expect(res.pages[0]!.markdown).toMatch(/Docling bundles PDF document conversion/);
    const table = res.pages[1]!.grounding.elements.find((e) => e.type === 'table')!;
    expect(table.image).toBe('imgs/p0002_table_1.jpg');
    const crop = await sharp(path.join(out, table.image!)).metadata();
    expect(Math.abs(crop.width! - (table.pixel_bbox[2] - table.pixel_bbox[0]))).toBeLessThanOrEqual(10);
    await expect(fs.stat(head.dir)).rejects.toThrow(); // the head start's temp dir is gone
  });

  it('crops without page images from the same raster, and drops a head start for a page it does not parse', async () => {
    const { result: res, calls } = await recording(async () => {
      const head = startOcrHeadStart(pdf); // page 1, which this parse skips
      return parsePages({
        path: pdf,
        kind: 'pdf',
        backend: 'ocr',
        outDir: path.join(dir, 'noimg'),
        renderPages: false,
        pageNumbers: [2],
        ocrHeadStart: head,
      });
    });
    // Page 2 once (no second pdftoppm for its crop); page 1 at most as the head start, killed as
    // soon as the parse knows its pages.
    const renders = pdftoppm(calls).map((c) => arg(c, '-f'));
    expect(renders.filter((p) => p === '2')).toHaveLength(1);
    expect(renders.filter((p) => p === '1').length).toBeLessThanOrEqual(1);
    const page = res.pages[0]!;
    expect(page.files).toEqual(['imgs/p0002_table_1.jpg']);
    await expect(fs.stat(path.join(dir, 'noimg/imgs/p0002_table_1.jpg'))).resolves.toBeTruthy();
  });

  it('lets the OCR path claim a page the background renderer has not started', async () => {
    const tmp = await tempDir('pdf-claim-');
    try {
      await fs.mkdir(path.join(tmp, 'pages'), { recursive: true });
      const { result, calls } = await recording(async () => {
        const r = new PageRenderer(REDBOOK, [1, 2, 3], () => 150, tmp, tmp, 60_000);
        const claimed = r.claim(2); // before the renderer's first batch (1-3) has started
        const p1 = await r.page(1);
        const late = r.claim(1);
        await r.page(3);
        await r.stop();
        return { claimed, late, p1 };
      });
      expect(result).toMatchObject({ claimed: true, late: false, p1: { width: 1275, height: 1650 } });
      expect(pdftoppm(calls).map((c) => `${arg(c, '-f')}-${arg(c, '-l')}`)).toEqual(['1-1', '3-3']);
      await expect(fs.stat(path.join(tmp, 'pages/page_0002.png'))).rejects.toThrow();
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  });

  it('decodes an image input once: parsePages takes the pixels inspectDocument decoded', async () => {
    const inspected = await inspectDocument(TESTOCR_PNG, 'image', { keepImage: true });
    const kept = inspected.decodedImage!;
    expect(kept).toMatchObject({ path: TESTOCR_PNG, pageIndex: 0 });
    // A blank page in place of the kept pixels: if parsePages decoded the file again it would read text.
    const blank = { ...kept, image: { ...kept.image, data: Buffer.alloc(kept.image.data.length, 255) } };
    const blankRes = await parsePages({
      path: TESTOCR_PNG,
      kind: 'image',
      backend: 'ocr',
      outDir: path.join(dir, 'img'),
      renderPages: false,
      decodedImage: blank,
    });
    expect(blankRes.pages[0]!.markdown.trim()).toBe('');
    const res = await parsePages({
      path: TESTOCR_PNG,
      kind: 'image',
      backend: 'ocr',
      outDir: path.join(dir, 'img'),
      decodedImage: kept,
    });
    expect(res.pages[0]!.markdown).toMatch(/quick brown dog/);
    // Kept pixels only count for their own file.
    const other = await parsePages({
      path: TESTOCR_PNG,
      kind: 'image',
      backend: 'ocr',
      outDir: path.join(dir, 'img'),
      renderPages: false,
      decodedImage: { ...blank, path: '/elsewhere.png' },
    });
    expect(other.pages[0]!.markdown).toMatch(/quick brown dog/);
  });
});
