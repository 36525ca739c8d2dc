// `pnpm eval:parse [corpusDir] [--json out.json]`: parse-quality evaluation THROUGH THE REAL WORKER.
// A real gateway (over a fresh database cloned from the migrated template) and the real parse
// worker run as processes (libs/testing, as `pnpm start` runs them); every corpus document is uploaded with libs/sdk, parsed as a queued
// job, waited on, and its result_md and grounding_json are fetched from the artifact endpoints.
// The metrics are libs/pdf/eval's (evaluateCorpus takes the parse function): text similarity vs
// docling, CER on the scanned samples, table cell accuracy vs ICDAR-2013/tabula, region IoU vs ICDAR.
// Then OCR fidelity (libs/pdf/eval/ocr-eval): every image row of MANIFEST.tsv with line ground
// truth (the SROIE receipts, expected texts, image-only PDFs), CER and word F1 through the worker
// beside raw `tesseract IMG stdout -l eng` on the same files in the same run, seconds per image.
// `--only ocr` runs just that part; `--only corpus` skips it. `--wait poll`: the client polls every
// 50-150 ms instead of waking on the event stream.
// Default corpus: ../shared/corpus relative to the repository root.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GroundingDocument } from '../libs/contracts/src';
import { DocfleetClient } from '../libs/sdk/src';
import { evaluateCorpus, printReport, summarise, type EvalParseFn, type EvalRow } from '../libs/pdf/eval';
import {
  evaluateOcr,
  ocrDocuments,
  ocrReport,
  summarise as summariseOcr,
  type OcrDocResult,
  type OcrParseFn,
} from '../libs/pdf/eval/ocr-eval';
import { spawnGateway, spawnWorker } from '../libs/testing/src';
import globalSetup from '../libs/testing/src/global-setup';

const ROOT = path.resolve(__dirname, '..');

function markdownTable(rows: EvalRow[]): string {
  const fmt = (v: number) => (Number.isNaN(v) ? 'n/a' : v.toFixed(3));
  const lines = ['| document | metric | value | target | detail |', '|---|---|---:|---:|---|'];
  for (const r of rows)
    lines.push(
      `| ${r.doc} | ${r.metric} | ${fmt(r.value)} | ${r.target === undefined ? '' : (r.metric === 'cer' ? '≤ ' : '≥ ') + r.target.toFixed(2)} | ${r.detail.replace(/\|/g, '\\|')} |`,
    );
  lines.push('', '| metric | set | value | n | detail |', '|---|---|---:|---:|---|');
  for (const l of summarise(rows))
    lines.push(`| ${l.metric} | ${l.set} | ${l.value.toFixed(3)} | ${l.n} | ${l.detail} |`);
  return lines.join('\n');
}

/** Mean and median per part of a receipt's wall time (ms; upload is before the timed span). */
function printProfile(ps: Array<Record<string, number>>) {
  if (!ps.length) return;
  const lines = [
    '',
    `receipts' time, split (ms per image, n = ${ps.length}):`,
    '',
    '| part | mean | median |',
    '|---|---:|---:|',
  ];
  for (const k of Object.keys(ps[0]!)) {
    const v = ps
      .map((p) => p[k]!)
      .filter((x) => Number.isFinite(x))
      .sort((a, b) => a - b);
    if (!v.length) continue;
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    lines.push(`| ${k} | ${mean.toFixed(k === 'tesseract_runs' ? 2 : 0)} | ${v[v.length >> 1]!.toFixed(0)} |`);
  }
  console.log(lines.join('\n'));
}

