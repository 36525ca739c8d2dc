// The pixel work before an image's first reading, made faster with identical results (issue 23,
// time per image): the grey conversion, Otsu's threshold and the border crop give exactly what the
// straightforward loops they replaced gave (kept here as the reference), on real receipts and on
// synthetic pages; the threshold measured once for the cropped page is the one each later use would
// measure; and the image head start hands its decoded page on (to be hashed) only once Tesseract
// has been given the prepared page.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  crop,
  inkShare,
  otsuOfHistogram,
  otsuThreshold,
  paperRect,
  toGray,
  type GrayImage,
  type Rect,
} from '../src/ocr/preprocess';
import { prepareFirstReading, recogniseImage } from '../src/ocr/recognise';
import { startImageOcrHeadStart } from '../src/parse/image-head-start';
import { loadImagePage } from '../src/render/image-input';
import type { RawImage } from '../src/render/ppm';
import { corpus, tempDir } from './helpers/fixtures';

/** The grey conversion as it was written before (a float division stored into a zero-filled byte array). */
function referenceGray(img: RawImage): Buffer {
  const out = Buffer.alloc(img.width * img.height);
  for (let i = 0, j = 0; i < out.length; i++, j += 3)
    out[i] = (img.data[j]! * 299 + img.data[j + 1]! * 587 + img.data[j + 2]! * 114) / 1000;
  return out;
}

/** Otsu's threshold as it was written before: one float histogram, then the same search for the level. */
function referenceOtsu(img: GrayImage, r: Rect = { x: 0, y: 0, width: img.width, height: img.height }): number {
  const hist = new Float64Array(256);
  const step = Math.max(1, Math.floor(Math.sqrt((r.width * r.height) / 1_000_000)));
  for (let y = r.y; y < r.y + r.height; y += step) {
    const row = y * img.width;
    for (let x = r.x; x < r.x + r.width; x += step) hist[img.data[row + x]!]!++;
  }
  return otsuOfHistogram(hist);
}

/** Pseudo-random RGB page (fixed seed): dark strokes on a noisy light ground, odd sizes. */
function noisyPage(width: number, height: number, seed: number): RawImage {
  let s = seed;
  const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 8) / (1 << 24);
  const data = Buffer.alloc(width * height * 3);
  for (let i = 0; i < data.length; i += 3) {
    const ink = rnd() < 0.12;
    for (let c = 0; c < 3; c++) data[i + c] = ink ? Math.floor(rnd() * 90) : 150 + Math.floor(rnd() * 106);
  }
  return { width, height, channels: 3, data };
}

const RECEIPTS = ['010.jpg', '273.jpg', '506.jpg', '284.jpg'].map((f) => corpus(`c_scanned_images/sroie/${f}`));

