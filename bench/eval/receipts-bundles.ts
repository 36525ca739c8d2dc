// Quick loop for receipt extraction without OCR: the parses `pnpm eval:extract --only receipts --dump DIR`
// kept (segments and grounding as the worker loaded them) re-extracted by docfleet-local through
// runExtractFile, the path the workflow worker runs, and scored as eval:extract scores them.
//   pnpm exec tsx bench/eval/receipts-bundles.ts DIR [--corpus DIR] [--half A|B] [--show] [--out FILE]
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GroundingDocument, Segment } from '../../libs/contracts/src';
import { readModelConfig, resolveModel } from '../../libs/models/src';
import { addCounts, citationVerifiable, prf, valueAt, type Counts } from '../../libs/models/src/metrics';
import {
  RECEIPT_FIELDS,
  RECEIPT_SCHEMA,
  compareReceiptField,
  receiptRows,
  receiptTruth,
} from '../../libs/models/eval/receipts';
import { runExtractFile } from '../../libs/workflows/src';
import { jsonSchemaOf } from '../../libs/models/eval/corpus-sets';

async function main(argv: string[]) {
  const dir = argv[0]!;
  const valueOf = (flag: string) => (argv.includes(flag) ? argv[argv.indexOf(flag) + 1] : undefined);
  const corpus = path.resolve(valueOf('--corpus') ?? process.env.DOCFLEET_CORPUS ?? '../shared/corpus');
  const half = valueOf('--half');
  const rows = new Map((await receiptRows(corpus)).map((r) => [r.path, r]));
  const model = resolveModel(readModelConfig({}), 'docfleet-local');
  const schema = jsonSchemaOf(RECEIPT_SCHEMA);
  const per: Record<string, Record<string, Counts>> = { all: {}, A: {}, B: {} };
  let cites = 0,
    ok = 0;
  const results: Array<{ doc: string; half: string; predicted: unknown; expected: unknown; citations: unknown }> = [];
  for (const file of (await readdir(dir)).filter((f) => f.endsWith('.json')).sort()) {
    const b = JSON.parse(await readFile(path.join(dir, file), 'utf8')) as {
      path: string;
      segments: Segment[];
      grounding?: GroundingDocument;
    };
    const row = rows.get(b.path);
    if (!row || (half && row.half !== half)) continue;
    const doc = await runExtractFile({
      jsonSchema: schema,
      schemaName: 'receipt',
      allSegments: b.segments,
      segments: b.segments,
      ...(b.grounding ? { grounding: b.grounding } : {}),
      pageCount: b.grounding?.pages.length ?? 1,
      model,
    });
    const result = doc.jsonResult as Record<string, unknown>;
    const truth = await receiptTruth(corpus, row);
    const marks: string[] = [];
    for (const f of RECEIPT_FIELDS) {
      const c = compareReceiptField(f, truth[f], result[f] ?? null);
      for (const k of ['all', row.half]) per[k]![f] = addCounts(per[k]![f] ?? { tp: 0, fp: 0, fn: 0 }, c);
      if (!c.tp) marks.push(`${f}: ${JSON.stringify(result[f] ?? null)} ≠ ${JSON.stringify(truth[f])}`);
    }
    for (const c of doc.citations) {
      cites++;
      if (citationVerifiable(valueAt(result, c.path), c, b.segments)) ok++;
      else
        marks.push(`UNVERIFIABLE ${c.path}: ${JSON.stringify(valueAt(result, c.path))} ← ${JSON.stringify(c.quote)}`);
    }
    results.push({ doc: file, half: row.half, predicted: result, expected: truth, citations: doc.citations });
    if (argv.includes('--show') && marks.length)
      console.log(`${path.basename(b.path)} (${row.half})\n  ${marks.join('\n  ')}`);
  }
  for (const k of half ? [half] : ['all', 'A', 'B']) {
    const p = per[k]!;
    console.log(
      `${k.padEnd(4)} micro ${prf(addCounts(...Object.values(p))).f1.toFixed(3)}  ` +
        RECEIPT_FIELDS.map((f) => `${f} ${prf(p[f]!).f1.toFixed(3)}`).join('  '),
    );
  }
  console.log(`citations verifiable ${ok}/${cites}`);
  const out = valueOf('--out');
  if (out) await writeFile(out, JSON.stringify(results, null, 1));
}

main(process.argv.slice(2)).then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
