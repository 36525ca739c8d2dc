// The JavaScript side of an image page's OCR (issue 23's time target): every receipt's page is read
// once through ocrImagePage with real Tesseract, its TSVs kept by (arguments, input bytes); then the
// page is processed again N times with those TSVs given back at once (setToolRunner), so the time left
// is docfleet's own work around the engine (decode excluded). Prints ms per image, and with --cpu-prof
// on node shows where it goes. `pnpm exec tsx bench/ocr-js-profile.ts [corpusDir] [--every N] [--repeat R]`.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ocrDocuments } from '../libs/pdf/eval/ocr-eval';
import { ocrImagePage } from '../libs/pdf/src/parse/ocr-page';
import { loadImagePage } from '../libs/pdf/src/render/image-input';
import { setToolRunner, spawnRunner, type ToolResult } from '../libs/pdf/src/render/run-tool';

async function main(argv: string[]) {
  const corpus = path.resolve(
    argv.find((a) => !a.startsWith('--') && !/^\d+$/.test(a)) ?? path.resolve(__dirname, '../../shared/corpus'),
  );
  const opt = (k: string, d: number) => (argv.indexOf(k) >= 0 ? Number(argv[argv.indexOf(k) + 1]) : d);
  const every = opt('--every', 2);
  const repeat = opt('--repeat', 3);
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? new Set(argv[onlyAt + 1]!.split(',')) : undefined;
  const docs = (await ocrDocuments(corpus))
    .filter((d) => d.half)
    .filter((d, i) => (only ? only.has(path.basename(d.file, '.jpg')) : (i >> 1) % every === 0));
  const cache = new Map<string, ToolResult>();
  let replay = false;
  const keyOf = async (args: string[], input?: Promise<string | Buffer>) => {
    const file = input ? String(await input).trim() : args.find((a) => a.startsWith('/'))!;
    const bytes = await fs.readFile(file);
    return `${args.filter((a) => !a.startsWith('/')).join(' ')} ${crypto.createHash('sha1').update(bytes).digest('hex')}`;
  };
  const restore = setToolRunner(async (cmd, args, opts) => {
    if (cmd !== 'tesseract') return spawnRunner(cmd, args, opts);
    if (replay) {
      const k = await keyOf(args, opts.input);
      const hit = cache.get(k);
      if (hit) return hit;
      throw new Error(`not cached: ${k}`);
    }
    let key: Promise<string> | undefined;
    const input = opts.input?.then((v) => {
      key = keyOf(args, Promise.resolve(v));
      return v;
    });
    if (!opts.input) key = keyOf(args);
    const r = await spawnRunner(cmd, args, { ...opts, ...(input ? { input } : {}) });
    cache.set(await key!, r);
    return r;
  });
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'ocr-js-'));
  try {
    const imgs = [];
    for (const d of docs) imgs.push({ d, img: await loadImagePage(d.file, 0) });
    for (const { img } of imgs)
      await ocrImagePage(img, 1, tmp, { dpi: 300, lang: 'eng', timeoutSeconds: 120 }).catch(() => undefined);
    replay = true;
    const per = new Map<string, number[]>();
    for (let r = 0; r < repeat; r++)
      for (const { d, img } of imgs) {
        const t = process.hrtime.bigint();
        await ocrImagePage(img, 1, tmp, { dpi: 300, lang: 'eng', timeoutSeconds: 120 });
        per.set(d.doc, [...(per.get(d.doc) ?? []), Number(process.hrtime.bigint() - t) / 1e6]);
      }
    const best = [...per.entries()].map(([k, v]) => [k, Math.min(...v)] as const);
    for (const [k, v] of best) console.log(`${path.basename(k)} ${v.toFixed(1)} ms`);
    const mean = best.reduce((a, [, v]) => a + v, 0) / best.length;
    console.log(`\n${best.length} receipts: docfleet's own work ${mean.toFixed(1)} ms per image (best of ${repeat})`);
  } finally {
    restore();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(err);
  process.exit(1);
});
