// The body rows whose first reading lost text (figures read with doubt, ink under no word, inked
// rows with no row) are read again in one Tesseract run and merged word by word where that reading
// is surer (body-reread.ts; issue 23: receipts' dates and totals lost from the body's text).
import fs from 'node:fs/promises';
import path from 'node:path';
import { lostTextRows, mergeRow } from '../src/ocr/body-reread';
import { ocrRows } from '../src/ocr/ocr-layout';
import type { GrayImage } from '../src/ocr/preprocess';
import { recogniseImage, type OcrWord } from '../src/ocr/recognise';
import { parsePages } from '../src/parse/parse-pages';
import { loadImagePage } from '../src/render/image-input';
import { setToolRunner, spawnRunner } from '../src/render/run-tool';
import { startStackRun } from '../src/ocr/band-reread';
import { crop, toGray } from '../src/ocr/preprocess';
import { parseTsv, recognizeImage, recognizeImages } from '../src/ocr/tesseract-tsv';
import { corpus, tempDir, TESTOCR_PNG } from './helpers/fixtures';

const word = (text: string, conf: number, x0: number, y0: number, x1: number, y1: number, line = 1): OcrWord => ({
  text,
  conf,
  x0,
  y0,
  x1,
  y1,
  block: 1,
  par: 1,
  line,
});

/** A white page with black boxes (ink) where given. */
function page(width: number, height: number, inks: Array<[number, number, number, number]>): GrayImage {
  const data = Buffer.alloc(width * height, 255);
  for (const [x0, y0, x1, y1] of inks) for (let y = y0; y < y1; y++) data.fill(0, y * width + x0, y * width + x1);
  return { width, height, channels: 1, data };
}

describe('body rows that lost text', () => {
  const paper = { x: 0, y: 0, width: 600, height: 400 };
  // Five printed rows of 20 px; each word's box is inked as a block of letters.
  const rowsAt = [20, 60, 100, 140, 180];
  const sure = rowsAt.map((y, i) => word('WORD', 95, 20, y, 120, y + 20, i + 1));

  it('finds no row in doubt on a page read whole and surely', () => {
    const img = page(
      600,
      400,
      sure.map((w) => [w.x0, w.y0, w.x1, w.y1]),
    );
    expect(lostTextRows(sure, img, paper, 128)).toEqual([]);
  });

  it('finds a row with ink under no word, a row with figures read with doubt, and an inked row with no row', () => {
    const words = sure.map((w, i) => (i === 3 ? { ...w, text: '7.04', conf: 40 } : w));
    const img = page(600, 400, [
      ...words.map((w): [number, number, number, number] => [w.x0, w.y0, w.x1, w.y1]),
      // An amount at the right of row 2 that no word covers (three digits' width).
      [450, 62, 510, 78],
      // A whole row of ink at y 260-280 the reading found nothing on.
      [20, 260, 300, 280],
    ]);
    const lost = lostTextRows(words, img, paper, 128);
    expect(lost).toEqual([
      { y0: 60, y1: 80 },
      { y0: 140, y1: 160 },
      { y0: 260, y1: 280 },
    ]);
    // With the figures' evidence only (rows-reread.ts's `evidence: 'figures'`): the row of doubtful figures alone.
    expect(lostTextRows(words, img, paper, 128, 'figures')).toEqual([{ y0: 140, y1: 160 }]);
  });

  it('merges a row word by word: a surer reading of doubtful figures, a figure read where nothing was, no stray marks', () => {
    const old = [
      word('7.', 49, 100, 956, 130, 990),
      word('04-18', 96, 150, 956, 230, 990),
      word('16:26', 96, 250, 956, 330, 990),
      word('T2', 54, 550, 956, 580, 990),
    ];
    const now = [
      word('27-04-18', 96, 98, 957, 231, 990, 7),
      word('16:26', 97, 250, 957, 330, 990, 7),
      word('12', 55, 550, 957, 580, 990, 7),
      // Read where the first reading read nothing: a figure (taken) and a stray mark (not).
      word('8.70', 92, 700, 957, 760, 990, 7),
      word('|', 90, 800, 957, 805, 990, 7),
    ];
    const m = mergeRow(old, now)!;
    expect(m).toBeDefined();
    const merged = old.filter((w) => !m.gone.has(w)).concat(m.added);
    expect(ocrRows(merged).map((r) => r.text)).toEqual(['27-04-18 16:26 T2 8.70']);
    // The words taken join the first reading's line (one row, not a second line over it).
    expect(new Set(m.added.map((w) => `${w.block}.${w.par}.${w.line}`))).toEqual(new Set(['1.1.1']));
  });

  it('keeps the first reading where the new one is no surer', () => {
    const old = [word('RM', 90, 10, 0, 40, 20), word('10.00', 67, 50, 0, 110, 20)];
    expect(mergeRow(old, [word('RM', 90, 10, 0, 40, 20), word('10.60', 69, 50, 0, 110, 20)])).toBeUndefined();
    expect(mergeRow(old, [word('RM', 90, 10, 0, 40, 20), word('10.00', 66, 50, 0, 110, 20)])).toBeUndefined();
  });
});

