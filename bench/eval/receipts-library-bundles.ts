// Bundles for bench/eval/receipts-bundles.ts made by this checkout's libs/pdf (inspect → parse →
// assemble → segmentsFromGrounding, the steps the parse worker runs) without the fleet: the quick
// loop for OCR changes that shows what they do to receipt extraction. Prints seconds per image
// (library OCR, one receipt at a time) beside raw `tesseract IMG stdout -l eng` on the same images.
//   pnpm exec tsx bench/eval/receipts-library-bundles.ts OUT_DIR [--corpus DIR] [--half A|B] [--match REGEX] [--no-raw] [--header-reread] [--body-reread] [--no-header-lexicon]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assembleDocument, inspectDocument, parsePages, segmentsFromGrounding } from '../../libs/pdf/src';
import { receiptRows } from '../../libs/models/eval/receipts';

async function main(argv: string[]) {
  const out = argv[0];
  const valueOf = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  if (!out || out.startsWith('--')) {
    console.error('usage: receipts-library-bundles.ts OUT_DIR [--corpus DIR] [--half A|B] [--match REGEX]');
    process.exit(2);
  }
  const corpus = path.resolve(valueOf('--corpus') ?? process.env.DOCFLEET_CORPUS ?? '../shared/corpus');
  const half = valueOf('--half');
  const ocrHeaderReread = argv.includes('--header-reread');
  const ocrBodyReread = argv.includes('--body-reread');
  const ocrRowsTogether = !argv.includes('--rows-apart');
  const ocrHeaderLexicon = !argv.includes('--no-header-lexicon');
  const match = valueOf('--match') ? new RegExp(valueOf('--match')!) : undefined;
  await fs.mkdir(out, { recursive: true });
  let ours = 0,
    raw = 0,
    n = 0;
  for (const row of await receiptRows(corpus)) {
    if ((half && row.half !== half) || (match && !match.test(row.path))) continue;
    const file = path.join(corpus, row.path);
    const name = path.basename(row.path);
    const scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'docfleet-receipt-'));
    try {
      const t0 = process.hrtime.bigint();
      const backend = (await inspectDocument(file, 'image')).backend.backend;
      const r = await parsePages({
        path: file,
        kind: 'image',
        backend,
        outDir: scratch,
        renderPages: false,
        ocrHeaderReread,
        ocrBodyReread,
        ocrRowsTogether,
        ocrHeaderLexicon,
      });
      const { grounding } = assembleDocument(
        name,
        'image',
        r.pages.map((p) => p.grounding),
        r.pages.map((p) => p.markdown),
        backend,
        { pageCount: r.pages.length },
      );
      const t1 = process.hrtime.bigint();
      if (!argv.includes('--no-raw'))
        execFileSync('tesseract', [file, 'stdout', '-l', 'eng'], {
          stdio: ['ignore', 'ignore', 'ignore'],
          env: { ...process.env, OMP_THREAD_LIMIT: '1' },
        });
      const t2 = process.hrtime.bigint();
      ours += Number(t1 - t0) / 1e9;
      raw += Number(t2 - t1) / 1e9;
      n++;
      const segments = segmentsFromGrounding(grounding, {
        fileId: name,
        docName: name,
        manifestId: 'library',
        sourceType: 'image',
      });
      const o = r.pages[0]?.ocr;
      await fs.writeFile(path.join(out, `${name}.json`), JSON.stringify({ path: row.path, segments, grounding }));
      console.error(
        `${name} ${(Number(t1 - t0) / 1e9).toFixed(2)}s raw ${(Number(t2 - t1) / 1e9).toFixed(2)}s ${o ? `${o.chosen}; ${o.tried.map((t) => `${t.name} ${t.ms}ms`).join(', ')}${o.header ? `; header rows ${o.header.replaced}/${o.header.rows} ${o.header.ms}ms` : ''}${o.lexicon ? `; lexicon ${o.lexicon.map((f) => `${f.from}→${f.to}`).join(', ')}` : ''}` : ''}`,
      );
    } finally {
      await fs.rm(scratch, { recursive: true, force: true });
    }
  }
  console.log(
    `${n} receipts: ${(ours / n).toFixed(2)} s per image, raw tesseract ${(raw / n).toFixed(2)} s (${(ours / raw).toFixed(2)}x)`,
  );
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
