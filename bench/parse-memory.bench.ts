// Peak memory of one parse (issue 19.2): a fresh parse-worker process per case, each parsing one
// document through the real job path (HTTP dispatch → queue → the worker → artifacts and credits),
// its peak resident set read from /proc/<pid>/status (VmHWM) once the job has ended, beside a
// baseline measured in the same run:
//  (c) baseline: a one-page plain text PDF;
//  (a) that page followed by a page whose content stream is `0 0 m 1 1 l S` nine million times
//      (deflated with pdf-lib: 243 KB; before the page budget it drove the worker to 4.2 GB);
//  (b) a 500-page text document.
// The worker's descendants (pdftoppm, Tesseract) are sampled every 200 ms from /proc as well: their
// memory is not in the worker's VmHWM. Jobs use the API's default options (backend auto), as any
// caller's would. Every process must stay well under the 2 GiB pod limit (k8s/), the target is 1 GiB.
import { readFile, readdir } from 'node:fs/promises';
import { round, startBenchGateway, withSlowdown, type Row } from './lib';
import { densePdf, textPdf } from '../libs/testing/src';
import { spawnWorker, type WorkerProcess } from '../libs/testing/src';

export const name = 'parse-memory';

const DENSE_OPS = Number(process.env.BENCH_DENSE_OPS ?? 9_000_000);
const BIG_PAGES = Number(process.env.BENCH_MEMORY_PAGES ?? 500);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Gw = Awaited<ReturnType<typeof startBenchGateway>>;

async function status(pid: number): Promise<{ ppid: number; rss: number; hwm: number; name: string } | null> {
  try {
    const s = await readFile(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(s)?.[1] ?? 0) / 1024;
    return { ppid: kb('PPid') * 1024, rss: kb('VmRSS'), hwm: kb('VmHWM'), name: /Name:\s+(\S+)/.exec(s)?.[1] ?? '?' };
  } catch {
    return null; // gone meanwhile
  }
}

