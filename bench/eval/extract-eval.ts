// `pnpm eval:extract [corpusDir] [--json]`: field-level extraction quality of docfleet-local through
// the real service path. The documents are the MANIFEST.tsv rows of f_forms_invoices (invoice2data
// ground truth: invoice number, date, total amount, currency, issuer where printed) and of
// kleister_nda (effective date, parties, jurisdiction, term). Each one is uploaded to the real
// gateway, parsed by the real parse worker, and extracted by a file-path extraction job
// (POST /v1/files/{id}/extract) that the real workflow worker runs; its result_json is scored with
// libs/models' metrics (the same comparisons as libs/models/eval), and every citation is checked:
// does the cited segment hold the quote, and does the quote contain the value?
// Receipts: every MANIFEST.tsv row of doc_class receipt with SROIE key fields (company, date,
// address, total), scanned images OCR'd by the parse worker, scored by exact match after case and
// whitespace normalisation (dates as dates, totals as numbers), per field, micro F1, per half.
// `--only receipts` runs just those; `--dump DIR` keeps each receipt's parse for quick re-extraction. Writes bench/out/extract-eval.json.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  addCounts,
  citationVerifiable,
  compareField,
  prf,
  valueAt,
  type Counts,
  type Prf,
} from '../../libs/models/src/metrics';
import {
  INVOICE_FIELDS,
  INVOICE_SCHEMA,
  NDA_FIELDS,
  NDA_SCHEMA,
  jsonSchemaOf,
  manifest,
} from '../../libs/models/eval/corpus-sets';
import {
  RECEIPT_FIELDS,
  RECEIPT_SCHEMA,
  compareReceiptField,
  receiptRows,
  receiptTruth,
} from '../../libs/models/eval/receipts';
import { startFleet } from '../../libs/testing/src';
import { benchClient, ensureTemplate } from '../lib';

const ROOT = path.resolve(__dirname, '../..');
const f3 = (x: number) => x.toFixed(3);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

interface SetReport {
  overall: Prf;
  perField: Record<string, Prf>;
  citations: { total: number; verifiable: number; share: number; unverifiable: string[] };
  docs: Array<{
    doc: string;
    predicted: Record<string, unknown>;
    expected: Record<string, unknown>;
    durationMs: number;
  }>;
  notes: string[];
}

