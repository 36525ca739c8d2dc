// Quality of docfleet-local on the corpus: extraction (invoices, Kleister NDAs), split (split_plans.json)
// and classification (MANIFEST doc_class). Usage: pnpm exec tsx libs/models/eval/eval-local.ts [corpus] [--no-ocr] [--json]
import { DEFAULT_CORPUS, parseEvidence } from './corpus-evidence';
import { evaluateClassification, evaluateInvoices, evaluateNdas, evaluateSplit } from './run-eval';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const f3 = (x: number) => x.toFixed(3);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const corpus = args.find((a) => !a.startsWith('--')) ?? DEFAULT_CORPUS;
  const noOcr = args.includes('--no-ocr');
  const started = Date.now();
  const inv = await evaluateInvoices(corpus, (f) => parseEvidence(f));
  const nda = await evaluateNdas(corpus, (f) => parseEvidence(f));
  const split = await evaluateSplit(corpus, (f) => parseEvidence(f));
  const extra = await evaluateSplit(corpus, (f) => parseEvidence(f), 'extra');
  // Image inputs and image-only PDFs need OCR (slow); --no-ocr keeps text-layer PDFs and spreadsheets.
  const ocrOnly = /\.(png|jpe?g)$|c_scanned_images\/docling\/ocr_test\.pdf|table-multi-row-column-cells\.pdf/;
  const cls = await evaluateClassification(
    corpus,
    (f) => parseEvidence(f),
    (p) => !noOcr || !ocrOnly.test(p),
  );
  if (args.includes('--json')) {
    console.log(JSON.stringify({ invoices: inv, ndas: nda, split, splitExtra: extra, classification: cls }, null, 2));
    return;
  }
  for (const [name, r] of [
    ['Invoices (invoice2data)', inv],
    ['NDAs (Kleister)', nda],
  ] as const) {
    console.log(
      `\n## ${name}: P ${f3(r.overall.precision)} R ${f3(r.overall.recall)} F1 ${f3(r.overall.f1)} (tp ${r.overall.tp}, fp ${r.overall.fp}, fn ${r.overall.fn})`,
    );
    for (const [k, v] of Object.entries(r.perField))
      console.log(`   ${k.padEnd(16)} P ${f3(v.precision)} R ${f3(v.recall)} F1 ${f3(v.f1)}`);
    console.log(`   verifiable citations: ${r.citations.verifiable}/${r.citations.total} (${pct(r.citations.share)})`);
    for (const d of r.docs) console.log(`   ${d.doc}: ${JSON.stringify(d.predicted)}`);
    for (const n of r.notes) console.log(`   note: ${n}`);
  }
  for (const [title, sp] of [
    ['Split (split_plans.json)', split],
    ['Split (extra mixes, not tuned on)', extra],
  ] as const) {
    console.log(
      `\n## ${title}: boundary P ${f3(sp.overall.precision)} R ${f3(sp.overall.recall)} F1 ${f3(sp.overall.f1)}; exact records ${sp.overall.exactRecords}/${sp.overall.expectedRecords} (${pct(sp.overall.exactRecordAccuracy)})`,
    );
    for (const p of sp.plans) {
      console.log(`   ${p.plan}: expected ${p.expected} | predicted ${p.predicted} | F1 ${f3(p.f1)}`);
      for (const r of p.reasons) console.log(`      ${r.slice(0, 160)}`);
    }
  }
  console.log(
    `\n## Classification: accuracy ${pct(cls.accuracy)} (${cls.correct}/${cls.total}) over ${cls.classes.length} classes`,
  );
  for (const r of cls.rows)
    console.log(
      `   ${r.expected === r.predicted ? 'ok  ' : 'MISS'} ${r.doc} → ${r.predicted} (${r.confidence})${r.expected === r.predicted ? '' : ` expected ${r.expected}`}`,
    );
  for (const s of cls.skipped) console.log(`   skipped ${s}`);
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
