// OCR fidelity through this library (no worker, for quick iterations):
//   pnpm exec tsx libs/pdf/eval/ocr-eval-cli.ts CORPUS [path-regex] [--half A|B] [--header-reread] [--body-reread] [--no-header-lexicon] [--no-cell-reread]
// (--no-cell-reread: tables of small print are not read again cell by cell, for a before/after in one session)
// `pnpm eval:parse CORPUS --only ocr` is the same evaluation through the API and the worker.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assembleDocument, inspectDocument, parsePages } from '../src';
import { evaluateOcr, ocrDocuments, ocrReport } from './ocr-eval';

async function main(argv: string[]) {
  const corpus = argv[0]!;
  const filter = argv[1] && !argv[1].startsWith('--') ? new RegExp(argv[1]) : undefined;
  const half = argv.includes('--half') ? argv[argv.indexOf('--half') + 1] : undefined;
  const ocrHeaderReread = argv.includes('--header-reread');
  const ocrBodyReread = argv.includes('--body-reread');
  const ocrRowsTogether = !argv.includes('--rows-apart');
  const ocrHeaderLexicon = !argv.includes('--no-header-lexicon');
  const ocrCellReread = !argv.includes('--no-cell-reread');
  let docs = await ocrDocuments(corpus);
  if (filter) docs = docs.filter((d) => filter.test(d.doc));
  if (half) docs = docs.filter((d) => d.half === half);
  const res = await evaluateOcr(
    docs,
    async (d) => {
      const outDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docfleet-eval-'));
      try {
        const backend = (await inspectDocument(d.file, d.kind)).backend.backend;
        const r = await parsePages({
          path: d.file,
          kind: d.kind,
          backend,
          outDir,
          renderPages: false,
          ocrHeaderReread,
          ocrBodyReread,
          ocrRowsTogether,
          ocrHeaderLexicon,
          ocrCellReread,
        });
        const { markdown } = assembleDocument(
          path.basename(d.file),
          d.kind,
          r.pages.map((p) => p.grounding),
          r.pages.map((p) => p.markdown),
          backend,
        );
        if (process.env.DUMP) console.error(markdown);
        const o = r.pages[0]?.ocr;
        return {
          text: markdown,
          detail: o
            ? `${o.chosen}; tried ${o.tried.map((t) => `${t.name} ${t.meanConf.toFixed(0)}/${t.score.toFixed(0)} ${t.ms}ms`).join(', ')}; rules ${o.rulesRemoved}${o.header ? `; header rows ${o.header.replaced}/${o.header.rows} ${o.header.ms}ms` : ''}${o.body ? `; body rows ${o.body.replaced}/${o.body.rows} ${o.body.ms}ms` : ''}${o.cells ? `; table cells ${o.cells.replaced}/${o.cells.cells} ${o.cells.ms}ms, ${o.cells.matched} matched, ${o.cells.decimals} decimals, ${o.cells.dashes} dashes` : ''}${o.paper ? '; border cropped' : ''}${o.warnings.length ? ` WARN ${o.warnings[0]!.code}` : ''}`
            : undefined,
        };
      } finally {
        await fs.rm(outDir, { recursive: true, force: true });
      }
    },
    (s) => process.stderr.write(`${s}\n`),
  );
  console.log(ocrReport(res));
}
main(process.argv.slice(2)).then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
