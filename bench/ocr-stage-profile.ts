// Where an image page's OCR time goes (issue 23's time target): for a sample of the SROIE receipts
// of both halves (as ocrDocuments splits them), raw `tesseract IMG stdout -l eng` beside docfleet's
// image path (loadImagePage + ocrImagePage), with every Tesseract process the page starts (its
// arguments and wall time, seen through setToolRunner) and the time between them split by stage.
// `pnpm exec tsx bench/ocr-stage-profile.ts [corpusDir] [--every N]` (default: every 4th receipt).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ocrDocuments } from '../libs/pdf/eval/ocr-eval';
import { ocrImagePage } from '../libs/pdf/src/parse/ocr-page';
import { loadImagePage } from '../libs/pdf/src/render/image-input';
import { runTool, setToolRunner, spawnRunner } from '../libs/pdf/src/render/run-tool';

async function main(argv: string[]) {
  const corpus = path.resolve(argv.find((a) => !a.startsWith('--')) ?? path.resolve(__dirname, '../../shared/corpus'));
  const everyAt = argv.indexOf('--every');
  const every = everyAt >= 0 ? Number(argv[everyAt + 1]) : 4;
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? new Set(argv[onlyAt + 1]!.split(',')) : undefined;
  const docs = (await ocrDocuments(corpus))
    .filter((d) => d.half)
    .filter((d, i) => (only ? only.has(path.basename(d.file, '.jpg')) : (i >> 1) % every === 0)); // pairs: one of each half
  const runs: Array<{ args: string; ms: number; px: string }> = [];
  const restore = setToolRunner(async (cmd, args, opts) => {
    const t0 = Date.now();
    // The size of the image Tesseract was given (a PGM we wrote: its header).
    let px = '';
    const file = opts.input ? opts.input.then((v) => String(v).trim()) : Promise.resolve(args[0]!);
    void file.then(async (f) => {
      const h = (await fs.readFile(f).catch(() => Buffer.alloc(0))).subarray(0, 32).toString('latin1').split(/\s+/);
      if (h[0] === 'P5') px = `${h[1]}x${h[2]}`;
    });
    try {
      return await spawnRunner(cmd, args, opts);
    } finally {
      if (cmd === 'tesseract')
        runs.push({ args: args.filter((a) => !a.startsWith('/') && a !== 'stdin').join(' '), ms: Date.now() - t0, px });
    }
  });
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'ocr-profile-'));
  const tot = { raw: 0, ours: 0, decode: 0, tess: 0, n: 0, runs: 0 };
  const byHalf: Record<string, { raw: number; ours: number }> = { A: { raw: 0, ours: 0 }, B: { raw: 0, ours: 0 } };
  try {
    for (const d of docs) {
      let t = Date.now();
      await runTool('tesseract', [d.file, 'stdout', '-l', 'eng'], { env: { OMP_THREAD_LIMIT: '1' } });
      const raw = Date.now() - t;
      runs.length = 0;
      t = Date.now();
      const img = await loadImagePage(d.file, 0);
      const decode = Date.now() - t;
      const { report } = await ocrImagePage(img, 1, tmp, { dpi: 300, lang: 'eng', timeoutSeconds: 120 });
      const ours = Date.now() - t;
      const tess = runs.reduce((a, r) => a + r.ms, 0);
      tot.raw += raw;
      tot.ours += ours;
      tot.decode += decode;
      tot.tess += tess;
      tot.runs += runs.length;
      tot.n++;
      byHalf[d.half!]!.raw += raw;
      byHalf[d.half!]!.ours += ours;
      console.log(
        `${path.basename(d.file)} (${d.half}) raw ${raw} ms, ours ${ours} ms (${(ours / raw).toFixed(2)}x): decode ${decode}, ` +
          `tesseract ${runs.map((r) => `[${r.args} ${r.px}] ${r.ms}`).join(', ')}; chosen ${report.chosen}` +
          `${report.cells ? `; cells ${report.cells.runs} runs ${report.cells.ms} ms` : ''}`,
      );
    }
  } finally {
    restore();
    await fs.rm(tmp, { recursive: true, force: true });
  }
  console.log(
    `\n${tot.n} receipts: raw ${(tot.raw / tot.n).toFixed(0)} ms, ours ${(tot.ours / tot.n).toFixed(0)} ms per image ` +
      `(${(tot.ours / tot.raw).toFixed(2)}x; A ${(byHalf.A!.ours / byHalf.A!.raw).toFixed(2)}x, B ${(byHalf.B!.ours / byHalf.B!.raw).toFixed(2)}x); ` +
      `decode ${(tot.decode / tot.n).toFixed(0)} ms, Tesseract runs ${(tot.runs / tot.n).toFixed(2)} per image, ${(tot.tess / tot.n).toFixed(0)} ms summed wall`,
  );
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exit(1);
});
