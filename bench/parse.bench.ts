// Parse speed through the real job path (HTTP dispatch → queue → a spawned parse-worker process →
// artifacts and credits written), each beside a same-run baseline:
//  1. text-layer pages/s of one worker process, with and without page images, beside raw pdf.js
//     text extraction + canvas render + PNG encode of the same pages in this process;
//  2. OCR time per page beside pdftoppm + plain `tesseract` on the same page;
//  3. a 500-page PDF (pdf-lib, from corpus pages) with the worker's RSS sampled (< 1 GiB).
// Job time is the job row's completed_at − started_at (queue wait excluded). Cases take turns
// (A B C, A B C …) so background load moves them alike.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { median, round, startBenchGateway, type Row } from './lib';
import { openPdf } from '../libs/pdf/src/pdfjs-loader';
import { rasterisePdf } from '../libs/pdf/src/render/rasterise';
import { combine, repeatPages } from '../libs/testing/src';
import { spawnWorker, type WorkerProcess } from '../libs/testing/src';
import { rawPdfjs } from '../libs/pdf/bench/raw-pdfjs';

export const name = 'parse';

const REPS = Number(process.env.BENCH_PARSE_REPS ?? 3);
const BIG_PAGES = Number(process.env.BENCH_PARSE_BIG_PAGES ?? 500);
const CORPUS = process.env.DOCFLEET_CORPUS ?? path.resolve(__dirname, '../../shared/corpus');
const BORN_DIGITAL = ['2305.03393v1-pg9.pdf', 'code_and_formula.pdf', 'redp5110_sampled.pdf'].map((f) =>
  path.join(CORPUS, 'a_born_digital/docling', f),
);
const REDBOOK = BORN_DIGITAL[2]!;
const run$ = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Gw = Awaited<ReturnType<typeof startBenchGateway>>;

/** Peak resident set of a process so far (VmHWM) and now (VmRSS), in MiB. */
async function rssMiB(pid: number): Promise<{ now: number; peak: number }> {
  const s = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0);
  return { now: kb('VmRSS') / 1024, peak: kb('VmHWM') / 1024 };
}

async function pageCount(file: string) {
  const d = await openPdf(file);
  const n = d.numPages;
  await d.destroy();
  return n;
}