describe('pixel work before the first reading: same results, faster', () => {
  it('converts to grey exactly as before, every byte, on receipts and synthetic pages', async () => {
    const pages: RawImage[] = [noisyPage(1, 1, 1), noisyPage(7, 3, 2), noisyPage(641, 999, 3)];
    // Every colour's corners and the rounding edges of the weights.
    const edge = Buffer.from([0, 0, 0, 255, 255, 255, 255, 0, 0, 0, 255, 0, 0, 0, 255, 1, 2, 3, 254, 253, 252]);
    pages.push({ width: 7, height: 1, channels: 3, data: edge });
    for (const f of RECEIPTS) pages.push(await loadImagePage(f, 0));
    for (const img of pages) {
      const g = toGray(img);
      expect([g.width, g.height, g.channels]).toEqual([img.width, img.height, 1]);
      expect(g.data.length).toBe(img.width * img.height);
      expect(g.data.equals(referenceGray(img))).toBe(true);
    }
    // Not trivially equal: the receipts have both ink and paper.
    const g = toGray(pages[4]!);
    expect(Math.min(...g.data.subarray(0, 100_000))).toBeLessThan(100);
    expect(Math.max(...g.data.subarray(0, 100_000))).toBeGreaterThan(200);
  }, 60_000);

  it("gives Otsu's threshold exactly as before: whole pages, sampled large pages, sub-rectangles", async () => {
    // Narrow pages too: rows of 1-7 pixels are counted in part or in whole past the groups of four.
    const narrow = [1, 2, 3, 5, 6, 7].map((w) => toGray(noisyPage(w, 40, 10 + w)));
    const grays: GrayImage[] = [...narrow, toGray(noisyPage(1001, 1203, 5))];
    for (const f of RECEIPTS) grays.push(toGray(await loadImagePage(f, 0)));
    for (const g of grays) {
      expect(otsuThreshold(g)).toBe(referenceOtsu(g));
      // Odd offsets and widths (the four side-by-side counts end on a remainder).
      const r = { x: 3, y: 2, width: Math.max(1, g.width - 6), height: Math.max(1, g.height - 5) };
      expect(otsuThreshold(g, r)).toBe(referenceOtsu(g, r));
    }
    // The 35 Mpx photo is sampled (every 5th pixel), the 1 Mpx synthetic page is not.
    expect(grays[grays.length - 1]!.width * grays[grays.length - 1]!.height).toBeGreaterThan(4_000_000);
    expect(new Set(grays.map((g) => otsuThreshold(g))).size).toBeGreaterThan(2);
    expect(narrow.map((g) => otsuThreshold(g))).not.toContain(128); // every one measured, none the default
  }, 60_000);

  it('crops exactly the paper rows, without the zero fill', async () => {
    const g = toGray(await loadImagePage(RECEIPTS[1]!, 0)); // 273: a dark border down its side
    const paper = paperRect(g);
    expect(paper.x + paper.y).toBeGreaterThan(0);
    const c = crop(g, paper);
    const expected = Buffer.alloc(paper.width * paper.height);
    for (let y = 0; y < paper.height; y++)
      for (let x = 0; x < paper.width; x++)
        expected[y * paper.width + x] = g.data[(paper.y + y) * g.width + paper.x + x]!;
    expect(c.data.equals(expected)).toBe(true);
  });

  it("measures the cropped page's threshold once, and it is the one each later use would measure", async () => {
    for (const f of RECEIPTS.slice(0, 3)) {
      const img = await loadImagePage(f, 0);
      const first = await prepareFirstReading(img);
      expect(first.paperThreshold).toBe(referenceOtsu(crop(first.gray, first.paper)));
      expect(inkShare(first.clean, first.rules.length ? undefined : first.paperThreshold)).toBe(
        inkShare(first.clean, referenceOtsu(first.clean)),
      );
    }
  }, 60_000);

  it('hands back the grey page threshold of a page read uncropped and of one read cropped', async () => {
    const tmp = await tempDir('ocr-pixel-');
    try {
      for (const f of [RECEIPTS[0]!, RECEIPTS[1]!]) {
        const img = await loadImagePage(f, 0);
        const { gray, grayThreshold, report } = await recogniseImage(img, {
          lang: 'eng',
          timeoutSeconds: 120,
          pageNumber: 1,
          tmpDir: tmp,
        });
        expect(grayThreshold).toBe(referenceOtsu(gray));
        expect(Boolean(report.paper)).toBe(f === RECEIPTS[1]);
      }
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('image head start: the decoded page is hashed after Tesseract has it', () => {
  it('settles decodedPage only once the prepared page has been written and handed over', async () => {
    const tmp = await tempDir('ocr-head-order-');
    // The head start's scratch directory goes here, where nothing else writes.
    const tmpdir = jest.spyOn(os, 'tmpdir').mockReturnValue(tmp);
    try {
      const head = startImageOcrHeadStart(RECEIPTS[0]!);
      try {
        const image = await head.decodedPage;
        expect(image).toBeDefined();
        // By now the prepared page is on disk, whole, in the head start's own directory.
        const dirs = (await fs.readdir(tmp)).filter((d) => d.startsWith('docfleet-ocr-head-'));
        expect(dirs).toHaveLength(1);
        const pgm = await fs.stat(path.join(tmp, dirs[0]!, 'page-1.pgm'));
        const first = await prepareFirstReading(image!);
        expect(pgm.size).toBeGreaterThan(first.variant.image.width * first.variant.image.height);
        const run = await head.take(RECEIPTS[0]!, { dpi: 0, lang: 'eng', timeoutSeconds: 120 });
        expect(run?.prepared?.image).toBe(image);
        expect(await run!.recognize(run!.prepared!.file)).toMatch(/TOTAL|Total/);
      } finally {
        await head.dispose();
      }
    } finally {
      tmpdir.mockRestore();
      await fs.rm(tmp, { recursive: true, force: true });
    }
  }, 60_000);
});
