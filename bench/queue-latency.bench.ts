// Dispatch latency: from an upload with auto_parse=true answering (the client has the response)
// to the parse worker stamping the job's started_at, over N uploads one at a time (each parse
// finishes before the next upload, so nothing waits behind another job). Beside it, in the same
// run, the floor the queue sets: raw BullMQ add() returning → processor called, and the same through
// our QueueClient.enqueue → createWorker, both in this process.
// started_at is PostgreSQL's now() and the response time this process's clock: one machine, one
// clock. A negative figure means the worker claimed the job before the response reached the client.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
// The very BullMQ copy libs/queue uses (the repository root does not depend on bullmq).
import { Queue, Worker } from '../libs/queue/node_modules/bullmq';
import { QueueClient, createRedis, createWorker } from '../libs/queue/src';
import { spawnGateway, spawnWorker, type WorkerProcess } from '../libs/testing/src';
import { ensureTemplate, percentile, round, type Row } from './lib';

export const name = 'queue-latency';

const UPLOADS = Number(process.env.BENCH_LATENCY_UPLOADS ?? 30);
const CORPUS = process.env.DOCFLEET_CORPUS ?? path.resolve(__dirname, '../../shared/corpus');
/** A one-page, 9 KB text-layer PDF: the parse itself stays short. */
const PDF = path.join(CORPUS, 'b_tables/icdar2013/us-005.pdf');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function latencyRow(label: string, ms: number[], baseline: boolean, base?: number, note?: string): Row {
  const p50 = percentile(ms, 50);
  const p95 = percentile(ms, 95);
  // "throughput" is 1 / p50 so that the slowdown column reads as p50 ÷ baseline p50.
  const throughput = 1000 / Math.max(p50, 0.001);
  return {
    case: label,
    baseline,
    throughput: round(throughput, 1),
    unit: '1/p50 s',
    p50_ms: round(p50, 2),
    p99_ms: round(percentile(ms, 99), 2),
    slowdown: base ? round(base / throughput) : 1,
    samples: ms.length,
    note: `p95 ${round(p95, 2)} ms${note ? `; ${note}` : ''}`,
    extra: {
      p95_ms: round(p95, 2),
      min_ms: round(Math.min(...ms), 2),
      max_ms: round(Math.max(...ms), 2),
      samples_ms: ms.map((x) => round(x, 2)),
    },
  };
}

/** add() resolved → processor entered, `n` times one after the other, through the given pair. */
async function pickup(
  n: number,
  add: () => Promise<unknown>,
  started: { next?: (t: number) => void },
): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const entered = new Promise<number>((r) => (started.next = r));
    await add();
    const tAdded = performance.now();
    out.push((await entered) - tAdded);
    await sleep(20);
  }
  return out;
}

export async function run(): Promise<Row[]> {
  // The gateway as `pnpm start` runs it (a process): auto_parse dispatches the parse job in the upload request.
  await ensureTemplate();
  const gw = await spawnGateway();
  const producer = createRedis(REDIS_URL);
  const consumer = createRedis(REDIS_URL, { forWorker: true });
  const prefixes = { raw: `bl-raw-${randomUUID().slice(0, 6)}`, ours: `bl-ours-${randomUUID().slice(0, 6)}` };
  const hook: { next?: (t: number) => void } = {};
  const enter = async () => void hook.next?.(performance.now());
  const rawQueue = new Queue('index', { connection: producer, prefix: prefixes.raw });
  const rawWorker = new Worker('index', enter, { connection: consumer, prefix: prefixes.raw });
  const ours = new QueueClient(producer, prefixes.ours);
  const oursWorker = createWorker(
    'index',
    { 'index.file-version': enter, 'index.remove-file': enter },
    { connection: consumer, prefix: prefixes.ours },
  );
  let worker: WorkerProcess | undefined;
  try {
    const { key } = await gw.createOrg({ credits: 1_000_000 });
    const kbId = (await gw.createKnowledgeBase(key, 'latency')).id as string;
    const data = await readFile(PDF);
    worker = await spawnWorker(gw, { LOG_LEVEL: 'warn', DB_POOL_MAX: '4' });

    /** One upload with auto_parse; returns started_at − response time (ms) once the parse finished. */
    async function uploadToStart(i: number): Promise<number> {
      const up = await gw.upload(
        key,
        { knowledge_base_id: kbId, auto_parse: 'true' },
        { name: `${i}-${randomUUID().slice(0, 6)}.pdf`, data, type: 'application/pdf' },
      );
      const answered = Date.now();
      if (up.status !== 201 || !up.body.parse_job) throw new Error(`upload: ${up.status} ${JSON.stringify(up.body)}`);
      for (;;) {
        const j = await gw.db.job.findUniqueOrThrow({ where: { id: up.body.parse_job.job_id } });
        if (j.status === 'completed') return j.started_at!.getTime() - answered;
        if (j.status === 'failed' || j.status === 'cancelled') throw new Error(`job ${j.status}: ${j.error}`);
        await sleep(10);
      }
    }

    for (let i = 0; i < 3; i++) await uploadToStart(-1 - i); // warm-up: the worker's first job loads pdf.js
    await pickup(5, () => rawQueue.add('index.remove-file', { orgId: randomUUID(), fileId: randomUUID() }), hook);
    await pickup(5, () => ours.enqueue('index.remove-file', { orgId: randomUUID(), fileId: randomUUID() }), hook);

    // Interleaved in blocks of 5 so background load moves every case alike.
    const ms = { raw: [] as number[], ours: [] as number[], upload: [] as number[] };
    for (let done = 0; done < UPLOADS; done += 5) {
      process.stderr.write(`queue-latency bench: uploads ${done + 1}-${Math.min(UPLOADS, done + 5)} of ${UPLOADS}\n`);
      const k = Math.min(5, UPLOADS - done);
      ms.raw.push(
        ...(await pickup(
          k,
          () => rawQueue.add('index.remove-file', { orgId: randomUUID(), fileId: randomUUID() }),
          hook,
        )),
      );
      ms.ours.push(
        ...(await pickup(
          k,
          () => ours.enqueue('index.remove-file', { orgId: randomUUID(), fileId: randomUUID() }),
          hook,
        )),
      );
      for (let i = 0; i < k; i++) ms.upload.push(await uploadToStart(done + i));
    }
    const raw = latencyRow('raw BullMQ: add() resolved → processor entered (this process)', ms.raw, true);
    return [
      raw,
      latencyRow('ours: QueueClient.enqueue resolved → createWorker handler entered', ms.ours, false, raw.throughput),
      latencyRow(
        'upload auto_parse response → jobs.started_at (parse-worker process)',
        ms.upload,
        false,
        raw.throughput,
        'claim = job row read + UPDATE … started_at, after BullMQ hands the job over',
      ),
    ];
  } finally {
    if (worker) {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
    await Promise.all([rawWorker.close(), oursWorker.close()]);
    await Promise.all([rawQueue.close(), ours.close()]);
    for (const p of Object.values(prefixes)) {
      const keys = await producer.keys(`${p}:*`);
      if (keys.length) await producer.del(...keys);
    }
    await Promise.all([producer.quit(), consumer.quit()]);
    await gw.close();
  }
}
