// Speed micro-benchmark (run: pnpm exec tsx libs/pdf/bench/parse-speed.ts [corpusDir] [--reps N]).
//  1. Text-layer parse of the born-digital corpus PDFs, with and without page images, beside raw
//     pdf.js getTextContent + canvas render + PNG encode of the same pages, in the same process.
//  2. OCR per page beside the plain `tesseract` CLI on the same rasterised page, and the whole
//     OCR page (raster, OCR, layout, page image) beside it.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { parsePages } from '../src';
import { ocrRasterFile } from '../src/parse/ocr-page';
import { openPdf } from '../src/pdfjs-loader';
import { rasterisePdf } from '../src/render/rasterise';
import { rawPdfjs } from './raw-pdfjs';

const run = promisify(execFile);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timeIt(reps: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return median(times);
}

async function main(argv: string[]): Promise<void> {
  const repsAt = argv.indexOf('--reps');
  const reps = repsAt >= 0 ? Number(argv[repsAt + 1]) : 5;
  const corpus = path.resolve(
    argv.find((a, i) => !a.startsWith('--') && i !== repsAt + 1) ??
      path.resolve(__dirname, '../../../../shared/corpus'),
  );
  const dir = path.join(corpus, 'a_born_digital/docling');
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.pdf')).map((f) => path.join(dir, f));
  let pages = 0;
  for (const f of files) {
    const d = await openPdf(f);
    pages += d.numPages;
    await d.destroy();
  }
  const out = await fs.mkdtemp(path.join(os.tmpdir(), 'docfleet-bench-'));
  try {
    const parseAll = (renderPages: boolean) => async () => {
      for (const f of files) await parsePages({ path: f, kind: 'pdf', backend: 'text', outDir: out, renderPages });
    };
    await parseAll(true)(); // warm-up: pdf.js module, fonts, sharp
    const withImages = await timeIt(reps, parseAll(true));
    const textOnly = await timeIt(reps, parseAll(false));
    const raw = await timeIt(reps, () => rawPdfjs(files, 150));
    const pps = (ms: number) => (pages / (ms / 1000)).toFixed(2);
    console.log(`text-layer parse, ${files.length} born-digital PDFs, ${pages} pages, median of ${reps}:`);
    console.log(`  ours with page images   ${withImages.toFixed(0).padStart(6)} ms  ${pps(withImages)} pages/s`);
    console.log(`  ours without images     ${textOnly.toFixed(0).padStart(6)} ms  ${pps(textOnly)} pages/s`);
    console.log(`  raw pdf.js text+render  ${raw.toFixed(0).padStart(6)} ms  ${pps(raw)} pages/s`);
    console.log(`  ratio ours(with images) / raw = ${(withImages / raw).toFixed(2)}x (target <= 1.3x, >= 4 pages/s)`);

    // OCR: the same 300-dpi raster through our OCR path and through the plain CLI.
    const ocrDir = path.join(out, 'ocr');
    await fs.mkdir(ocrDir, { recursive: true });
    const samples = [
      { file: path.join(corpus, 'c_scanned_images/docling/ocr_test.pdf'), page: 1 },
      { file: path.join(dir, 'redp5110_sampled.pdf'), page: 5 },
    ];
    console.log(`\nOCR per page (300 dpi, OMP_THREAD_LIMIT=1), median of ${reps}:`);
    for (const s of samples) {
      const raster = (
        await rasterisePdf(s.file, ocrDir, { dpi: 300, gray: true, firstPage: s.page, lastPage: s.page })
      ).get(s.page)!;
      const doc = await openPdf(s.file);
      const vp = (await doc.getPage(s.page)).getViewport({ scale: 1 });
      await doc.destroy();
      // Interleaved so both see the same machine load (the CPU is shared).
      const oursT: number[] = [],
        plainT: number[] = [];
      for (let i = 0; i < reps; i++) {
        const copy = `${raster}.copy.pgm`;
        await fs.copyFile(raster, copy); // ocrRasterFile deletes its input
        let t = performance.now();
        await ocrRasterFile(copy, s.page, vp.width, vp.height, { dpi: 300, lang: 'eng', timeoutSeconds: 120 });
        oursT.push(performance.now() - t);
        t = performance.now();
        await run('tesseract', [raster, 'stdout', '--oem', '1', '--psm', '3', '--dpi', '300', '-l', 'eng', 'tsv'], {
          env: { ...process.env, OMP_THREAD_LIMIT: '1' },
          maxBuffer: 1 << 24,
        });
        plainT.push(performance.now() - t);
      }
      const ours = median(oursT),
        plain = median(plainT);
      // The whole page: one pdftoppm raster, Tesseract, layout and the page image derived from the raster.
      const e2e = await timeIt(reps, () =>
        parsePages({ path: s.file, kind: 'pdf', backend: 'ocr', pageNumbers: [s.page], outDir: out }),
      );
      console.log(
        `  ${path.basename(s.file)} p${s.page}: ours ${ours.toFixed(0)} ms, plain tesseract ${plain.toFixed(0)} ms, ratio ${(ours / plain).toFixed(2)}x (target <= 1.15x); ` +
          `end-to-end incl. pdftoppm and page image ${e2e.toFixed(0)} ms (${(e2e / plain).toFixed(2)}x)`,
      );
    }
  } finally {
    await fs.rm(out, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exit(1);
});