describe('reading the body rows again on receipts', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await tempDir('ocr-body-');
  });
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));
  const rows = async (file: string, bodyReread: boolean) => {
    const img = await loadImagePage(corpus(`c_scanned_images/sroie/${file}`), 0);
    const r = await recogniseImage(img, { lang: 'eng', timeoutSeconds: 60, pageNumber: 1, tmpDir: tmp, bodyReread });
    return { rows: ocrRows(r.words).map((x) => x.text), report: r.report };
  };

  it('reads the date a receipt prints at a row start, which the first reading lost (081.jpg)', async () => {
    const [off, on] = [await rows('081.jpg', false), await rows('081.jpg', true)];
    expect(off.rows.some((t) => t.includes('24-11-17'))).toBe(false);
    expect(on.rows.some((t) => /^24-11-17 13:11/.test(t))).toBe(true);
    expect(off.report.body).toBeUndefined();
    expect(on.report.body!.replaced).toBeGreaterThanOrEqual(1);
  });

  it('reads the amounts standing alone at the right of their labels (471.jpg)', async () => {
    const [off, on] = [await rows('471.jpg', false), await rows('471.jpg', true)];
    const total = (rs: string[]) => rs.find((t) => /^Fina. Tota/.test(t));
    expect(total(off.rows)).not.toMatch(/8\.70/);
    expect(total(on.rows)).toMatch(/8\.70$/);
    expect(on.rows.find((t) => /^CASH( \d|$)/.test(t))).toBe('CASH 10.00');
  });

  it('is asked for: parsePages reads body rows again only with ocrBodyReread (off by default)', async () => {
    const run = async (ocrBodyReread?: boolean) => {
      const outDir = await tempDir('ocr-body-parse-');
      try {
        const r = await parsePages({
          path: corpus('c_scanned_images/sroie/081.jpg'),
          kind: 'image',
          backend: 'ocr',
          outDir,
          renderPages: false,
          ...(ocrBodyReread === undefined ? {} : { ocrBodyReread }),
        });
        return r.pages[0]!;
      } finally {
        await fs.rm(outDir, { recursive: true, force: true });
      }
    };
    const [off, on] = [await run(), await run(true)];
    expect(off.ocr?.body).toBeUndefined();
    expect(off.markdown).not.toMatch(/24-11-17/);
    expect(on.ocr?.body?.replaced).toBeGreaterThanOrEqual(1);
    expect(on.markdown).toMatch(/24-11-17/);
  });
});

