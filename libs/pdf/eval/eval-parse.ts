// CLI: quality evaluation of the parser on the shared corpus.
//   pnpm exec tsx libs/pdf/eval/eval-parse.ts [corpusDir] [--json out.json]
// Default corpus: ../shared/corpus relative to the repository root (/work/shared/corpus).
import fs from 'node:fs/promises';
import path from 'node:path';
import { evaluateCorpus, type EvalRow } from './corpus-eval';
import { libraryParse } from './library-parse';

export async function main(argv: string[]): Promise<number> {
  const jsonAt = argv.indexOf('--json');
  const jsonOut = jsonAt >= 0 ? argv[jsonAt + 1] : undefined;
  const positional = argv.filter((a, i) => !a.startsWith('--') && (jsonAt < 0 || i !== jsonAt + 1));
  const corpus = path.resolve(positional[0] ?? path.resolve(__dirname, '../../../../shared/corpus'));
  const started = Date.now();
  const rows = await evaluateCorpus(corpus, libraryParse, (s) => process.stderr.write(`${s}\n`));
  printReport(rows);
  console.log(`\n(${((Date.now() - started) / 1000).toFixed(1)} s)`);
  if (jsonOut) await fs.writeFile(jsonOut, JSON.stringify(rows, null, 2));
  return 0;
}

export function printReport(rows: EvalRow[]): void {
  const fmt = (v: number) => (Number.isNaN(v) ? '  n/a' : v.toFixed(3));
  console.log(`${'document'.padEnd(58)} ${'metric'.padEnd(16)} value  target  detail`);
  for (const r of rows) {
    const ok = r.target === undefined || Number.isNaN(r.value) ? ' ' : (r.metric === 'cer' ? r.value <= r.target : r.value >= r.target) ? '✓' : '✗';
    console.log(`${r.doc.padEnd(58)} ${r.metric.padEnd(16)} ${fmt(r.value)} ${r.target === undefined ? '      ' : `${ok}${r.target.toFixed(2)}`}  ${r.detail}`);
  }
  console.log('\ntotals');
  for (const metric of ['text_similarity', 'cer', 'cell_accuracy', 'table_iou'] as const) {
    const vs = rows.filter((r) => r.metric === metric && !Number.isNaN(r.value)).map((r) => r.value);
    if (!vs.length) continue;
    const mean = vs.reduce((a, b) => a + b, 0) / vs.length;
    console.log(`  ${metric.padEnd(16)} mean ${mean.toFixed(3)} over ${vs.length}`);
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => process.exit(code), (err) => { console.error(err); process.exit(1); });
}
