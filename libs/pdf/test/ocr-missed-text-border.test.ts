// The missed-text pass reads a page again as one block (psm 6) when much of the ink in its printed
// rows lies under no word, lined up in a column (a table's dropped figures). A receipt scanned with
// a dark border down one side has such a column in every row, and in every gap between the rows
// too: that ink is the border, not text, and the second reading found no word in it (issue 23:
// receipt 273, ~0.7 s beyond its one reading). Every Tesseract process goes through run-tool's
// runner, which this test replaces with one that notes them.
import fs from 'node:fs/promises';
import { parsePages } from '../src';
import { recogniseImage, wordsOfTsv } from '../src/ocr/recognise';
import { runTesseractTsv } from '../src/ocr/tesseract-tsv';
import { leftFiguresUnread, withUnreadWords } from '../src/ocr/missed-text-pass';
import { writePgm } from '../src/ocr/preprocess';
import { loadImagePage } from '../src/render/image-input';
import { setToolRunner, spawnRunner } from '../src/render/run-tool';
import { corpus, tempDir } from './helpers/fixtures';

const RECEIPT = corpus('c_scanned_images/sroie/273.jpg');

it('reads a receipt with a scanner border once: the border is not text the reading left out', async () => {
  const out = await tempDir('pdf-border-');
  const runs: string[][] = [];
  const restore = setToolRunner(async (cmd, args, opts) => {
    if (cmd === 'tesseract') runs.push(args);
    return spawnRunner(cmd, args, opts);
  });
  try {
    const res = await parsePages({ path: RECEIPT, kind: 'image', backend: 'ocr', outDir: out, renderPages: false });
    const page = res.pages[0]!;
    expect(page.ocr?.paper?.x).toBeGreaterThan(0); // the border was cropped for the reading
    expect(page.ocr?.chosen).toBe('as-is');
    // One reading; no missed-text pass (its file is `block-N.pgm`).
    expect(runs.filter((a) => /\/block-\d+\.pgm$/.test(a[0]!))).toEqual([]);
    expect(runs).toHaveLength(1);
    expect(page.markdown).toContain('BEMED');
  } finally {
    restore();
    await fs.rm(out, { recursive: true, force: true });
  }
}, 120_000);

it('loses no word by it: the one-block reading the pass would make adds nothing on that receipt', async () => {
  const tmp = await tempDir('pdf-border-');
  try {
    const img = await loadImagePage(RECEIPT, 0);
    const { words, gray, grayThreshold } = await recogniseImage(img, {
      lang: 'eng',
      timeoutSeconds: 120,
      pageNumber: 1,
      tmpDir: tmp,
    });
    expect(leftFiguresUnread(gray, words, 1, grayThreshold)).toBe(false);
    // The pass as it ran before: the whole grey page read as one block, its words where the first
    // reading has none added when read with more confidence than not.
    const file = `${tmp}/block.pgm`;
    await writePgm(file, gray);
    const tsv = await runTesseractTsv(file, { dpi: img.density, psm: 6, lang: 'eng', timeoutSeconds: 120 });
    const block = wordsOfTsv(tsv);
    expect(block.length).toBeGreaterThan(50);
    expect(withUnreadWords(words, block)).toEqual(words);
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}, 120_000);