async function main(argv: string[]) {
  const jsonAt = argv.indexOf('--json');
  const jsonOut = jsonAt >= 0 ? argv[jsonAt + 1] : undefined;
  const onlyAt = argv.indexOf('--only');
  const only = onlyAt >= 0 ? argv[onlyAt + 1] : undefined;
  const waitAt = argv.indexOf('--wait');
  const pollOnly = waitAt >= 0 && argv[waitAt + 1] === 'poll';
  const positional = argv.filter(
    (a, i) =>
      !a.startsWith('--') &&
      (jsonAt < 0 || i !== jsonAt + 1) &&
      (onlyAt < 0 || i !== onlyAt + 1) &&
      (waitAt < 0 || i !== waitAt + 1),
  );
  const corpus = path.resolve(positional[0] ?? path.resolve(ROOT, '../shared/corpus'));
  process.env.OMP_THREAD_LIMIT ??= '1';

  await globalSetup();
  const gw = await spawnGateway({ env: { MAX_UPLOAD_BYTES: String(200 * 1024 * 1024) } });
  const worker = await spawnWorker(gw, { MAX_PAGES: '2000', LOG_LEVEL: 'warn' }).catch(async (err) => {
    await gw.close();
    throw err;
  });
  const { key } = await gw.createOrg({ credits: 100_000 });
  const client = new DocfleetClient({
    baseUrl: gw.url,
    apiKey: key,
    // Each wait listens on the event stream (the worker reports a job's end there as it commits),
    // so the time measured is the job's, not a polling interval's; the polls are only a safety net.
    // `--wait poll`: polling alone every 50-150 ms, as before (to compare against).
    jobEvents: !pollOnly,
    polling: pollOnly
      ? { initialIntervalMs: 50, maxIntervalMs: 150, timeoutMs: 15 * 60_000 }
      : { initialIntervalMs: 1_000, maxIntervalMs: 2_000, timeoutMs: 15 * 60_000 },
  });
  const kb = (await client.knowledgeBases.create({ name: 'eval' })).knowledge_base;
  let n = 0;
  let parseMs = 0;
  let pages = 0;

  const parseThroughWorker: EvalParseFn = async (file, _kind, backend) => {
    const { file: f } = await client.files.upload(file, {
      knowledgeBaseId: kb.id,
      filename: `${++n}-${path.basename(file)}`,
    });
    const t0 = Date.now();
    const { job } = await client.files.parse(f.id, { options: { backend } });
    const done = await client.waitForJob(f.id, job.job_id);
    parseMs += Date.now() - t0;
    if (done.status !== 'completed') throw new Error(`job ${done.status}: ${done.error}`);
    const manifestId = (done.result as { artifact_manifest_id: string }).artifact_manifest_id;
    const markdown = await client.artifacts.get(manifestId, 'result_md');
    const grounding = (await client.artifacts.get(manifestId, 'grounding_json')) as GroundingDocument;
    pages += grounding.pages.length;
    // Grounding page sizes are pixels at the page's dpi; the metrics want PDF points.
    const pageSizesPt = grounding.pages.map((p) => ({
      width: (p.width * 72) / (p.dpi ?? 150),
      height: (p.height * 72) / (p.dpi ?? 150),
    }));
    return { markdown, grounding, pageSizesPt };
  };

  // OCR rows: the text docfleet gives a user (result_md) and which preprocessing each page used.
  // Each row's wall time is split (profile below): the client's upload and parse request, the job's
  // queue wait, the worker's stages (its job.completed timings and each Tesseract reading's ms from
  // parse.ocr_page), the completing write, the client learning of the end, and the markdown fetch.
  const profiles = new Map<string, Record<string, number>>();
  const ocrThroughWorker: OcrParseFn = async (doc) => {
    const tUp = Date.now();
    const { file: f } = await client.files.upload(doc.file, {
      knowledgeBaseId: kb.id,
      filename: `${++n}-${path.basename(doc.file)}`,
    });
    const t0 = Date.now();
    const { job } = await client.files.parse(f.id, {});
    const tQueued = Date.now();
    const done = await client.waitForJob(f.id, job.job_id);
    const tSeen = Date.now();
    if (done.status !== 'completed') throw new Error(`job ${done.status}: ${done.error}`);
    const text = await client.artifacts.get(
      (done.result as { artifact_manifest_id: string }).artifact_manifest_id,
      'result_md',
    );
    const tEnd = Date.now();
    const seconds = (tEnd - t0) / 1000;
    const events = (await client.files.jobEvents(f.id, job.job_id)).events;
    const detail = events
      .filter((e) => e.event_type === 'parse.ocr_page' || e.event_type === 'parse.warning')
      .map((e) => e.message)
      .join(' ');
    const timings = (
      events.find((e) => e.event_type === 'job.completed')?.payload as { timings_ms?: Record<string, number> }
    )?.timings_ms;
    const readings = events
      .filter((e) => e.event_type === 'parse.ocr_page')
      .flatMap((e) => (e.payload as { tried?: Array<{ ms: number }> }).tried ?? []);
    // Job times are the database's clock; the client runs on the same host.
    const created = Date.parse(done.created_at),
      startedAt = done.started_at ? Date.parse(done.started_at) : NaN,
      completedAt = done.completed_at ? Date.parse(done.completed_at) : NaN;
    const stages = (timings?.page_diff ?? 0) + (timings?.parse ?? 0) + (timings?.bundle ?? 0);
    profiles.set(doc.doc, {
      upload: t0 - tUp,
      request: tQueued - t0,
      queue: startedAt - created,
      page_diff: timings?.page_diff ?? NaN,
      parse: timings?.parse ?? NaN,
      tesseract_runs: readings.length,
      tesseract_ms: readings.reduce((a, r) => a + (r.ms ?? 0), 0),
      bundle: timings?.bundle ?? NaN,
      complete_write: completedAt - startedAt - stages,
      notice: tSeen - completedAt,
      fetch_md: tEnd - tSeen,
      total: tEnd - t0,
    });
    return { text: String(text), detail, seconds };
  };

  const started = Date.now();
  let rows: EvalRow[] = [];
  let ocr: OcrDocResult[] = [];
  try {
    if (only !== 'ocr') rows = await evaluateCorpus(corpus, parseThroughWorker, (s) => process.stderr.write(`${s}\n`));
    if (only !== 'corpus')
      ocr = await evaluateOcr(await ocrDocuments(corpus), ocrThroughWorker, (s) => process.stderr.write(`${s}\n`));
  } finally {
    worker.child.kill('SIGTERM');
    await worker.exited;
    await gw.close();
  }
  if (rows.length) {
    printReport(rows);
    console.log(
      `\n${pages} pages through the worker; ${(parseMs / 1000).toFixed(1)} s in queued jobs (dispatch to completed), ${((Date.now() - started) / 1000).toFixed(1)} s in all`,
    );
    console.log(`\nmarkdown:\n\n${markdownTable(rows)}`);
  }
  if (ocr.length) {
    // docfleet's seconds: parse request to markdown fetched, through the API and the worker.
    console.log(
      `\nOCR text fidelity (${ocr.length} images; docfleet through the API and the parse worker, seconds from the parse request to the markdown fetched):\n\n${ocrReport(ocr)}`,
    );
    const receipts = ocr.filter((r) => r.doc.docClass === 'receipt');
    printProfile(receipts.map((r) => profiles.get(r.doc.doc)).filter((p): p is Record<string, number> => !!p));
    if (receipts.length) {
      const raw = summariseOcr(receipts, 'raw'),
        ours = summariseOcr(receipts, 'ours');
      console.log(
        `\nreceipts: CER ${ours.cerPooled.toFixed(3)} vs raw ${raw.cerPooled.toFixed(3)} (${(ours.cerPooled / raw.cerPooled).toFixed(2)}x, target <= 0.9x), word F1 ${ours.f1Pooled.toFixed(3)} vs ${raw.f1Pooled.toFixed(3)}, time ${(ours.secondsPerImage / raw.secondsPerImage).toFixed(2)}x (target <= 1.3x)`,
      );
    }
  }
  if (jsonOut)
    await writeFile(
      jsonOut,
      JSON.stringify(
        {
          rows,
          ocr: ocr.map((r) => ({
            doc: r.doc.doc,
            half: r.doc.half,
            raw: r.raw,
            ours: r.ours,
            detail: r.detail,
            profile_ms: profiles.get(r.doc.doc),
          })),
        },
        null,
        2,
      ),
    );
  const failed = rows.filter((r) => Number.isNaN(r.value)).length + ocr.filter((r) => r.ours.error).length;
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
