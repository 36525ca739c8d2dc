// Overhead of a queued extraction run end to end: POST /v1/extract/runs → 202 → 'workflow' queue →
// workflow worker (evidence from the parse bundle, the cancel checkpoint, one model call, result
// tree, terminal write with its ledger row) → completed operation observed with
// GET /v1/operations/{id} (polled every 5 ms). The model answers at once (a local OpenAI-compatible
// wire server, through the real provider client), so what is measured is the service around the
// model; the gateway and the workers run as their own processes, as deployed (libs/testing
// startFleet), so no provider can be handed to the worker in process. Baseline: a bare enqueue →
// worker → done round trip on the same Redis with a handler that does nothing.
// Target (issue 5): p50 under 150 ms.
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createRedis, createWorker, QueueClient } from '../libs/queue/src';
import { startFakeOpenAiServer } from '../libs/models/src/testing';
import { corpus, startFleet } from '../libs/testing/src';
import { benchClient, ensureTemplate, percentile, round, withSlowdown, type Row } from './lib';

export const name = 'extract';

const SAMPLES = 60;
const WARMUP = 5;
const FIELDS = {
  title: 'Invoice',
  fields: [
    { name: 'invoice_number', type: 'string' },
    { name: 'total', type: 'number' },
  ],
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function row(label: string, latencies: number[], note: string, baseline = false): Row {
  const p50 = percentile(latencies, 50);
  return {
    case: label,
    ...(baseline ? { baseline } : {}),
    throughput: round(1000 / p50),
    unit: 'runs/s (1 at a time)',
    p50_ms: round(p50),
    p99_ms: round(percentile(latencies, 99)),
    samples: latencies.length,
    note,
  };
}

async function bareRoundTrip(redisUrl: string): Promise<number[]> {
  const prefix = `bx${randomUUID().slice(0, 6)}`;
  const conn = createRedis(redisUrl, { forWorker: true });
  const client = createRedis(redisUrl);
  const queues = new QueueClient(client, prefix);
  const waiting = new Map<string, () => void>();
  const done = async (p: { operationId?: string; jobId?: string }) =>
    void waiting.get(p.operationId ?? p.jobId ?? '')?.();
  const worker = createWorker(
    'workflow',
    { 'operation.run': done, 'extract.file': done },
    { connection: conn, prefix, concurrency: 2 },
  );
  try {
    const out: number[] = [];
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      const id = randomUUID();
      const t0 = performance.now();
      const finished = new Promise<void>((r) => waiting.set(id, r));
      await queues.enqueue('operation.run', { operationId: id, orgId: id, attempt: 1 });
      await finished;
      if (i >= WARMUP) out.push(performance.now() - t0);
    }
    return out;
  } finally {
    await worker.close();
    await queues.close();
    await Promise.all([conn.quit(), client.quit()]);
  }
}

export async function run(): Promise<Row[]> {
  await ensureTemplate();
  const fake = await startFakeOpenAiServer({
    models: ['instant'],
    respond: () => ({ json: { jsonResult: { invoice_number: 'INV-1', total: 1 }, citations: [], warnings: [] } }),
  });
  // The gateway, the parse worker and the workflow worker as processes (libs/testing), one deployment's
  // model environment for all three.
  const s = await startFleet({
    env: {
      OPENAI_BASE_URL: `${fake.url}/v1`,
      OPENAI_MODELS: 'instant',
      MODEL_DEFAULT: 'instant',
      MODEL_MAX_RETRIES: '0',
    },
    workers: ['parse-worker', 'workflow-worker'],
  });
  try {
    const org = await s.createOrg({ credits: 10_000 });
    const c = benchClient(s.url, org.key);
    const kb = (await c.knowledgeBases.create({ name: 'bench' })).knowledge_base.id;
    const fileId = (
      await c.files.upload(corpus('f_forms_invoices/invoice2data/AzureInterior.pdf'), { knowledgeBaseId: kb })
    ).file.id;
    await c.waitForJob(fileId, (await c.files.parse(fileId)).job.job_id);

    const endToEnd = async (modelId?: string) => {
      const out: number[] = [];
      for (let i = 0; i < SAMPLES + WARMUP; i++) {
        const t0 = performance.now();
        const r = await s.gw.req('POST', '/v1/extract/runs', {
          key: org.key,
          body: {
            file_id: fileId,
            schema: FIELDS,
            idempotency_key: `bench-${randomUUID()}`,
            ...(modelId ? { model_id: modelId } : {}),
          },
        });
        if (r.status !== 202) throw new Error(`POST /v1/extract/runs: ${r.status} ${JSON.stringify(r.body)}`);
        for (;;) {
          const op = await s.gw.req('GET', `/v1/operations/${r.body.operation_id}`, { key: org.key });
          if (op.body.status === 'completed') break;
          if (op.body.status === 'failed' || op.body.status === 'cancelled')
            throw new Error(`operation ${op.body.status}: ${op.body.error}`);
          await sleep(5);
        }
        if (i >= WARMUP) out.push(performance.now() - t0);
      }
      return out;
    };

    const base = await bareRoundTrip(s.gw.deps.env.REDIS_URL);
    const wire = await endToEnd();
    const local = await endToEnd('docfleet-local');
    return withSlowdown([
      row('enqueue → worker → done (no-op handler)', base, 'bare BullMQ round trip on the same Redis', true),
      row(
        'extraction run, OpenAI wire server',
        wire,
        'POST /v1/extract/runs → worker → GET shows completed; the OpenAI-compatible provider client and a local wire server answering at once; target p50 < 150 ms',
      ),
      row(
        'extraction run, docfleet-local',
        local,
        'same, with the built-in offline model doing the extraction (1-page invoice)',
      ),
    ]);
  } finally {
    await s.close();
    await fake.close();
  }
}
