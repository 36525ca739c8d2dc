import { createWorker, type createRedis, type Handlers, type WorkerOptions } from '@docfleet/queue';
import type { WorkerDeps } from './deps';
import { extractFileHandler } from './jobs/extract-file.handler';
import { runOperation } from './jobs/operation-run.handler';

type Redis = ReturnType<typeof createRedis>;
type Worker = ReturnType<typeof createWorker>;

export interface WorkflowHandlers {
  handlers: Handlers<'workflow'>;
  /** Aborts model calls in flight (shutdown). */
  abort(): void;
}

export function createWorkflowHandlers(
  deps: WorkerDeps,
  extra: { extractFile: Handlers<'workflow'>['extract.file'] },
): WorkflowHandlers {
  const controller = new AbortController();
  return {
    handlers: {
      'operation.run': (payload) => runOperation(deps, payload, controller.signal),
      'extract.file': extra.extractFile,
    },
    abort: () => controller.abort(),
  };
}

export interface WorkflowWorkerOptions {
  connection: Redis;
  prefix: string;
  concurrency?: number;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  metrics?: WorkerOptions['metrics'];
}

export interface RunningWorkflowWorker {
  worker: Worker;
  /** Stops taking jobs; after graceMs, model calls in flight are aborted and their jobs handed back. */
  close(graceMs?: number): Promise<void>;
}

/** The 'workflow' queue consumer (main.ts and the tests start it the same way). */
export function startWorkflowWorker(deps: WorkerDeps, opts: WorkflowWorkerOptions): RunningWorkflowWorker {
  const { handlers, abort } = createWorkflowHandlers(deps, {
    extractFile: (payload, job) => extractFileHandler(deps, payload, job),
  });
  // A dead worker's job is found within lock (30 s) + stalled check (15 s) and run again.
  const worker = createWorker('workflow', handlers, {
    connection: opts.connection,
    prefix: opts.prefix,
    concurrency: opts.concurrency ?? 4,
    stalledIntervalMs: opts.stalledIntervalMs ?? 15_000,
    ...(opts.lockDurationMs ? { lockDurationMs: opts.lockDurationMs } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
  });
  worker.on('failed', (job, err) =>
    deps.logger.error({ job_id: job?.id, job: job?.name, attempts: job?.attemptsMade, err }, 'workflow job failed'),
  );
  worker.on('error', (err) => deps.logger.error({ err }, 'workflow worker error'));
  return {
    worker,
    async close(graceMs = 20_000) {
      const closing = worker.close();
      const timer = setTimeout(abort, graceMs);
      await closing;
      clearTimeout(timer);
    },
  };
}
