// Quick loop for the receipt extraction (library parse cached to a JSON file, docfleet-local on it):
//   pnpm exec tsx libs/models/eval/receipts-dev.ts CORPUS CACHE.json [--half A|B] [--show]
import fs from 'node:fs/promises';
import path from 'node:path';
import type { GroundingDocument, Segment } from '@docfleet/contracts';
import { buildEvidence } from '../src/evidence';
import { localExtract } from '../src/local/extract/extract';
import { addCounts, citationVerifiable, prf, valueAt, type Counts } from '../src/metrics';
import { parseEvidence } from './corpus-evidence';
import { RECEIPT_FIELDS, RECEIPT_SCHEMA, compareReceiptField, receiptRows, receiptTruth } from './receipts';

async function main(argv: string[]) {
  const [corpus, cacheFile] = argv as [string, string];
  const half = argv.includes('--half') ? argv[argv.indexOf('--half') + 1] : undefined;
  const rows = (await receiptRows(corpus)).filter((r) => !half || r.half === half);
  let cache: Record<string, { segments: Segment[]; grounding?: GroundingDocument }> = {};
  try {
    cache = JSON.parse(await fs.readFile(cacheFile, 'utf8'));
  } catch {
    /* first run */
  }
  const per: Record<string, Counts> = {};
  let cites = 0,
    ok = 0;
  for (const r of rows) {
    if (!cache[r.path]) {
      const p = await parseEvidence(path.join(corpus, r.path));
      cache[r.path] = { segments: p.segments, grounding: p.grounding };
      await fs.writeFile(cacheFile, JSON.stringify(cache));
    }
    const { segments, grounding } = cache[r.path]!;
    const out = localExtract(buildEvidence(segments, grounding), RECEIPT_SCHEMA);
    const truth = await receiptTruth(corpus, r);
    const marks: string[] = [];
    for (const f of RECEIPT_FIELDS) {
      const c = compareReceiptField(f, truth[f], out.jsonResult[f]);
      per[f] = addCounts(per[f] ?? { tp: 0, fp: 0, fn: 0 }, c);
      if (!c.tp) marks.push(`${f}: ${JSON.stringify(out.jsonResult[f])} ≠ ${JSON.stringify(truth[f])}`);
    }
    for (const c of out.citations) {
      cites++;
      if (citationVerifiable(valueAt(out.jsonResult, c.path), c, segments)) ok++;
      else marks.push(`UNVERIFIABLE ${c.path} ← ${c.quote}`);
    }
    if (argv.includes('--show') && marks.length) console.log(`${r.path} (${r.half})\n  ${marks.join('\n  ')}`);
  }
  for (const f of RECEIPT_FIELDS) console.log(f.padEnd(10), prf(per[f]!).f1.toFixed(3));
  console.log('micro F1', prf(addCounts(...Object.values(per))).f1.toFixed(3), `citations verifiable ${ok}/${cites}`);
}
main(process.argv.slice(2)).then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
