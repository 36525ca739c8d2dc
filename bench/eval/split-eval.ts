// `pnpm eval:split [corpusDir] [--backend auto|text] [--window N] [--overlap N] [--json]`: split quality of docfleet-local
// through the split run's own code path (libs/workflows runSplit: windows of pages, then the repair
// pass), on the plans of split_plans.json and on two extra mixes the heuristics were not tuned on.
//
// Each plan is built as one PDF with pdf-lib (libs/models/eval/corpus-sets buildPlanPdf), parsed
// with the library calls the parse worker makes (services/parse-worker/src/parse-document.ts:
// inspectDocument picks the backend — `auto`, the API default — then parsePages, assembleDocument
// and segmentsFromGrounding, page images rendered as the worker does by default), and split. `--backend text` forces the
// text layer, as a caller can with the parse option `backend`. Reports boundary precision / recall / F1 (a boundary is a
// record start after page 1) and exact-record accuracy, and writes bench/out/split-eval-<backend>.json.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assembleDocument, inspectDocument, parsePages, segmentsFromGrounding } from '../../libs/pdf/src';
import { DEFAULT_CORPUS } from '../../libs/models/eval/corpus-evidence';
import { buildPlanPdf, extraPlans, splitPlans, type SplitPlan } from '../../libs/models/eval/corpus-sets';
import { addCounts, prf, splitScores, type Counts } from '../../libs/models/src/metrics';
import { buildEvidence, readModelConfig, resolveModel } from '../../libs/models/src';
import { DEFAULT_WINDOW_OVERLAP, DEFAULT_WINDOW_PAGES, runSplit } from '../../libs/workflows/src';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const f3 = (x: number) => x.toFixed(3);
const fmt = (rs: Array<{ startPage: number; endPage: number }>) =>
  rs.map((r) => `${r.startPage}-${r.endPage}`).join(' ');

type Backend = 'auto' | 'text';

/** A PDF parsed as the parse worker parses it (its OCR path differs without page images). */
async function parsePdf(file: string, backend: Backend) {
  const inspect = await inspectDocument(file, 'pdf', { maxPages: 2000, decideBackend: backend === 'auto' });
  const chosen = backend === 'auto' ? inspect.backend.backend : 'text';
  const outDir = await mkdtemp(path.join(os.tmpdir(), 'split-eval-'));
  try {
    const res = await parsePages({ path: file, kind: 'pdf', backend: chosen, outDir, renderPages: true });
    const { grounding } = assembleDocument(
      path.basename(file),
      'pdf',
      res.pages.map((p) => p.grounding),
      res.pages.map((p) => p.markdown),
      chosen,
      { pageCount: res.pages.length },
    );
    const segments = segmentsFromGrounding(grounding, {
      fileId: randomUUID(),
      docName: path.basename(file),
      sourceType: 'pdf',
    });
    return {
      backend: chosen,
      reasons: inspect.backend.reasons.slice(0, 3),
      grounding,
      evidence: buildEvidence(segments, grounding),
    };
  } finally {
    await rm(outDir, { recursive: true, force: true });
  }
}

