// Sharded parses of one large document (issue 17): a BENCH_SHARD_PAGES-page (default 2,000)
// text-layer PDF parsed through the real path (a gateway process → queue → parse-worker processes,
// PARSE_SHARD_PAGES 32) by 1 and then 2 worker processes, beside the same-run single-process raw
// baseline: pdf.js text extraction of every page of the same file in this process (what any
// pipeline must at least do). Pages/s = pages ÷ (completed_at − created_at of the job).
// Also measured: peak RSS (VmHWM) of every worker and of the gateway process (which also takes the
// upload and page estimate of a 10,000-page PDF), and the work a kill -9 loses: a 2-worker run in
// which a worker holding a shard is killed BENCH_SHARD_KILLS times (a replacement started each
// time); pages read twice are counted from the workers' `shard page read` lines.
// Page images are off (PARSE_PAGE_IMAGES=false) unless BENCH_SHARD_IMAGES=true: the baseline
// renders nothing either, and rasterising dominates a text page's cost otherwise.
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  freePort,
  gatewayClient,
  longPdf,
  spawnService,
  spawnWorker,
  type ServiceProcess,
  type WorkerProcess,
} from '../libs/testing/src';
import { closePdf, openPdf } from '../libs/pdf/src/pdfjs-loader';
import { round, startBenchGateway, withSlowdown, type Row } from './lib';

export const name = 'shards';

const PAGES = Number(process.env.BENCH_SHARD_PAGES ?? 2000);
const ESTIMATE_PAGES = Number(process.env.BENCH_SHARD_ESTIMATE_PAGES ?? 10_000);
const KILLS = Number(process.env.BENCH_SHARD_KILLS ?? 2);
const KILL_PAGES = Number(process.env.BENCH_SHARD_KILL_PAGES ?? 320);
const IMAGES = process.env.BENCH_SHARD_IMAGES === 'true';
const COUNTS = (process.env.BENCH_SHARD_WORKERS ?? '1,2').split(',').map(Number);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function hwmMiB(pid: number): Promise<number> {
  const s = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(s)?.[1] ?? 0) / 1024;
}

/** Raw baseline: pdf.js text content of every page, one process, no queue, no storage. */
async function rawPdfjs(file: string): Promise<number> {
  const t0 = performance.now();
  const doc = await openPdf(file);
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      await page.getTextContent();
      page.cleanup();
    }
  } finally {
    await closePdf(doc);
  }
  return (performance.now() - t0) / 1000;
}

