import type { Logger } from '@docfleet/logger';
import { createWorker, type Handlers, type WorkerOptions } from '@docfleet/queue';
import { Counter, Histogram, type Registry } from 'prom-client';
import type { IndexDeps } from './deps';
import { indexFileVersionJob } from './jobs/index-file-version.handler';
import { removeFileJob } from './jobs/index-remove-file.handler';

/** The handlers of the 'index' queue (createWorker refuses to start if one is missing). */
export function createIndexHandlers(deps: IndexDeps & { logger: Logger; registry?: Registry }): Handlers<'index'> {
  const registers = deps.registry ? [deps.registry] : [];
  const segments = new Counter({
    name: 'docfleet_index_segments_written_total',
    help: 'Segments written to the search index',
    registers,
  });
  const jobs = new Counter({
    name: 'docfleet_index_jobs_total',
    help: 'Index jobs by name and outcome',
    labelNames: ['job', 'outcome'],
    registers,
  });
  const seconds = new Histogram({
    name: 'docfleet_index_job_seconds',
    help: 'Index job duration',
    labelNames: ['job'],
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120],
    registers,
  });

  return {
    'index.file-version': async (payload, job) => {
      const stop = seconds.startTimer({ job: job.name });
      const out = await indexFileVersionJob(deps, payload, job);
      stop();
      if (out.status === 'indexed') segments.inc(out.segments);
      jobs.inc({ job: job.name, outcome: out.status === 'skipped' ? `skipped:${out.reason}` : out.status });
      return out;
    },
    'index.remove-file': async (payload, job) => {
      const stop = seconds.startTimer({ job: job.name });
      const out = await removeFileJob(deps, payload, job.id);
      stop();
      jobs.inc({ job: job.name, outcome: out.status });
      return out;
    },
  };
}

export interface IndexWorkerOptions {
  connection: WorkerOptions['connection'];
  prefix: string;
  concurrency: number;
  /** Job duration and counts (libs/runtime createJobMetrics). */
  metrics?: WorkerOptions['metrics'];
}

/** The 'index' queue consumer (main.ts starts it; tests may run the handlers alone). */
export function startIndexWorker(
  deps: IndexDeps & { logger: Logger; registry?: Registry },
  o: IndexWorkerOptions,
): ReturnType<typeof createWorker> {
  const worker = createWorker('index', createIndexHandlers(deps), {
    connection: o.connection,
    prefix: o.prefix,
    metrics: o.metrics,
    concurrency: o.concurrency,
  });
  worker.on('failed', (job, err) =>
    deps.logger.error({ job_id: job?.id, job: job?.name, attempts: job?.attemptsMade, err }, 'index job failed'),
  );
  worker.on('error', (err) => deps.logger.error({ err }, 'index worker error'));
  return worker;
}
