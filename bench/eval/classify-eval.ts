// `pnpm eval:classify [corpusDir] [--no-ocr] [--only REGEX] [--json]`: document-class accuracy of docfleet-local
// through the classify run's own code path (libs/workflows classifyDocument), over every document
// of the corpus MANIFEST.tsv, with the MANIFEST's doc_class values as the classes offered.
//
// Documents are parsed with the libraries the parse worker uses (libs/pdf for PDFs and images,
// libs/sheets for spreadsheets); --no-ocr skips the inputs that only OCR can read (slow on 2 cores);
// --only keeps the rows whose path matches REGEX (e.g. `sroie|pubtabnet`). Accuracy is also given for
// two halves of the manifest (A: odd rows 1, 3, 5, …; B: even rows), so a change tuned on one half
// can be checked on the other.
// Writes bench/out/classify-eval.json.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_CORPUS, parseEvidence } from '../../libs/models/eval/corpus-evidence';
import { manifest } from '../../libs/models/eval/corpus-sets';
import { readModelConfig, resolveModel } from '../../libs/models/src';
import { classifyDocument } from '../../libs/workflows/src';

const OCR_ONLY = /\.(png|jpe?g|tiff?)$|c_scanned_images\/docling\/ocr_test\.pdf|table-multi-row-column-cells\.pdf/i;

async function main() {
  const args = process.argv.slice(2).filter((a, i, all) => all[i - 1] !== '--only');
  const corpus = path.resolve(args.find((a) => !a.startsWith('--')) ?? DEFAULT_CORPUS);
  const noOcr = process.argv.includes('--no-ocr');
  const onlyAt = process.argv.indexOf('--only');
  const only = onlyAt > 0 ? new RegExp(process.argv[onlyAt + 1] ?? '') : undefined;
  const model = resolveModel(readModelConfig({ MODEL_DEFAULT: 'docfleet-local' }), 'docfleet-local');
  const rows = await manifest(corpus);
  const classes = [...new Set(rows.map((r) => r.docClass))].sort();
  const results: Array<{
    doc: string;
    half: 'A' | 'B';
    expected: string;
    predicted: string;
    confidence: number;
    pages: number;
  }> = [];
  const skipped: string[] = [];
  const started = Date.now();
  for (const [i, r] of rows.entries()) {
    if (only && !only.test(r.path)) continue;
    if (noOcr && OCR_ONLY.test(r.path)) {
      skipped.push(`${r.path}: needs OCR (--no-ocr)`);
      continue;
    }
    let parsed;
    try {
      parsed = await parseEvidence(path.join(corpus, r.path));
    } catch (err) {
      skipped.push(`${r.path}: ${(err as Error).message}`);
      continue;
    }
    const pageCount = parsed.grounding?.pages.length ?? 1;
    const out = await classifyDocument({ evidence: parsed.evidence, pageCount, classes, model });
    results.push({
      doc: r.path,
      half: i % 2 === 0 ? 'A' : 'B',
      expected: r.docClass,
      predicted: out.document.class,
      confidence: out.document.confidence,
      pages: out.pages.length,
    });
  }
  const correct = results.filter((x) => x.expected === x.predicted).length;
  const accuracy = results.length ? correct / results.length : 0;
  const perClass = Object.fromEntries(
    classes.map((k) => {
      const of = results.filter((x) => x.expected === k);
      return [k, { total: of.length, correct: of.filter((x) => x.predicted === k).length }];
    }),
  );
  const halves = Object.fromEntries(
    (['A', 'B'] as const).map((h) => {
      const of = results.filter((x) => x.half === h);
      const ok = of.filter((x) => x.expected === x.predicted).length;
      return [h, { total: of.length, correct: ok, accuracy: of.length ? ok / of.length : 0 }];
    }),
  );
  const report = {
    corpus,
    model: 'docfleet-local',
    accuracy,
    correct,
    total: results.length,
    classes,
    perClass,
    halves,
    rows: results,
    skipped,
    seconds: (Date.now() - started) / 1000,
  };
  await mkdir(path.resolve(__dirname, '../out'), { recursive: true });
  await writeFile(path.resolve(__dirname, '../out/classify-eval.json'), JSON.stringify(report, null, 2));
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  console.log(`classify eval: docfleet-local over ${classes.length} classes (MANIFEST doc_class)`);
  console.log(`\naccuracy ${(accuracy * 100).toFixed(1)}% (${correct}/${results.length})`);
  for (const [h, v] of Object.entries(halves))
    console.log(
      `   half ${h} (${h === 'A' ? 'odd' : 'even'} manifest rows) ${(v.accuracy * 100).toFixed(1)}% (${v.correct}/${v.total})`,
    );
  for (const [k, v] of Object.entries(perClass)) console.log(`   ${k.padEnd(34)} ${v.correct}/${v.total}`);
  for (const x of results)
    if (x.expected !== x.predicted)
      console.log(`   MISS ${x.doc} → ${x.predicted} (${x.confidence}), expected ${x.expected}`);
  for (const s of skipped) console.log(`   skipped ${s}`);
  console.log(`\n(${report.seconds.toFixed(1)} s; written to bench/out/classify-eval.json)`);
  if (accuracy < 0.8) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