describe('the header rows and the body rows read together (both re-reads on)', () => {
  it('reads several stacks in one Tesseract process, each as it reads alone', async () => {
    const tmp = await tempDir('ocr-stacks-');
    try {
      const gray = toGray(await loadImagePage(TESTOCR_PNG, 0));
      const half = Math.floor(gray.height / 2);
      const top = crop(gray, { x: 0, y: 0, width: gray.width, height: half });
      const bottom = crop(gray, { x: 0, y: half, width: gray.width, height: gray.height - half });
      const run = { lang: 'eng', timeoutSeconds: 60, pageNumber: 1 };
      const texts = (tsv: string) => parseTsv(tsv).words.map((w) => `${w.text}@${w.left},${w.top}`);
      const both = await recognizeImages(startStackRun(run), [
        { file: path.join(tmp, 'a.pgm'), image: top },
        { file: path.join(tmp, 'b.pgm'), image: bottom },
      ]);
      expect(both).toHaveLength(2);
      const alone = [
        await recognizeImage(startStackRun(run), path.join(tmp, 'c.pgm'), top),
        await recognizeImage(startStackRun(run), path.join(tmp, 'd.pgm'), bottom),
      ];
      expect(texts(both[0]!).length).toBeGreaterThan(3);
      expect(texts(both[1]!).length).toBeGreaterThan(3);
      expect(both.map(texts)).toEqual(alone.map(texts));
      // The files are gone once read.
      expect(await fs.readdir(tmp)).toEqual([]);
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  }, 120_000);

  /** parsePages on 081.jpg with both re-reads; every Tesseract process and the files its stdin was given. */
  const parse = async (ocrRowsTogether?: boolean) => {
    const outDir = await tempDir('ocr-rows-together-');
    const runs: Array<{ args: string[]; files: string[] }> = [];
    const restore = setToolRunner(async (cmd, args, opts) => {
      const run = { args, files: [] as string[] };
      if (cmd === 'tesseract') runs.push(run);
      const input = opts.input?.then((list) => {
        run.files = String(list).split('\n').filter(Boolean);
        return list;
      });
      return spawnRunner(cmd, args, input ? { ...opts, input } : opts);
    });
    try {
      const r = await parsePages({
        path: corpus('c_scanned_images/sroie/081.jpg'),
        kind: 'image',
        backend: 'ocr',
        outDir,
        renderPages: false,
        ocrHeaderReread: true,
        ocrBodyReread: true,
        ...(ocrRowsTogether === undefined ? {} : { ocrRowsTogether }),
      });
      // The stacked rows' runs (psm 6), by the files they read.
      const stacks = runs
        .filter((r) => r.args[r.args.indexOf('--psm') + 1] === '6' && r.files.length)
        .map((r) => ({ best: r.args.includes('--tessdata-dir'), files: r.files.map((f) => path.basename(f)) }));
      return { page: r.pages[0]!, stacks, processes: runs.length };
    } finally {
      restore();
      await fs.rm(outDir, { recursive: true, force: true });
    }
  };

  it('reads both stacks of the fast model in one process, the best model in another: one process fewer', async () => {
    const [together, apart] = [await parse(), await parse(false)];
    // Apart: the header's 48 px stack, its 32 px stack (best model) and the body's stack, one process each.
    expect(apart.stacks).toHaveLength(3);
    expect(apart.stacks.every((s) => s.files.length === 1)).toBe(true);
    // Together: the fast model's process reads the header's 48 px stack and the body's stack, one after
    // the other; the best model's process the 32 px stack.
    expect(together.stacks).toEqual([
      { best: false, files: ['rows-1-header-0.pgm', 'rows-1-body.pgm'] },
      { best: true, files: ['rows-1-header-1.pgm'] },
    ]);
    expect(together.processes).toBe(apart.processes - 1);
    // Both parts did their work: the header rows read again, and the receipt's date (a row of figures
    // read with doubt) read as printed.
    expect(together.page.ocr?.header?.rows).toBeGreaterThanOrEqual(1);
    expect(together.page.ocr?.body?.replaced).toBeGreaterThanOrEqual(1);
    expect(together.page.markdown).toMatch(/24-11-17/);
  }, 240_000);
});
