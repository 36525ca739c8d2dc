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

export interface SummaryLine {
  metric: string;
  set: string;
  value: number;
  n: number;
  detail: string;
}

/**
 * Totals: means of per-row values; ICDAR-2013 structure and detection micro-averaged over the
 * relation and region counts (as the competition sums them), for all documents and for each half
 * of the split (eu-* and us-* reports), plus cell accuracy's count of tables under 0.5.
 */
export function summarise(rows: EvalRow[]): SummaryLine[] {
  const out: SummaryLine[] = [];
  const ok = rows.filter((r) => !Number.isNaN(r.value));
  for (const metric of ['text_similarity', 'cer', 'cell_accuracy', 'table_iou'] as const) {
    const vs = ok.filter((r) => r.metric === metric);
    if (!vs.length) continue;
    const mean = vs.reduce((a, r) => a + r.value, 0) / vs.length;
    out.push({
      metric,
      set: 'all',
      value: mean,
      n: vs.length,
      detail: metric === 'cell_accuracy' ? `${vs.filter((r) => r.value < 0.5).length} under 0.5` : '',
    });
  }
  const sets: Array<[string, (r: EvalRow) => boolean]> = [
    ['ICDAR-2013 all', (r) => r.doc.startsWith('b_tables/icdar2013/')],
    ['ICDAR-2013 eu-*', (r) => r.doc.startsWith('b_tables/icdar2013/eu-')],
    ['ICDAR-2013 us-*', (r) => r.doc.startsWith('b_tables/icdar2013/us-')],
  ];
  for (const [set, test] of sets) {
    const mine = ok.filter(test);
    if (!mine.length) continue;
    const cells = mine.filter((r) => r.metric === 'cell_accuracy');
    if (cells.length)
      out.push({
        metric: 'cell_accuracy',
        set,
        value: cells.reduce((a, r) => a + r.value, 0) / cells.length,
        n: cells.length,
        detail: `${cells.filter((r) => r.value < 0.5).length} under 0.5`,
      });
    const adj = mine.filter((r) => r.metric === 'adjacency_f1' && r.counts);
    if (adj.length) {
      const c = adj.reduce((a, r) => a + r.counts!.correct, 0),
        o = adj.reduce((a, r) => a + r.counts!.ours, 0),
        t = adj.reduce((a, r) => a + r.counts!.truth, 0);
      const p = o ? c / o : 0,
        rc = t ? c / t : 0;
      out.push({
        metric: 'adjacency_f1',
        set,
        value: p + rc ? (2 * p * rc) / (p + rc) : 0,
        n: adj.length,
        detail: `precision ${p.toFixed(3)}, recall ${rc.toFixed(3)}`,
      });
    }
    const reg = mine.filter((r) => r.metric === 'region_recall' && r.counts);
    if (reg.length) {
      const c = reg.reduce((a, r) => a + r.counts!.correct, 0),
        o = reg.reduce((a, r) => a + r.counts!.ours, 0),
        t = reg.reduce((a, r) => a + r.counts!.truth, 0);
      out.push({
        metric: 'region_precision',
        set,
        value: o ? c / o : 0,
        n: reg.length,
        detail: `${c} of ${o} detected tables`,
      });
      out.push({ metric: 'region_recall', set, value: t ? c / t : 0, n: reg.length, detail: `${c} of ${t} regions` });
    }
    const ious = mine.filter((r) => r.metric === 'table_iou');
    if (ious.length)
      out.push({
        metric: 'table_iou',
        set,
        value: ious.reduce((a, r) => a + r.value, 0) / ious.length,
        n: ious.length,
        detail: 'mean region IoU',
      });
  }
  return out;
}

export function printReport(rows: EvalRow[]): void {
  const fmt = (v: number) => (Number.isNaN(v) ? '  n/a' : v.toFixed(3));
  console.log(`${'document'.padEnd(58)} ${'metric'.padEnd(16)} value  target  detail`);
  for (const r of rows) {
    const ok =
      r.target === undefined || Number.isNaN(r.value)
        ? ' '
        : (r.metric === 'cer' ? r.value <= r.target : r.value >= r.target)
          ? '✓'
          : '✗';
    console.log(
      `${r.doc.padEnd(58)} ${r.metric.padEnd(16)} ${fmt(r.value)} ${r.target === undefined ? '      ' : `${ok}${r.target.toFixed(2)}`}  ${r.detail}`,
    );
  }
  console.log('\ntotals');
  for (const l of summarise(rows))
    console.log(
      `  ${l.metric.padEnd(16)} ${l.set.padEnd(16)} ${l.value.toFixed(3)} over ${l.n}${l.detail ? ` (${l.detail})` : ''}`,
    );
}

if (require.main === module) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
