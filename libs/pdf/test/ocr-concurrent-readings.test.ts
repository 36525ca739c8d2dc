// A page from which the first reading gets next to nothing is read again binarised (and inverted
// when dark) and, when those find nothing either, as one block (psm 6). Those readings do not
// depend on one another, so they run at the same time: every Tesseract process goes through
// run-tool's runner, which this test replaces with one that notes when each starts and ends.
import fs from 'node:fs/promises';
import { parsePages } from '../src';
import { setToolRunner, spawnRunner } from '../src/render/run-tool';
import { corpus, tempDir } from './helpers/fixtures';

interface Run {
  args: string[];
  start: number;
  end: number;
}

it('reads a photo binarised and as one block at the same time and checks its orientation meanwhile, keeping the one-block reading', async () => {
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
    // The receipt photographed on a dark ground (ocr-backend.test.ts): as-is and binarised read two
    // words, and the one-block reading finds its rows.
    const res = await parsePages({
      path: corpus('c_scanned_images/sroie/506.jpg'),
      kind: 'image',
      backend: 'ocr',
      outDir: out,
      renderPages: false,
    });
    const page = res.pages[0]!;
    expect(page.ocr?.tried.map((t) => t.name)).toEqual(['as-is', 'binarised', 'one block']);
    expect(page.ocr?.chosen).toBe('one block');
    const psm = (r: Run) => r.args[r.args.indexOf('--psm') + 1];
    // The page's readings (recogniseImage's files, or the head start's stdin); later passes over
    // parts of the page (missed text) have files of their own.
    const readings = runs.filter((r) => r.args[0] === 'stdin' || /\/ocr-1-\d+\.pgm$/.test(r.args[0]!));
    const block = readings.filter((r) => psm(r) === '6');
    expect(block).toHaveLength(1);
    // The psm-3 readings: the first, then the binarised one.
    const [first, ...later] = readings.filter((r) => psm(r) === '3');
    expect(first).toBeDefined();
    expect(later).toHaveLength(1);
    // The one-block reading started before the binarised one ended, and after the first reading.
    expect(block[0]!.start).toBeLessThan(later[0]!.end);
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
