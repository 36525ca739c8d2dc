// A page from which the first reading gets next to nothing is read again binarised (and inverted
// when dark) and, when those find nothing either, as one block (psm 6). Those readings do not
// depend on one another, so they run at the same time: every Tesseract process goes through
// run-tool's runner, which this test replaces with one that notes when each starts and ends. A
// page whose first reading took most of it for a picture is not read binarised: Tesseract
// thresholds a grey page at Otsu's level itself, so the binarised page is segmented the same way.
import fs from 'node:fs/promises';
import { parsePages } from '../src';
import { setToolRunner, spawnRunner } from '../src/render/run-tool';
import { pictureShare } from '../src/ocr/tesseract-tsv';
import { corpus, tempDir } from './helpers/fixtures';

interface Run {
  args: string[];
  start: number;
  end: number;
}

it('reads a faint photo taken for a picture as one block (not binarised) and checks its orientation meanwhile, keeping the one-block reading', async () => {
  const out = await tempDir('pdf-concurrent-');
  const runs: Run[] = [];
  const restore = setToolRunner(async (cmd, args, opts) => {
    const run = { args, start: performance.now(), end: Infinity };
    if (cmd === 'tesseract') runs.push(run);
    try {
      return await spawnRunner(cmd, args, opts);
    } finally {
      run.end = performance.now();
    }
  });
  try {
    // The receipt of faint purple print (ocr-backend.test.ts): the first reading takes the page for one
    // picture and reads two words; binarised it read the same two (the same segmentation), and the
    // one-block reading finds its rows.
    const res = await parsePages({
      path: corpus('c_scanned_images/sroie/506.jpg'),
      kind: 'image',
      backend: 'ocr',
      outDir: out,
      renderPages: false,
    });
    const page = res.pages[0]!;
    expect(page.ocr?.tried.map((t) => t.name)).toEqual(['as-is', 'one block']);
    expect(page.ocr?.chosen).toBe('one block');
    const psm = (r: Run) => r.args[r.args.indexOf('--psm') + 1];
    // The page's readings (recogniseImage's files, or the head start's stdin); later passes over
    // parts of the page (missed text) have files of their own.
    const readings = runs.filter((r) => r.args[0] === 'stdin' || /\/ocr-1-\d+\.pgm$/.test(r.args[0]!));
    const block = readings.filter((r) => psm(r) === '6');
    expect(block).toHaveLength(1);
    // The psm-3 readings: the first only (no binarised one).
    const [first, ...later] = readings.filter((r) => psm(r) === '3');
    expect(first).toBeDefined();
    expect(later).toHaveLength(0);
    // The one-block reading started after the first reading.
    expect(block[0]!.start).toBeGreaterThanOrEqual(first!.end);
    // Its words are a one-block reading already: the missed-text pass (which reads the page as one
    // block again, `block-N.pgm`) is not run after it.
    expect(runs.filter((r) => /\/block-\d+\.pgm$/.test(r.args[0]!))).toEqual([]);
    // The one-block reading is kept at a low confidence, so the page is checked for its orientation:
    // once, started with the one-block reading (on the same page) rather than after it.
    const osd = runs.filter((r) => r.args.includes('osd'));
    expect(osd).toHaveLength(1);
    expect(osd[0]!.start).toBeGreaterThanOrEqual(first!.end);
    expect(osd[0]!.start).toBeLessThan(block[0]!.end);
  } finally {
    restore();
    await fs.rm(out, { recursive: true, force: true });
  }
}, 180_000);

it('measures the share of the page a reading took for a picture: the largest block without text', () => {
  const row = (level: number, block: number, box: [number, number, number, number], conf: number, text: string) =>
    [level, 1, block, 0, 0, 0, ...box, conf, text].join('\t');
  const head = 'level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext';
  // 506.jpg's first reading: one empty block the size of the page, two tiny blocks with a word each.
  const picture = [
    head,
    row(1, 0, [0, 0, 595, 1771], -1, ''),
    row(2, 1, [574, 0, 21, 610], -1, ''),
    row(5, 1, [574, 0, 21, 610], 95, ' '),
    row(2, 3, [0, 0, 595, 1771], -1, ''),
    row(5, 3, [0, 0, 595, 1771], 95, ' '),
    row(2, 4, [118, 1427, 84, 17], -1, ''),
    row(5, 4, [118, 1427, 84, 17], 56, 'PROVIDE'),
  ].join('\n');
  expect(pictureShare(picture)).toBe(1);
  // A page of text with a logo: the logo's block is a small share.
  const text = [
    head,
    row(1, 0, [0, 0, 1000, 2000], -1, ''),
    row(2, 1, [400, 0, 200, 200], -1, ''),
    row(5, 1, [400, 0, 200, 200], 95, ' '),
    row(2, 2, [50, 250, 900, 1600], -1, ''),
    row(5, 2, [50, 250, 100, 30], 91, 'TOTAL'),
  ].join('\n');
  expect(pictureShare(text)).toBeCloseTo(0.02, 5);
  expect(pictureShare('')).toBe(0);
});
