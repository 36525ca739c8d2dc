// Test stack: the real gateway as a process (libs/testing spawnGateway, over a fresh database; it
// wires auto_parse itself, as `pnpm start` runs it), and the real parse worker in this process on
// the same database, storage and queue prefix. Clients talk to it through libs/sdk.
import { DocfleetClient } from '@docfleet/sdk';
import { createLogger } from '@docfleet/logger';
import { createRedis } from '@docfleet/queue';
import { spawnGateway, type GatewayProcess } from '@docfleet/testing';
import type { WorkerDeps } from '../src/deps';
import { startParseWorker, type ParseWorkerOptions, type RunningParseWorker } from '../src/worker';

export { CORPUS, corpus, creditInvariants } from '@docfleet/testing';

export interface Stack {
  gw: GatewayProcess;
  worker?: RunningParseWorker;
  workerDeps: WorkerDeps;
  startWorker(o?: Partial<ParseWorkerOptions>): RunningParseWorker;
  client(key: string): DocfleetClient;
  /** Uploads `data` into the knowledge base, parses it with `options` and waits for the job's end. */
  parseUpload(
    key: string,
    kbId: string,
    file: { name: string; data: Buffer },
    options?: Record<string, unknown>,
    o?: { timeoutMs?: number },
  ): Promise<ParsedUpload>;
  close(): Promise<void>;
}

export interface ParsedUpload {
  fileId: string;
  job: Awaited<ReturnType<DocfleetClient['waitForJob']>>;
  events: Awaited<ReturnType<DocfleetClient['files']['jobEvents']>>['events'];
  /** Credits the dispatch reserved. */
  reserved: number;
}

export async function startStack(
  env: Record<string, string> = {},
  o: { worker?: boolean; maxPages?: number; workerEnv?: Omit<WorkerDeps['env'], 'MAX_PAGES'> } = {},
): Promise<Stack> {
  const gw = await spawnGateway({ env });
  const workerRedis = createRedis(gw.deps.env.REDIS_URL, { forWorker: true });
  const workerDeps: WorkerDeps = {
    env: { MAX_PAGES: o.maxPages ?? gw.deps.env.MAX_PAGES, ...o.workerEnv },
    db: gw.db,
    storage: gw.deps.storage,
    queues: gw.deps.queues,
    logger: createLogger('parse-worker-test', process.env.TEST_LOG_LEVEL ?? 'silent'),
    workerId: 'test-worker',
    handBack: { requested: false },
  };
  const workers: RunningParseWorker[] = [];
  const stack: Stack = {
    gw,
    workerDeps,
    startWorker(opts = {}) {
      const w = startParseWorker(workerDeps, {
        connection: workerRedis,
        prefix: gw.deps.env.QUEUE_PREFIX,
        lockMs: 30_000,
        reapIntervalMs: 0,
        ...opts,
      });
      workers.push(w);
      return w;
    },
    client(key: string) {
      return new DocfleetClient({
        baseUrl: gw.url,
        apiKey: key,
        polling: { initialIntervalMs: 100, maxIntervalMs: 250, factor: 1.2, timeoutMs: 120_000 },
      });
    },
    async parseUpload(key, kbId, file, options = {}, o = {}) {
      const up = await gw.upload(key, { knowledge_base_id: kbId }, file);
      if (up.status !== 201) throw new Error(`upload ${file.name}: ${up.status} ${JSON.stringify(up.body)}`);
      const r = await gw.req('POST', `/v1/files/${up.body.file.id}/parse`, { key, body: { options } });
      if (r.status !== 202) throw new Error(`parse ${file.name}: ${r.status} ${JSON.stringify(r.body)}`);
      const c = stack.client(key);
      const job = await c.waitForJob(up.body.file.id, r.body.job.job_id, o);
      const events = (await c.files.jobEvents(up.body.file.id, job.job_id)).events;
      return { fileId: up.body.file.id, job, events, reserved: r.body.credit_reservation.amount_credits };
    },
    async close() {
      for (const w of workers) await w.close(0).catch(() => undefined);
      await workerRedis.quit().catch(() => undefined);
      await gw.close();
    },
  };
  if (o.worker !== false) stack.worker = stack.startWorker();
  return stack;
}
