// Small text read with doubt is read again larger on the page's rows only: the row bands are cut
// out, upscaled and stacked into one image for one Tesseract run (band-reread.ts) instead of one
// run on the whole page upscaled (issue 23, time per image).
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { readBands, stackBands, type Band } from '../src/ocr/band-reread';
import { crop, inkRows, resizeGray, toGray, type GrayImage } from '../src/ocr/preprocess';
import { recogniseImage } from '../src/ocr/recognise';
import { loadImagePage } from '../src/render/image-input';
import { setToolRunner, spawnRunner } from '../src/render/run-tool';
import { startTesseractTsv } from '../src/ocr/tesseract-tsv';
import { corpus, tempDir } from './helpers/fixtures';

// A receipt whose small text the first reading reads with doubt (mean word confidence ~69).
const RECEIPT = corpus('c_scanned_images/sroie/056.jpg');
const opts = (tmpDir: string) => ({ lang: 'eng', timeoutSeconds: 60, pageNumber: 1, tmpDir, psm: 3 });
const norm = (words: Array<{ text: string }>) => words.map((w) => w.text).join(' ');

/** Text rows of the page (ink runs of a text row's height), padded by two pixels. */
function textBands(gray: GrayImage): Band[] {
  return inkRows(gray)
    .filter((b) => b.y1 - b.y0 >= 8 && b.y1 - b.y0 <= 40)
    .map((b) => ({ y0: b.y0 - 2, y1: b.y1 + 2 }));
}

describe('reading row bands of a page in one Tesseract run', () => {
  let tmp: string;
  let gray: GrayImage;
  beforeAll(async () => {
    tmp = await tempDir('ocr-bands-');
    gray = toGray(await loadImagePage(RECEIPT, 0));
  });
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

  it('stacks the bands upscaled, one under the other, with white gaps', async () => {
    const bands = [
      { y0: 100, y1: 120 },
      { y0: 300, y1: 330 },
    ];
    const stack = await stackBands(gray, bands, 2, 10);
    expect(stack.image.width).toBe(gray.width * 2);
    expect(stack.heights).toEqual([40, 60]);
    expect(stack.tops).toEqual([10, 60]);
    expect(stack.image.height).toBe(10 + 40 + 10 + 60 + 10);
    // The second band's pixels are that crop of the page, upscaled; the gaps are paper white.
    const second = await resizeGray(crop(gray, { x: 0, y: 300, width: gray.width, height: 30 }), 2);
    const w = stack.image.width;
    expect(stack.image.data.subarray(60 * w, 120 * w).equals(second.data)).toBe(true);
    expect(stack.image.data.subarray(50 * w, 60 * w).every((v) => v === 255)).toBe(true);
  });

  it('gives each band the words reading it alone gives, in the page pixels of that band', async () => {
    const all = textBands(gray);
    expect(all.length).toBeGreaterThan(10);
    // Rows from the top, the middle and the bottom of the receipt.
    const bands = [all[1]!, all[Math.floor(all.length / 2)]!, all[all.length - 2]!];
    const together = await readBands(gray, bands, 2, { ...opts(tmp), gap: 20 });
    const alone = await Promise.all(
      bands.map((b, i) => readBands(gray, [b], 2, { ...opts(tmp), gap: 20, name: `alone${i}` })),
    );
    for (let i = 0; i < bands.length; i++) {
      expect(together[i]!.length).toBeGreaterThan(0);
      expect(norm(together[i]!)).toBe(norm(alone[i]![0]!));
      for (const w of together[i]!) {
        expect(w.y0).toBeGreaterThanOrEqual(bands[i]!.y0 - 1);
        expect(w.y1).toBeLessThanOrEqual(bands[i]!.y1 + 1);
        expect(w.x1).toBeLessThanOrEqual(gray.width + 1);
      }
    }
  });

  it('reads the stack with a Tesseract started beforehand exactly as with one started on the file', async () => {
    const all = textBands(gray);
    const bands = [all[2]!, all[Math.floor(all.length / 3)]!, all[all.length - 3]!];
    const run = startTesseractTsv({ dpi: 0, psm: 3, lang: 'eng', timeoutSeconds: 60, pageNumber: 1 });
    const warm = await readBands(gray, bands, 2, { ...opts(tmp), gap: 20, name: 'warm', run });
    const cold = await readBands(gray, bands, 2, { ...opts(tmp), gap: 20, name: 'cold' });
    expect(warm.flat().length).toBeGreaterThan(5);
    expect(warm).toEqual(cold);
  });

  it("starts the re-read's Tesseract before its stack is written (its model loads meanwhile)", async () => {
    const img = await loadImagePage(RECEIPT, 0);
    const runs: string[][] = [];
    let stackWritten: boolean | undefined;
    const restore = setToolRunner((cmd, args, o) => {
      if (cmd === 'tesseract') runs.push(args);
      if (cmd === 'tesseract' && args[0] === 'stdin') stackWritten = existsSync(path.join(tmp, 'bands-1.pgm'));
      return spawnRunner(cmd, args, o);
    });
    try {
      const { report } = await recogniseImage(img, opts(tmp));
      expect(report.tried.map((t) => t.name)).toEqual(['as-is', expect.stringMatching(/^upscaled x[\d.]+, rows$/)]);
    } finally {
      restore();
    }
    // The first reading on its file, the re-read on a process that reads its file's name from stdin.
    expect(runs.map((a) => a[0]!.replace(/.*\//, ''))).toEqual(['ocr-1-0.pgm', 'stdin']);
    expect(stackWritten).toBe(false);
  });

  it('re-reads a doubtful page of small text on its rows, never the whole page upscaled, and reads it better', async () => {
    const img = await loadImagePage(RECEIPT, 0);
    const { words, report } = await recogniseImage(img, opts(tmp));
    expect(report.tried.map((t) => t.name)).toEqual(['as-is', expect.stringMatching(/^upscaled x[\d.]+, rows$/)]);
    expect(report.chosen).toBe(report.tried[1]!.name);
    expect(report.tried[1]!.score).toBeGreaterThan(report.tried[0]!.score);
    // The page's words, in the image's own pixels, as one reading (no band read twice).
    for (const w of words) {
      expect(w.x0).toBeGreaterThanOrEqual(-1);
      expect(w.y1).toBeLessThanOrEqual(img.height + 1);
    }
    const text = norm(words).toUpperCase();
    expect(text).toContain('TOTAL');
  });

  it('reads the whole page larger when its doubtful rows are most of it (a table crop keeps its columns)', async () => {
    // A PubTabNet table crop with 5-7 px letters: nearly every row is read with doubt.
    const img = await loadImagePage(corpus('b_tables/pubtabnet/PMC2838834_005_00.png'), 0);
    const { report } = await recogniseImage(img, opts(tmp));
    expect(report.tried.map((t) => t.name)).toEqual(['as-is', expect.stringMatching(/^upscaled x[\d.]+$/)]);
  });

  it('keeps no line the larger reading of a band reads as noise', async () => {
    // A bank statement with rows read with doubt; a band's reading there also read a line of marks
    // ("AOAK..~9N40 a) Oun~-..- ANOA", word confidences 0-35) that is not on the page.
    const img = await loadImagePage(corpus('c_scanned_images/tesseract.js/bill.png'), 0);
    const { words, report } = await recogniseImage(img, opts(tmp));
    expect(report.chosen).toMatch(/, rows$/);
    expect(norm(words)).not.toMatch(/AOAK/);
    expect(norm(words)).toContain('32,414.50');
  });
});