async function main() {
  const args = process.argv.slice(2);
  const valueOf = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined);
  const flagValues = new Set([valueOf('--only'), valueOf('--dump')]);
  const corpus = path.resolve(
    args.find((a) => !a.startsWith('--') && !flagValues.has(a)) ?? path.join(ROOT, '../shared/corpus'),
  );
  // `--dump DIR`: each receipt's parse (segments and grounding) written to DIR/<name>.json.
  const dump = valueOf('--dump');
  const rows = await manifest(corpus);
  const invoices = rows.filter(
    (r) => r.path.startsWith('f_forms_invoices/') && r.docClass === 'invoice' && r.path.endsWith('.pdf'),
  );
  const ndas = rows.filter((r) => r.path.includes('/kleister_nda/') && r.path.endsWith('.pdf'));
  if (!invoices.length || !ndas.length) throw new Error(`MANIFEST.tsv in ${corpus} lists no invoices or NDAs`);

  await ensureTemplate();
  const started = Date.now();
  // The gateway, the parse worker and the workflow worker as processes, offline (docfleet-local).
  const s = await startFleet({
    env: { MODEL_DEFAULT: 'docfleet-local' },
    workers: ['parse-worker', 'workflow-worker'],
  });
  try {
    const org = await s.createOrg({ credits: 10_000 });
    const c = benchClient(s.url, org.key);
    const kb = (await c.knowledgeBases.create({ name: 'extract-eval' })).knowledge_base.id;

    // Receipts: upload → parse (OCR) → extraction job; exact match per field, citations checked.
    async function runReceipts() {
      const rrows = await receiptRows(corpus);
      const per: Record<string, Record<string, Counts>> = { all: {}, A: {}, B: {} };
      const cites = { total: 0, verifiable: 0, unverifiable: [] as string[] };
      const docs: Array<{
        doc: string;
        half: string;
        predicted: Record<string, unknown>;
        expected: Record<string, unknown>;
      }> = [];
      const schema = jsonSchemaOf(RECEIPT_SCHEMA);
      for (const row of rrows) {
        const name = path.basename(row.path);
        const truth = await receiptTruth(corpus, row);
        const fileId = (await c.files.upload(path.join(corpus, row.path), { knowledgeBaseId: kb })).file.id;
        const parse = await c.waitForJob(fileId, (await c.files.parse(fileId)).job.job_id);
        if (parse.status !== 'completed') throw new Error(`${name}: parse ${parse.status}: ${parse.error}`);
        const job = await c.waitForJob(
          fileId,
          (await c.files.extract(fileId, { schema, schema_name: 'receipt' })).job.job_id,
        );
        let result: Record<string, unknown> = {};
        let citations: Array<{
          path: string;
          segmentId: string;
          pageNumber: number;
          quote: string;
          confidence: number;
        }> = [];
        if (job.status === 'completed') {
          const doc = (await c.artifacts.get(
            (job.result as { artifact_manifest_id: string }).artifact_manifest_id,
            'result_json',
          )) as unknown as { jsonResult: Record<string, unknown>; citations: typeof citations };
          result = doc.jsonResult;
          citations = doc.citations;
        } else {
          cites.unverifiable.push(`${name}: extraction ${job.status}: ${job.error}`);
        }
        const segments = await c.files.segments(fileId);
        if (dump) {
          // The parse as the worker loaded it, for bench/eval/receipts-bundles.ts to re-extract without OCR.
          const grounding = await c.artifacts.get(
            (parse.result as { artifact_manifest_id: string }).artifact_manifest_id,
            'grounding_json',
          );
          await mkdir(dump, { recursive: true });
          await writeFile(path.join(dump, `${name}.json`), JSON.stringify({ path: row.path, segments, grounding }));
        }
        for (const f of RECEIPT_FIELDS) {
          const counts = compareReceiptField(f, truth[f], result[f] ?? null);
          for (const k of ['all', row.half]) per[k]![f] = addCounts(per[k]![f] ?? { tp: 0, fp: 0, fn: 0 }, counts);
        }
        for (const cite of citations) {
          cites.total++;
          if (citationVerifiable(valueAt(result, cite.path), cite, segments)) cites.verifiable++;
          else
            cites.unverifiable.push(
              `${name} ${cite.path}: ${JSON.stringify(valueAt(result, cite.path))} ← "${cite.quote.slice(0, 80)}"`,
            );
        }
        docs.push({ doc: name, half: row.half, predicted: result, expected: truth });
      }
      const report = (k: string) => ({
        overall: prf(addCounts(...Object.values(per[k]!))),
        perField: Object.fromEntries(Object.entries(per[k]!).map(([f, v]) => [f, prf(v)])),
      });
      return { n: rrows.length, all: report('all'), A: report('A'), B: report('B'), citations: cites, docs };
    }

    const runSet = async (docs: typeof rows, set: 'invoices' | 'ndas'): Promise<SetReport> => {
      const fields = set === 'invoices' ? INVOICE_FIELDS : NDA_FIELDS;
      const schema = jsonSchemaOf(set === 'invoices' ? INVOICE_SCHEMA : NDA_SCHEMA);
      const perField: Record<string, Counts> = {};
      const report: SetReport = {
        overall: prf({ tp: 0, fp: 0, fn: 0 }),
        perField: {},
        citations: { total: 0, verifiable: 0, share: 1, unverifiable: [] },
        docs: [],
        notes: [],
      };
      for (const row of docs) {
        const name = path.basename(row.path, '.pdf');
        const truthFile =
          set === 'invoices' ? row.path.replace(/\.pdf$/, '.json') : row.path.replace(/\.pdf$/, '.expected.json');
        const rawTruth = JSON.parse(await readFile(path.join(corpus, truthFile), 'utf8')) as unknown;
        const truth = (Array.isArray(rawTruth) ? rawTruth[0] : rawTruth) as Record<string, unknown>;
        // Upload → parse (parse worker) → extraction job (workflow worker) → result_json.
        const fileId = (await c.files.upload(path.join(corpus, row.path), { knowledgeBaseId: kb })).file.id;
        const parse = await c.waitForJob(fileId, (await c.files.parse(fileId)).job.job_id);
        if (parse.status !== 'completed') throw new Error(`${name}: parse ${parse.status}: ${parse.error}`);
        const job = await c.waitForJob(
          fileId,
          (await c.files.extract(fileId, { schema, schema_name: set })).job.job_id,
        );
        if (job.status !== 'completed') throw new Error(`${name}: extraction ${job.status}: ${job.error}`);
        const doc = (await c.artifacts.get(
          (job.result as { artifact_manifest_id: string }).artifact_manifest_id,
          'result_json',
        )) as unknown as {
          jsonResult: Record<string, unknown>;
          citations: Array<{ path: string; segmentId: string; pageNumber: number; quote: string; confidence: number }>;
          metrics: { durationMs: number };
        };
        const segments = await c.files.segments(fileId);
        const pageText = segments
          .map((x) => x.markdown)
          .join('\n')
          .toLowerCase()
          .replace(/\s+/g, ' ');
        for (const f of fields) {
          let expected = truth[f.gt] ?? null;
          // invoice2data's issuer comes from its templates; score it only where that name is printed.
          if (f.gt === 'issuer' && typeof expected === 'string' && !pageText.includes(expected.toLowerCase())) {
            report.notes.push(`${name}: issuer "${expected}" is not printed on the page; not scored`);
            continue;
          }
          if (expected === undefined) expected = null;
          perField[f.field] = addCounts(
            perField[f.field] ?? { tp: 0, fp: 0, fn: 0 },
            compareField(f.kind, expected, doc.jsonResult[f.field] ?? null),
          );
        }
        for (const cite of doc.citations) {
          report.citations.total++;
          if (citationVerifiable(valueAt(doc.jsonResult, cite.path), cite, segments)) report.citations.verifiable++;
          else
            report.citations.unverifiable.push(
              `${name} ${cite.path}: ${JSON.stringify(valueAt(doc.jsonResult, cite.path))} ← "${cite.quote.slice(0, 80)}"`,
            );
        }
        report.docs.push({ doc: name, predicted: doc.jsonResult, expected: truth, durationMs: doc.metrics.durationMs });
      }
      report.overall = prf(addCounts(...Object.values(perField)));
      report.perField = Object.fromEntries(Object.entries(perField).map(([k, v]) => [k, prf(v)]));
      report.citations.share = report.citations.total ? report.citations.verifiable / report.citations.total : 1;
      return report;
    };

    const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
    const receipts = only && only !== 'receipts' ? undefined : await runReceipts();
    const empty = (): SetReport => ({
      overall: prf({ tp: 0, fp: 0, fn: 0 }),
      perField: {},
      citations: { total: 0, verifiable: 0, share: 1, unverifiable: [] },
      docs: [],
      notes: [],
    });
    const inv = only === 'receipts' ? empty() : await runSet(invoices, 'invoices');
    const nda = only === 'receipts' ? empty() : await runSet(ndas, 'ndas');
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    if (args.includes('--json')) {
      console.log(JSON.stringify({ invoices: inv, ndas: nda, receipts, seconds }, null, 2));
    } else {
      const line = (cells: string[]) =>
        `${cells[0]!.padEnd(34)}${cells
          .slice(1)
          .map((x) => x.padStart(8))
          .join('')}`;
      console.log(
        `docfleet-local through the service (upload → parse worker → extraction job → result_json); corpus ${corpus}\n`,
      );
      console.log(line(['set / field', 'P', 'R', 'F1', 'tp', 'fp', 'fn']));
      for (const [title, r, n] of [
        ['invoices (invoice2data)', inv, invoices.length],
        ['NDAs (Kleister)', nda, ndas.length],
      ] as const) {
        console.log(
          line([
            `${title}, ${n} docs`,
            f3(r.overall.precision),
            f3(r.overall.recall),
            f3(r.overall.f1),
            String(r.overall.tp),
            String(r.overall.fp),
            String(r.overall.fn),
          ]),
        );
        for (const [k, v] of Object.entries(r.perField))
          console.log(
            line([`  ${k}`, f3(v.precision), f3(v.recall), f3(v.f1), String(v.tp), String(v.fp), String(v.fn)]),
          );
        console.log(
          `  verifiable citations: ${r.citations.verifiable}/${r.citations.total} (${pct(r.citations.share)})`,
        );
        for (const u of r.citations.unverifiable) console.log(`    not verifiable: ${u}`);
        for (const note of r.notes) console.log(`  note: ${note}`);
      }
      const both = {
        total: inv.citations.total + nda.citations.total,
        verifiable: inv.citations.verifiable + nda.citations.verifiable,
      };
      console.log(
        `\nall citations verifiable: ${both.verifiable}/${both.total} (${pct(both.total ? both.verifiable / both.total : 1)}); ${seconds} s`,
      );
      if (receipts) {
        console.log(
          `\nreceipts (SROIE key fields), ${receipts.n} docs: exact match after case/whitespace normalisation, dates as dates, totals as numbers`,
        );
        for (const [title, r] of [
          ['all', receipts.all],
          ['half A', receipts.A],
          ['half B', receipts.B],
        ] as const) {
          console.log(
            line([
              `  ${title}`,
              f3(r.overall.precision),
              f3(r.overall.recall),
              f3(r.overall.f1),
              String(r.overall.tp),
              String(r.overall.fp),
              String(r.overall.fn),
            ]),
          );
          for (const [k, v] of Object.entries(r.perField))
            console.log(
              line([`    ${k}`, f3(v.precision), f3(v.recall), f3(v.f1), String(v.tp), String(v.fp), String(v.fn)]),
            );
        }
        console.log(`  verifiable citations: ${receipts.citations.verifiable}/${receipts.citations.total}`);
        for (const u of receipts.citations.unverifiable) console.log(`    not verifiable: ${u}`);
        console.log(
          `  targets: micro F1 >= 0.80 (${receipts.all.overall.f1 >= 0.8 ? 'met' : 'NOT met'}), every field >= 0.6 (${Object.values(receipts.all.perField).every((v) => v.f1 >= 0.6) ? 'met' : 'NOT met'})`,
        );
      }
      if (only !== 'receipts')
        console.log(
          `targets: invoice F1 >= 0.6 (${inv.overall.f1 >= 0.6 ? 'met' : 'NOT met'}), verifiable citations >= 95% (${both.total && both.verifiable / both.total >= 0.95 ? 'met' : 'NOT met'})`,
        );
    }
    await mkdir(path.join(ROOT, 'bench/out'), { recursive: true });
    await writeFile(
      path.join(ROOT, 'bench/out/extract-eval.json'),
      `${JSON.stringify({ corpus, seconds, invoices: inv, ndas: nda, receipts }, null, 2)}\n`,
    );
  } finally {
    await s.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