/** Every live descendant of `root` with its resident set now (MiB). */
async function descendants(root: number): Promise<Array<{ pid: number; name: string; rss: number }>> {
  const all = new Map<number, { ppid: number; rss: number; name: string }>();
  for (const d of await readdir('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const s = await status(Number(d));
    if (s) all.set(Number(d), s);
  }
  const out: Array<{ pid: number; name: string; rss: number }> = [];
  const walk = (p: number) => {
    for (const [pid, s] of all)
      if (s.ppid === p) {
        out.push({ pid, name: s.name, rss: s.rss });
        walk(pid);
      }
  };
  walk(root);
  return out;
}

interface Measured {
  seconds: number;
  wallSeconds: number;
  peakMiB: number;
  childPeakMiB: number;
  childName: string;
  result: Record<string, unknown> | null;
  status: string;
  code: string | null;
}

export async function run(): Promise<Row[]> {
  // Built before the gateway starts: nine million operators keep this thread busy for seconds,
  // which would otherwise close the HTTP client's idle keep-alive sockets under it.
  const docs = { baseline: await textPdf(1), dense: await densePdf(DENSE_OPS), big: await textPdf(BIG_PAGES) };
  const gw: Gw = await startBenchGateway({ MAX_UPLOAD_BYTES: String(500 * 1024 * 1024) });
  const workers: WorkerProcess[] = [];
  try {
    const { key } = await gw.createOrg({ credits: 10_000_000 });
    const kbId = (await gw.createKnowledgeBase(key, 'memory')).id as string;
    let seq = 0;

    /** A fresh worker process parses `data` alone; its VmHWM is read before it stops. */
    async function measure(label: string, data: Buffer): Promise<Measured> {
      process.stderr.write(`parse-memory: ${label}\n`);
      const up = await gw.upload(key, { knowledge_base_id: kbId }, { name: `${++seq}-${label}.pdf`, data });
      if (up.status !== 201) throw new Error(`upload: ${JSON.stringify(up.body)}`);
      const w = await spawnWorker(gw, { LOG_LEVEL: 'warn', DB_POOL_MAX: '4' });
      workers.push(w);
      const pid = w.child.pid!;
      let childPeak = 0;
      let childName = '';
      try {
        const t0 = Date.now();
        const r = await gw.req('POST', `/v1/files/${up.body.file.id}/parse`, { key, body: { options: {} } });
        if (r.status !== 202) throw new Error(`parse: ${JSON.stringify(r.body)}`);
        for (;;) {
          const j = await gw.db.job.findUniqueOrThrow({ where: { id: r.body.job.job_id } });
          if (['completed', 'failed', 'cancelled'].includes(j.status)) {
            const peak = (await status(pid))!.hwm;
            return {
              seconds: (j.completed_at!.getTime() - j.started_at!.getTime()) / 1000,
              wallSeconds: (Date.now() - t0) / 1000,
              peakMiB: peak,
              childPeakMiB: childPeak,
              childName,
              result: j.result as Record<string, unknown> | null,
              status: j.status,
              code: j.error_code,
            };
          }
          for (const d of await descendants(pid))
            if (d.rss > childPeak) {
              childPeak = d.rss;
              childName = d.name;
            }
          if (w.child.exitCode !== null || w.child.signalCode !== null)
            throw new Error(`worker exited during ${label}:\n${w.output().slice(-4000)}`);
          await sleep(200);
        }
      } finally {
        w.child.kill('SIGTERM');
        await w.exited;
      }
    }

    const baseline = await measure('baseline', docs.baseline);
    const dense = await measure('dense', docs.dense);
    const big = await measure(`${BIG_PAGES}-pages`, docs.big);

    const row = (c: string, m: Measured, pages: number, isBase = false): Row => {
      const failed = (m.result?.failed_pages as unknown[] | undefined)?.length ?? 0;
      const outcome =
        m.status === 'completed'
          ? `completed${failed ? `, ${failed} failed page(s)` : ''}, ${m.result?.credits_charged ?? '?'} credit(s), backend ${m.result?.backend}`
          : `${m.status} (${m.code})`;
      return {
        case: c,
        baseline: isBase,
        throughput: round(pages / m.seconds, 2),
        unit: 'pages/s',
        p50_ms: round(m.seconds * 1000, 0),
        samples: 1,
        note:
          `worker peak RSS ${Math.round(m.peakMiB)} MiB (${m.peakMiB < 1024 ? 'under' : 'OVER'} 1 GiB), ${round(m.peakMiB / baseline.peakMiB, 2)}x baseline; ` +
          `largest child ${Math.round(m.childPeakMiB)} MiB${m.childName ? ` (${m.childName})` : ''}; ${outcome}`,
        extra: {
          job_seconds: m.seconds,
          wall_seconds: m.wallSeconds,
          peak_rss_mib: round(m.peakMiB, 1),
          child_peak_rss_mib: round(m.childPeakMiB, 1),
          child: m.childName,
          status: m.status,
          error_code: m.code,
          result: m.result,
        },
      };
    };
    const rows = withSlowdown([
      row('1-page plain text PDF', baseline, 1, true),
      row(
        `text page + one page of '0 0 m 1 1 l S' x${DENSE_OPS.toLocaleString('en')} (deflated, ${Math.round(docs.dense.length / 1024)} KB)`,
        dense,
        2,
      ),
      row(`${BIG_PAGES}-page text PDF`, big, BIG_PAGES),
    ]);
    for (const m of [baseline, dense, big])
      if (m.peakMiB >= 2048 || m.childPeakMiB >= 2048)
        throw new Error(`a process went over the 2 GiB pod limit: ${JSON.stringify(rows.map((r) => r.note))}`);
    return rows;
  } finally {
    for (const w of workers) if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
    await gw.close();
  }
}
