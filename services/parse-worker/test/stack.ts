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
  close(): Promise<void>;
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
    async close() {
      for (const w of workers) await w.close(0).catch(() => undefined);
      await workerRedis.quit().catch(() => undefined);
      await gw.close();
    },
  };
  if (o.worker !== false) stack.worker = stack.startWorker();
  return stack;
}