export async function run(): Promise<Row[]> {
  const gw: Gw = await startBenchGateway({ MAX_UPLOAD_BYTES: String(500 * 1024 * 1024) });
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'docfleet-parse-bench-'));
  const workers: WorkerProcess[] = [];
  try {
    const { key } = await gw.createOrg({ credits: 10_000_000 });
    const kbId = (await gw.createKnowledgeBase(key, 'bench')).id as string;
    let seq = 0;

    /** Upload (not timed), dispatch over HTTP, wait for the job row; returns the job's processing seconds. */
    async function parseJob(
      file: string | Buffer,
      options: Record<string, unknown> = {},
      onTick?: () => Promise<void>,
    ) {
      const data = typeof file === 'string' ? await readFile(file) : file;
      const up = await gw.upload(
        key,
        { knowledge_base_id: kbId },
        { name: `${++seq}-${typeof file === 'string' ? path.basename(file) : 'doc.pdf'}`, data },
      );
      if (up.status !== 201) throw new Error(`upload: ${JSON.stringify(up.body)}`);
      const r = await gw.req('POST', `/v1/files/${up.body.file.id}/parse`, { key, body: { options } });
      if (r.status !== 202) throw new Error(`parse: ${JSON.stringify(r.body)}`);
      for (;;) {
        const j = await gw.db.job.findUniqueOrThrow({ where: { id: r.body.job.job_id } });
        if (j.status === 'completed')
          return { seconds: (j.completed_at!.getTime() - j.started_at!.getTime()) / 1000, job: j };
        if (j.status === 'failed' || j.status === 'cancelled') throw new Error(`job ${j.status}: ${j.error}`);
        await onTick?.();
        await sleep(20);
      }
    }
    async function worker(pageImages: boolean) {
      const w = await spawnWorker(gw, { PARSE_PAGE_IMAGES: String(pageImages), LOG_LEVEL: 'warn', DB_POOL_MAX: '4' });
      workers.push(w);
      await parseJob(BORN_DIGITAL[0]!, { backend: 'text' }); // warm-up: pdf.js, fonts, sharp, tesseract data in the page cache
      return w;
    }
    async function stop(w: WorkerProcess) {
      w.child.kill('SIGTERM');
      await w.exited;
    }

    const pages = (await Promise.all(BORN_DIGITAL.map(pageCount))).reduce((a, b) => a + b, 0);
    // One page of the redbook as its own PDF: the OCR case.
    const ocrPage = await combine([{ file: REDBOOK, pages: [4] }]);
    const ocrPdf = path.join(tmp, 'ocr-page.pdf');
    await writeFile(ocrPdf, ocrPage);
    const raster = (await rasterisePdf(ocrPdf, tmp, { dpi: 300, gray: true, firstPage: 1, lastPage: 1 })).get(1)!;
    await rawPdfjs(BORN_DIGITAL, 150); // warm-up

    const t = {
      img: [] as number[],
      noimg: [] as number[],
      raw: [] as number[],
      ocrJob: [] as number[],
      ocrPlain: [] as number[],
      ocrRaster: [] as number[],
    };
    let textPeak = 0;
    for (let rep = 0; rep < REPS; rep++) {
      process.stderr.write(`parse bench: round ${rep + 1}/${REPS}\n`);
      const wi = await worker(true);
      let s = 0;
      for (const f of BORN_DIGITAL) s += (await parseJob(f, { backend: 'text' })).seconds;
      t.img.push(s);
      t.ocrJob.push((await parseJob(ocrPage, { backend: 'ocr' })).seconds);
      textPeak = Math.max(textPeak, (await rssMiB(wi.child.pid!)).peak);
      await stop(wi);
      const wn = await worker(false);
      s = 0;
      for (const f of BORN_DIGITAL) s += (await parseJob(f, { backend: 'text' })).seconds;
      t.noimg.push(s);
      await stop(wn);
      let t0 = performance.now();
      await rawPdfjs(BORN_DIGITAL, 150);
      t.raw.push((performance.now() - t0) / 1000);
      const env = { ...process.env, OMP_THREAD_LIMIT: '1' };
      t0 = performance.now();
      await run$('tesseract', [raster, 'stdout', '--oem', '1', '--psm', '3', '--dpi', '300', '-l', 'eng', 'tsv'], {
        env,
        maxBuffer: 1 << 24,
      });
      t.ocrPlain.push((performance.now() - t0) / 1000);
      const dir = path.join(tmp, `r${rep}`);
      await mkdir(dir, { recursive: true });
      t0 = performance.now();
      const r = (await rasterisePdf(ocrPdf, dir, { dpi: 300, gray: true, firstPage: 1, lastPage: 1 })).get(1)!;
      await run$('tesseract', [r, 'stdout', '--oem', '1', '--psm', '3', '--dpi', '300', '-l', 'eng', 'tsv'], {
        env,
        maxBuffer: 1 << 24,
      });
      t.ocrRaster.push((performance.now() - t0) / 1000);
    }

    const textRow = (c: string, xs: number[], baseline = false, note?: string): Row => ({
      case: c,
      baseline,
      throughput: round(pages / median(xs)),
      unit: 'pages/s',
      p50_ms: round((median(xs) * 1000) / pages, 1),
      samples: xs.length,
      note,
      extra: { seconds: xs },
    });
    const rawRow = textRow(`raw pdf.js text + render + PNG, ${pages} pages (this process)`, t.raw, true);
    const rows: Row[] = [
      rawRow,
      textRow(
        `job path, text layer + page images (1 worker process)`,
        t.img,
        false,
        `worker peak RSS ${Math.round(textPeak)} MiB`,
      ),
      textRow(`job path, text layer, no page images (PARSE_PAGE_IMAGES=false)`, t.noimg),
    ].map((r) => ({ ...r, slowdown: round(rawRow.throughput / r.throughput) }));
    const ocrRow = (c: string, xs: number[], baseline = false, note?: string): Row => ({
      case: c,
      baseline,
      throughput: round(1 / median(xs), 3),
      unit: 'pages/s',
      p50_ms: round(median(xs) * 1000, 0),
      samples: xs.length,
      note,
      extra: { seconds: xs },
    });
    const plain = ocrRow('plain tesseract on the 300-dpi raster (tsv, OMP_THREAD_LIMIT=1)', t.ocrPlain, true);
    rows.push(
      ...[
        plain,
        ocrRow('pdftoppm 300 dpi + plain tesseract', t.ocrRaster),
        ocrRow('job path, OCR backend, 1 page (redp5110 p5) incl. page image', t.ocrJob),
      ].map((r) => ({ ...r, slowdown: round(plain.throughput / r.throughput) })),
    );

    // ---- 500 pages, worker RSS sampled
    const bigFile = path.join(os.tmpdir(), `docfleet-bench-${BIG_PAGES}p.pdf`);
    if (!(await stat(bigFile).catch(() => null))) await writeFile(bigFile, await repeatPages(REDBOOK, BIG_PAGES));
    const wb = await worker(true);
    let sampled = 0;
    let lastSample = 0;
    const big = await parseJob(bigFile, { backend: 'text' }, async () => {
      if (Date.now() - lastSample < 250) return;
      lastSample = Date.now();
      sampled = Math.max(sampled, (await rssMiB(wb.child.pid!)).now);
    });
    const peak = Math.max(sampled, (await rssMiB(wb.child.pid!)).peak);
    const events = await gw.db.jobEvent.findMany({ where: { job_id: big.job.id }, orderBy: { id: 'asc' } });
    const at = (type: string) => events.find((e) => e.event_type === type)?.created_at.getTime() ?? NaN;
    const diffSeconds = (at('parse.started') - at('parse.page_diff.started')) / 1000;
    await stop(wb);
    rows.push({
      case: `job path, ${BIG_PAGES}-page PDF (redp5110 ×${Math.ceil(BIG_PAGES / 18)}), text layer + page images`,
      throughput: round(BIG_PAGES / big.seconds),
      unit: 'pages/s',
      p50_ms: round((big.seconds * 1000) / BIG_PAGES, 1),
      samples: 1,
      note: `worker peak RSS ${Math.round(peak)} MiB (${peak < 1024 ? 'under' : 'OVER'} 1 GiB); page-diff ${diffSeconds.toFixed(1)} s of ${big.seconds.toFixed(1)} s`,
      extra: {
        seconds: big.seconds,
        peak_rss_mib: peak,
        page_diff_seconds: diffSeconds,
        bytes: (await stat(bigFile)).size,
      },
    });
    return rows;
  } finally {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await gw.close();
    await rm(tmp, { recursive: true, force: true });
  }
}