async function evaluate(
  corpus: string,
  plans: SplitPlan[],
  windowPages: number,
  windowOverlap: number,
  backend: Backend,
) {
  const model = resolveModel(readModelConfig({ MODEL_DEFAULT: 'docfleet-local' }), 'docfleet-local');
  const counts: Counts[] = [];
  const rows = [];
  let exact = 0;
  let expectedRecords = 0;
  for (const plan of plans) {
    const file = await buildPlanPdf(corpus, plan);
    try {
      const expected = plan.segments.map((s) => ({ startPage: s.first_page, endPage: s.last_page }));
      let parsed: Awaited<ReturnType<typeof parsePdf>>;
      try {
        parsed = await parsePdf(file, backend);
      } catch (err) {
        // The parse job would fail too, so the split cannot run: every boundary of the plan is missed.
        const s = splitScores(expected, [{ startPage: 1, endPage: plan.total_pages }]);
        counts.push(s);
        expectedRecords += expected.length;
        rows.push({
          plan: plan.name,
          pages: plan.total_pages,
          backend,
          backendReasons: [`parse failed: ${(err as Error).message.slice(0, 160)}`],
          expected: fmt(expected),
          predicted: '(parse failed)',
          precision: 0,
          recall: 0,
          f1: 0,
          exactRecords: 0,
          expectedRecords: expected.length,
          quality: 'fail',
          records: [],
        });
        continue;
      }
      const session = await runSplit({
        evidence: parsed.evidence,
        pageCount: parsed.grounding?.pages.length ?? plan.total_pages,
        rules: [],
        model,
        windowPages,
        windowOverlap,
        sessionId: randomUUID(),
        operationId: randomUUID(),
        sourceDocId: randomUUID(),
        sourceDocName: path.basename(file),
      });
      const s = splitScores(expected, session.records);
      counts.push(s);
      exact += s.exactRecords;
      expectedRecords += expected.length;
      rows.push({
        plan: plan.name,
        pages: plan.total_pages,
        backend: parsed.backend,
        backendReasons: parsed.reasons,
        expected: fmt(expected),
        predicted: fmt(session.records),
        precision: s.precision,
        recall: s.recall,
        f1: s.f1,
        exactRecords: s.exactRecords,
        expectedRecords: expected.length,
        quality: session.quality.status,
        records: session.records.map(
          (r) => `${r.startPage}-${r.endPage} ${r.documentType} "${r.title}" (${r.confidence}) ${r.boundaryReason}`,
        ),
      });
    } finally {
      await rm(path.dirname(file), { recursive: true, force: true });
    }
  }
  return {
    overall: {
      ...prf(addCounts(...counts)),
      exactRecords: exact,
      expectedRecords,
      exactRecordAccuracy: expectedRecords ? exact / expectedRecords : 1,
    },
    plans: rows,
  };
}

async function main() {
  const corpus = path.resolve(
    process.argv
      .slice(2)
      .find((a, i, all) => !a.startsWith('--') && !['--window', '--overlap', '--backend'].includes(all[i - 1] ?? '')) ??
      DEFAULT_CORPUS,
  );
  const windowPages = Number(arg('--window') ?? DEFAULT_WINDOW_PAGES);
  const windowOverlap = Number(arg('--overlap') ?? DEFAULT_WINDOW_OVERLAP);
  const backend: Backend = arg('--backend') === 'text' ? 'text' : 'auto';
  const started = Date.now();
  const plans = await evaluate(corpus, await splitPlans(corpus), windowPages, windowOverlap, backend);
  const extra = await evaluate(corpus, await extraPlans(corpus), windowPages, windowOverlap, backend);
  const report = {
    corpus,
    model: 'docfleet-local',
    backend,
    windowPages,
    windowOverlap,
    splitPlans: plans,
    extraMixes: extra,
    seconds: (Date.now() - started) / 1000,
  };
  await mkdir(path.resolve(__dirname, '../out'), { recursive: true });
  await writeFile(path.resolve(__dirname, `../out/split-eval-${backend}.json`), JSON.stringify(report, null, 2));
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(report, null, 2));
    return;
  }
  console.log(
    `split eval: docfleet-local, parse backend ${backend}, windows of ${windowPages} pages overlapping by ${windowOverlap}`,
  );
  for (const [title, r] of [
    ['split_plans.json', plans],
    ['extra mixes (not tuned on)', extra],
  ] as const) {
    const o = r.overall;
    console.log(
      `\n## ${title}: boundary P ${f3(o.precision)} R ${f3(o.recall)} F1 ${f3(o.f1)} (tp ${o.tp}, fp ${o.fp}, fn ${o.fn}); exact records ${o.exactRecords}/${o.expectedRecords} (${(o.exactRecordAccuracy * 100).toFixed(1)}%)`,
    );
    for (const p of r.plans) {
      console.log(
        `   ${p.plan} (${p.pages} pages, parsed with ${p.backend}${p.backendReasons.length ? `: ${p.backendReasons.join('; ')}` : ''}): F1 ${f3(p.f1)}, exact ${p.exactRecords}/${p.expectedRecords}, quality ${p.quality}`,
      );
      console.log(`      expected  ${p.expected}\n      predicted ${p.predicted}`);
      if (process.argv.includes('--verbose')) for (const x of p.records) console.log(`        ${x.slice(0, 170)}`);
    }
  }
  console.log(`\n(${report.seconds.toFixed(1)} s; written to bench/out/split-eval-${backend}.json)`);
  if (plans.overall.f1 < 0.8) process.exitCode = 1;
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
