// Queue throughput: no-op jobs through our QueueClient.enqueue → createWorker → completion,
// beside raw BullMQ Queue.add → Worker on the same Redis in the same run, with the same job
// options (attempts, backoff, removeOnComplete) and concurrency. Ours adds: zod validation on both
// sides, a PRODUCER and a CONSUMER span (no-ops without an SDK), trace context in the payload,
// and the job metrics (a prom-client histogram and counter per run).
// Phase 1 alternates raw and ours with tracing off; phase 2 starts the OpenTelemetry SDK (spans
// exported over OTLP/HTTP to a local sink that discards them) and alternates raw and ours again,
// so each of our rows is compared with raw rounds measured alongside it.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
// The very BullMQ copy libs/queue uses (the repository root does not depend on bullmq).
import { Queue, Worker, type Job } from '../libs/queue/node_modules/bullmq';
import { JOBS, QueueClient, createRedis, createWorker } from '../libs/queue/src';
import { createJobMetrics, createMetricsRegistry } from '../libs/runtime/src';
import { initTelemetry } from '../libs/telemetry/src';
import { percentile, round, type Row } from './lib';

export const name = 'queue';

const JOBS_PER_ROUND = Number(process.env.BENCH_QUEUE_JOBS ?? 2000);
const ROUNDS = Number(process.env.BENCH_QUEUE_ROUNDS ?? 3);
/** Producers enqueueing at once, and the worker's concurrency. */
const CONCURRENCY = Number(process.env.BENCH_QUEUE_CONCURRENCY ?? 16);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const JOB = 'index.remove-file' as const;
const DEF = JOBS[JOB];

interface RoundResult {
  seconds: number;
  latencies: number[];
}

/**
 * One round: `JOBS_PER_ROUND` jobs enqueued by CONCURRENCY producers while the worker drains them.
 * Time runs from the first enqueue to the last completion; a job's latency is enqueue call → its
 * `completed` event.
 */
async function round_(add: (i: number) => Promise<string | undefined>, worker: Worker): Promise<RoundResult> {
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  let done!: () => void;
  const finished = new Promise<void>((r) => (done = r));
  const onCompleted = (job: Job) => {
    const t = sent.get(job.id!);
    latencies.push(performance.now() - (t ?? performance.now()));
    if (latencies.length === JOBS_PER_ROUND) done();
  };
  worker.on('completed', onCompleted);
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < JOBS_PER_ROUND) {
        const i = next++;
        const start = performance.now();
        const id = await add(i);
        // A job may complete before add() returns; its latency is then measured from t0 (rare, tiny).
        if (id && !sent.has(id)) sent.set(id, start);
      }
    }),
  );
  await finished;
  worker.off('completed', onCompleted);
  return { seconds: (performance.now() - t0) / 1000, latencies };
}

function row(label: string, results: RoundResult[], baseline: RoundResult[] | null, note?: string): Row {
  const seconds = results.reduce((a, r) => a + r.seconds, 0);
  const lat = results.flatMap((r) => r.latencies);
  const throughput = (JOBS_PER_ROUND * results.length) / seconds;
  const base = baseline ? (JOBS_PER_ROUND * baseline.length) / baseline.reduce((a, r) => a + r.seconds, 0) : throughput;
  return {
    case: label,
    baseline: baseline === null,
    throughput: round(throughput, 0),
    unit: 'jobs/s',
    p50_ms: round(percentile(lat, 50), 2),
    p99_ms: round(percentile(lat, 99), 2),
    slowdown: round(base / throughput),
    samples: lat.length,
    note,
    extra: { round_seconds: results.map((r) => round(r.seconds, 3)) },
  };
}

export async function run(): Promise<Row[]> {
  const producer = createRedis(REDIS_URL);
  const consumer = createRedis(REDIS_URL, { forWorker: true });
  const prefixes = { raw: `bq-raw-${randomUUID().slice(0, 6)}`, ours: `bq-ours-${randomUUID().slice(0, 6)}` };
  const opts = {
    attempts: DEF.attempts,
    backoff: { type: 'exponential', delay: DEF.backoffMs },
    removeOnComplete: { age: 3600, count: 1000 },
    removeOnFail: { age: 24 * 3600 },
  };

  const rawQueue = new Queue(DEF.queue, { connection: producer, prefix: prefixes.raw });
  const rawWorker = new Worker(DEF.queue, async () => undefined, {
    connection: consumer,
    prefix: prefixes.raw,
    concurrency: CONCURRENCY,
    lockDuration: 30_000,
  });
  const ours = new QueueClient(producer, prefixes.ours);
  const registry = createMetricsRegistry('bench');
  const oursWorker = createWorker(
    'index',
    { 'index.file-version': async () => undefined, 'index.remove-file': async () => undefined },
    {
      connection: consumer,
      prefix: prefixes.ours,
      concurrency: CONCURRENCY,
      metrics: createJobMetrics(registry),
    },
  );
  const payload = () => ({ orgId: randomUUID(), fileId: randomUUID() });
  const raw = () => round_(async () => (await rawQueue.add(JOB, payload(), opts)).id, rawWorker);
  const our = () => round_(() => ours.enqueue(JOB, payload()), oursWorker);

  // A sink for the SDK's OTLP/HTTP exports in phase 2 (answers 200, keeps nothing).
  let received = 0;
  const sink = createServer((req, res) =>
    req
      .on('data', () => undefined)
      .on('end', () => {
        received++;
        res.end('{}');
      }),
  );
  await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
  try {
    await raw();
    await our(); // warm-up: connections, scripts loaded into Redis, JIT
    const r = {
      raw1: [] as RoundResult[],
      ours: [] as RoundResult[],
      raw2: [] as RoundResult[],
      traced: [] as RoundResult[],
    };
    for (let i = 0; i < ROUNDS; i++) {
      process.stderr.write(`queue bench: round ${i + 1}/${ROUNDS} (tracing off)\n`);
      r.raw1.push(await raw());
      r.ours.push(await our());
    }
    const saved = process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
    const telemetry = initTelemetry('bench');
    if (saved === undefined) delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    else process.env.OTEL_EXPORTER_OTLP_ENDPOINT = saved;
    for (let i = 0; i < ROUNDS; i++) {
      process.stderr.write(`queue bench: round ${i + 1}/${ROUNDS} (tracing on)\n`);
      r.raw2.push(await raw());
      r.traced.push(await our());
    }
    await telemetry.shutdown();
    const note = `${JOBS_PER_ROUND} jobs × ${ROUNDS} rounds, ${CONCURRENCY} producers, worker concurrency ${CONCURRENCY}`;
    return [
      row('raw BullMQ Queue.add → Worker (rounds beside "ours, tracing off")', r.raw1, null, note),
      row('ours: QueueClient.enqueue → createWorker + job metrics, tracing off', r.ours, r.raw1),
      {
        ...row('raw BullMQ (rounds beside "ours, tracing on")', r.raw2, r.raw1),
        note: 'the baseline again, in phase 2',
      },
      row(
        'ours, OTel SDK on (2 spans per job, OTLP/HTTP to a local sink)',
        r.traced,
        r.raw2,
        `slowdown against the phase-2 raw rounds; ${received} OTLP exports received`,
      ),
    ];
  } finally {
    await Promise.all([rawWorker.close(), oursWorker.close()]);
    await Promise.all([rawQueue.close(), ours.close()]);
    for (const p of Object.values(prefixes)) {
      const keys = await producer.keys(`${p}:*`);
      if (keys.length) await producer.del(...keys);
    }
    await Promise.all([producer.quit(), consumer.quit()]);
    sink.close();
  }
}