export async function run(): Promise<Row[]> {
  const tmp = path.join(os.tmpdir(), `bench-shards-${process.pid}.pdf`);
  const pdf = await longPdf(PAGES);
  const big = await longPdf(ESTIMATE_PAGES);
  const killPdf = await longPdf(KILL_PAGES);
  await writeFile(tmp, pdf);
  const gwIn = await startBenchGateway({ MAX_UPLOAD_BYTES: String(500 * 1024 * 1024) });
  const procs: Array<WorkerProcess | ServiceProcess> = [];
  const rows: Row[] = [];
  try {
    const env = gwIn.deps.env;
    const common = {
      DATABASE_URL: env.DATABASE_URL,
      REDIS_URL: env.REDIS_URL,
      DATA_DIR: gwIn.dataDir,
      QUEUE_PREFIX: env.QUEUE_PREFIX,
      LOG_LEVEL: 'warn',
      MAX_UPLOAD_BYTES: String(500 * 1024 * 1024),
    };
    // The gateway under test is its own process, so its peak RSS is its own.
    const port = await freePort();
    const gwProc = await spawnService(
      'gateway',
      { ...common, PORT: String(port), HOST: '127.0.0.1' },
      `http://127.0.0.1:${port}/healthz`,
    );
    procs.push(gwProc);
    const gwIdle = await hwmMiB(gwProc.child.pid!); // after start-up, before any request
    const gw = gatewayClient(`http://127.0.0.1:${port}`, gwIn.db);
    const { key } = await gw.createOrg({ credits: 10_000_000 });
    const kbId = (await gw.createKnowledgeBase(key, 'shards')).id as string;
    let seq = 0;
    const dispatch = async (data: Buffer) => {
      const up = await gw.upload(
        key,
        { knowledge_base_id: kbId },
        { name: `${++seq}.pdf`, data, type: 'application/pdf' },
      );
      if (up.status !== 201) throw new Error(`upload: ${JSON.stringify(up.body)}`);
      const t = performance.now();
      const r = await gw.req('POST', `/v1/files/${up.body.file.id}/parse`, {
        key,
        body: { options: { backend: 'text', dpi: 72 } },
      });
      if (r.status !== 202) throw new Error(`parse: ${JSON.stringify(r.body)}`);
      return { jobId: r.body.job.job_id as string, dispatchMs: performance.now() - t };
    };
    const settle = async (jobId: string, fleet: WorkerProcess[]) => {
      for (;;) {
        const j = await gwIn.db.job.findUniqueOrThrow({ where: { id: jobId } });
        if (j.status === 'completed') return j;
        if (j.status === 'failed' || j.status === 'cancelled') throw new Error(`job ${j.status}: ${j.error}`);
        if (fleet.every((w) => w.child.exitCode !== null || w.child.signalCode !== null))
          throw new Error(`every worker exited:\n${fleet.map((w) => w.output().slice(-2000)).join('\n')}`);
        await sleep(250);
      }
    };
    const workerEnv = (extra: Record<string, string> = {}) => ({
      PARSE_PAGE_IMAGES: String(IMAGES),
      DB_POOL_MAX: '4',
      ...extra,
    });

    // 1. The gateway's estimate of a 10,000-page PDF (dispatch = estimate + reservation + enqueue).
    process.stderr.write(`shards bench: ${ESTIMATE_PAGES}-page estimate\n`);
    const est = await dispatch(big);
    const estJob = await gwIn.db.job.findUniqueOrThrow({ where: { id: est.jobId } });
    await gw.req('POST', `/v1/files/${estJob.file_id}/jobs/${est.jobId}/cancel`, { key });
    const reserved = await gwIn.db.creditReservation.findUniqueOrThrow({ where: { job_id: est.jobId } });

    // 2. The raw baseline, same run.
    process.stderr.write('shards bench: raw pdf.js baseline\n');
    const rawSeconds = await rawPdfjs(tmp);
    rows.push({
      case: `raw pdf.js text extraction, ${PAGES} pages, one process`,
      baseline: true,
      throughput: round(PAGES / rawSeconds, 2),
      unit: 'pages/s',
      p50_ms: round(rawSeconds * 1000, 0),
      samples: 1,
      note: `this process's peak RSS ${Math.round(await hwmMiB(process.pid))} MiB`,
    });

    // 3. The sharded parse with 1, 2, … worker processes.
    for (const n of COUNTS) {
      process.stderr.write(`shards bench: ${PAGES} pages, ${n} worker(s)\n`);
      const fleet = await Promise.all(Array.from({ length: n }, () => spawnWorker(gwIn, workerEnv())));
      procs.push(...fleet);
      const { jobId } = await dispatch(pdf);
      const j = await settle(jobId, fleet);
      const seconds = (j.completed_at!.getTime() - j.created_at.getTime()) / 1000;
      const hwm = await Promise.all(fleet.map((w) => hwmMiB(w.child.pid!)));
      const shards = await gwIn.db.parseShard.findMany({ where: { job_id: jobId }, select: { worker: true } });
      for (const w of fleet) {
        w.child.kill('SIGTERM');
        await w.exited;
      }
      rows.push({
        case: `sharded parse, ${PAGES} pages, ${n} parse-worker process${n > 1 ? 'es' : ''}`,
        throughput: round(PAGES / seconds, 2),
        unit: 'pages/s',
        p50_ms: round(seconds * 1000, 0),
        samples: 1,
        note: `worker peak RSS ${hwm.map((x) => Math.round(x)).join(' / ')} MiB; ${shards.length} shards on ${new Set(shards.map((x) => x.worker)).size} worker(s); page images ${IMAGES ? 'on' : 'off'}`,
        extra: { seconds, worker_peak_rss_mib: hwm.map((x) => round(x, 1)) },
      });
    }

    // 4. Work lost to kill -9: 2 workers, a worker holding a shard killed KILLS times.
    process.stderr.write(`shards bench: ${KILLS} kill(s) during a ${KILL_PAGES}-page parse\n`);
    const fleet = await Promise.all(
      [0, 1].map(() => spawnWorker(gwIn, workerEnv({ LOG_LEVEL: 'debug', PARSE_SHARD_PAGES: '16' }))),
    );
    procs.push(...fleet);
    const { jobId } = await dispatch(killPdf);
    const resumedMs: number[] = [];
    for (let k = 0; k < KILLS; k++) {
      let victim: { w: WorkerProcess; shard: number } | undefined;
      while (!victim) {
        const shards = await gwIn.db.parseShard.findMany({ where: { job_id: jobId, status: 'running' } });
        for (const sh of shards) {
          const w = fleet.find(
            (p) => p.child.exitCode === null && p.child.signalCode === null && sh.worker?.endsWith(`:${p.child.pid}`),
          );
          if (w && sh.done_pages >= 1 && sh.done_pages < sh.pages.length - 2) victim = { w, shard: sh.shard_no };
        }
        if (!victim) await sleep(50);
      }
      victim.w.child.kill('SIGKILL');
      await victim.w.exited;
      const at = Date.now();
      const repl = await spawnWorker(gwIn, workerEnv({ LOG_LEVEL: 'debug', PARSE_SHARD_PAGES: '16' }));
      fleet.push(repl);
      procs.push(repl);
      for (;;) {
        const sh = await gwIn.db.parseShard.findUniqueOrThrow({
          where: { job_id_shard_no: { job_id: jobId, shard_no: victim.shard } },
        });
        if (sh.status === 'done' || !sh.worker?.endsWith(`:${victim.w.child.pid}`)) break;
        await sleep(100);
      }
      resumedMs.push(Date.now() - at);
    }
    await settle(jobId, fleet);
    const read = new Map<number, number>();
    for (const w of fleet)
      for (const line of w.output().split('\n'))
        if (line.includes('shard page read') && line.includes(jobId)) {
          const p = JSON.parse(line).page as number;
          read.set(p, (read.get(p) ?? 0) + 1);
        }
    const lost = [...read.values()].reduce((a, c) => a + c - 1, 0);
    const debits = await gwIn.db.ledgerEntry.count({ where: { job_id: jobId, kind: 'debit' } });
    for (const w of fleet) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGTERM');
    rows.push({
      case: `kill -9 of a worker holding a shard, ${KILLS}x during a ${KILL_PAGES}-page parse (2 workers)`,
      throughput: lost,
      unit: 'pages read twice',
      samples: KILLS,
      note: `${round(lost / KILLS, 2)} page(s) lost per kill (target <= 1); shard resumed ${resumedMs.map((x) => (x / 1000).toFixed(1)).join(', ')} s after each kill; ${debits} debits for ${KILL_PAGES} pages`,
      extra: { lost, resumed_ms: resumedMs, debits, pages_read: read.size },
    });

    const gwHwm = await hwmMiB(gwProc.child.pid!);
    rows.push({
      case: `gateway process: upload and estimate of a ${ESTIMATE_PAGES}-page PDF (${(big.length / 1048576).toFixed(1)} MB), uploads of the others`,
      throughput: round(1000 / est.dispatchMs, 2),
      unit: 'dispatch/s',
      p50_ms: round(est.dispatchMs, 0),
      samples: 1,
      note: `estimate reserved ${reserved.amount_credits} credits; gateway peak RSS ${Math.round(gwHwm)} MiB (target < 300), ${Math.round(gwIdle)} MiB of it reached at start-up`,
      extra: {
        gateway_peak_rss_mib: round(gwHwm, 1),
        gateway_startup_rss_mib: round(gwIdle, 1),
        dispatch_ms: round(est.dispatchMs, 1),
      },
    });
    return withSlowdown(rows).map((r) => (r.unit === 'pages/s' ? r : { ...r, slowdown: undefined }));
  } finally {
    for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await gwIn.close();
  }
}
