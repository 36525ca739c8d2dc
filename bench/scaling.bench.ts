// Horizontal scaling of the parse worker: the same corpus files (every text-layer PDF listed in
// /work/shared/corpus/MANIFEST.tsv, scanned ones left out so OCR time does not dominate) parsed
// by 1, 2 and 4 parse-worker processes (PARSE_CONCURRENCY=1 each) on one queue. Each round
// uploads fresh copies (new files: nothing is reused from an earlier parse), starts the workers,
// lets each take one warm-up job, then dispatches every file at once with backend `text`.
// Throughput = pages ÷ (last completed_at − first created_at), both PostgreSQL timestamps.
// Worker counts take turns (1 2 4, 1 2 4 …) so background load moves them alike; 1 worker is the
// baseline. On a machine with C cores the curve should flatten at C workers. The note gives the
// CPU the worker processes used during the timed stretch (from /proc), in cores.
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnWorker, type WorkerProcess } from '../libs/testing/src';
import { median, round, startBenchGateway, type Row } from './lib';

export const name = 'scaling';

const CORPUS = process.env.DOCFLEET_CORPUS ?? path.resolve(__dirname, '../../shared/corpus');
const REPS = Number(process.env.BENCH_SCALING_REPS ?? 2);
const COUNTS = (process.env.BENCH_SCALING_WORKERS ?? '1,2,4').split(',').map(Number);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Linux clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat times. */
const CLK_TCK = 100;

/** CPU seconds a process (and its waited-for children) used so far, from /proc/<pid>/stat. */
async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' '); // fields from 3 (state) on
  return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) / CLK_TCK; // utime stime cutime cstime
}

/** Text-layer PDFs of the corpus manifest with their page counts (read in place, never modified). */
async function corpusPdfs(): Promise<Array<{ file: string; pages: number }>> {
  const [header, ...lines] = (await readFile(path.join(CORPUS, 'MANIFEST.tsv'), 'utf8')).trim().split('\n');
  const col = header.split('\t');
  const at = (cells: string[], name: string) => cells[col.indexOf(name)] ?? '';
  return lines
    .map((l) => l.split('\t'))
    .filter(
      (c) =>
        at(c, 'local_path').endsWith('.pdf') &&
        !at(c, 'local_path').startsWith('c_scanned_images/') &&
        Number(at(c, 'pages')) > 0,
    )
    .map((c) => ({ file: path.join(CORPUS, at(c, 'local_path')), pages: Number(at(c, 'pages')) }));
}

export async function run(): Promise<Row[]> {
  const gw = await startBenchGateway();
  const workers: WorkerProcess[] = [];
  try {
    const docs = await corpusPdfs();
    const pages = docs.reduce((a, d) => a + d.pages, 0);
    const bytes = await Promise.all(docs.map((d) => readFile(d.file)));
    const { key } = await gw.createOrg({ credits: 10_000_000 });
    const kbId = (await gw.createKnowledgeBase(key, 'scaling')).id as string;
    let seq = 0;

    const upload = async (i: number) => {
      const up = await gw.upload(
        key,
        { knowledge_base_id: kbId },
        { name: `${++seq}-${path.basename(docs[i]!.file)}`, data: bytes[i]!, type: 'application/pdf' },
      );
      if (up.status !== 201) throw new Error(`upload: ${JSON.stringify(up.body)}`);
      return up.body.file.id as string;
    };
    const dispatch = async (fileId: string) => {
      const r = await gw.req('POST', `/v1/files/${fileId}/parse`, { key, body: { options: { backend: 'text' } } });
      if (r.status !== 202) throw new Error(`parse: ${JSON.stringify(r.body)}`);
      return r.body.job.job_id as string;
    };
    const settle = async (jobIds: string[]) => {
      for (;;) {
        const jobs = await gw.db.job.findMany({ where: { id: { in: jobIds } } });
        const bad = jobs.find((j) => j.status === 'failed' || j.status === 'cancelled');
        if (bad) throw new Error(`job ${bad.status}: ${bad.error}`);
        if (jobs.every((j) => j.status === 'completed')) return jobs;
        await sleep(50);
      }
    };

    /** One measured round with n worker processes: seconds for the whole corpus, and the workers' CPU seconds meanwhile. */
    async function round_(n: number): Promise<{ seconds: number; cpu: number }> {
      const fileIds = await Promise.all(docs.map((_, i) => upload(i))); // not timed
      const started = await Promise.all(
        Array.from({ length: n }, () => spawnWorker(gw, { LOG_LEVEL: 'warn', DB_POOL_MAX: '3' })),
      );
      workers.push(...started);
      // Warm-up: one small job per worker (pdf.js, fonts and sharp load on the first job).
      await settle(await Promise.all(Array.from({ length: n }, async () => dispatch(await upload(0)))));
      const cpu0 = await Promise.all(started.map((w) => cpuSeconds(w.child.pid!)));
      const jobs = await settle(await Promise.all(fileIds.map(dispatch)));
      const cpu1 = await Promise.all(started.map((w) => cpuSeconds(w.child.pid!)));
      const first = Math.min(...jobs.map((j) => j.created_at.getTime()));
      const last = Math.max(...jobs.map((j) => j.completed_at!.getTime()));
      await Promise.all(
        started.map(async (w) => {
          w.child.kill('SIGTERM');
          await w.exited;
        }),
      );
      return { seconds: (last - first) / 1000, cpu: cpu1.reduce((a, c, i) => a + c - cpu0[i]!, 0) };
    }

    const seconds = new Map<number, number[]>(COUNTS.map((n) => [n, []]));
    const cores = new Map<number, number[]>(COUNTS.map((n) => [n, []]));
    for (let rep = 0; rep < REPS; rep++) {
      for (const n of COUNTS) {
        process.stderr.write(`scaling bench: round ${rep + 1}/${REPS}, ${n} worker(s)\n`);
        const r = await round_(n);
        seconds.get(n)!.push(r.seconds);
        cores.get(n)!.push(r.cpu / r.seconds);
      }
    }
    const base = pages / median(seconds.get(COUNTS[0]!)!);
    return COUNTS.map((n) => {
      const xs = seconds.get(n)!;
      const throughput = pages / median(xs);
      return {
        case: `${n} parse-worker process${n > 1 ? 'es' : ''}, ${docs.length} PDFs / ${pages} pages, backend text`,
        baseline: n === COUNTS[0],
        throughput: round(throughput, 2),
        unit: 'pages/s',
        p50_ms: round((median(xs) * 1000) / pages, 0),
        slowdown: round(base / throughput),
        samples: xs.length,
        note: `speed-up ${round(throughput / base)}x; workers used ${round(median(cores.get(n)!), 2)} of ${os.cpus().length} cores`,
        extra: {
          seconds: xs.map((x) => round(x, 2)),
          worker_cores: cores.get(n)!.map((x) => round(x, 2)),
          loadavg_end: os.loadavg().map((x) => round(x, 1)),
        },
      };
    });
  } finally {
    for (const w of workers) if (w.child.exitCode === null) w.child.kill('SIGKILL');
    await gw.close();
  }
}
