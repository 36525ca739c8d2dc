import { performance } from 'node:perf_hooks';
import { Queue, UnrecoverableError, Worker, type Job, type JobsOptions } from 'bullmq';
import IORedis, { type Redis } from 'ioredis';
import {
  SpanKind,
  SpanStatusCode,
  injectTraceContext,
  tracer,
  withExtractedContext,
  withSpan,
} from '@docfleet/telemetry';
import { JOBS, jobsOfQueue, type JobName, type JobPayload, type JobsOfQueue, type QueueName } from './registry';

export * from './registry';
export { DelayedError, UnrecoverableError, type Job } from 'bullmq';
export type { Redis } from 'ioredis';

export function createRedis(url: string, opts: { forWorker?: boolean; name?: string } = {}): Redis {
  // BullMQ workers block on Redis; they need maxRetriesPerRequest null.
  return new IORedis(url, {
    maxRetriesPerRequest: opts.forWorker ? null : 3,
    enableReadyCheck: true,
    lazyConnect: false,
    // CLIENT SETNAME on every (re)connect: other processes see who is connected (CLIENT LIST).
    ...(opts.name ? { connectionName: opts.name } : {}),
  });
}

/** Owns one BullMQ Queue per queue name; enqueue() validates the payload against the registry. */
const LIVE_STATES = new Set(['waiting', 'active', 'delayed', 'prioritized', 'waiting-children']);

export class QueueClient {
  private readonly queues = new Map<QueueName, Queue>();
  constructor(
    private readonly connection: Redis,
    readonly prefix: string,
  ) {}

  queue(name: QueueName): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: this.prefix });
      this.queues.set(name, q);
    }
    return q;
  }

  /** True while a job of the queue waits, runs or is delayed: some worker may still run it. */
  async isLive(queue: QueueName, jobId: string): Promise<boolean> {
    const job = await this.queue(queue).getJob(jobId);
    return !!job && LIVE_STATES.has(await job.getState());
  }

  /**
   * Adds the job in a PRODUCER span (`send <job>`) and stores that span's context in the payload's
   * `trace` field, so the consumer's span continues the caller's trace (a payload that already
   * carries `trace` keeps it).
   */
  async enqueue<N extends JobName>(
    name: N,
    payload: JobPayload<N>,
    opts: JobsOptions = {},
  ): Promise<string | undefined> {
    const def = JOBS[name];
    return withSpan(
      `send ${name}`,
      {
        'messaging.system': 'bullmq',
        'messaging.operation.type': 'send',
        'messaging.destination.name': def.queue,
        'docfleet.job.name': name,
      },
      async (span) => {
        const data = def.payload.parse({
          ...payload,
          trace: (payload as { trace?: unknown }).trace ?? injectTraceContext(),
        });
        const job = await this.queue(def.queue).add(name, data, {
          attempts: def.attempts,
          backoff: def.backoffMs ? { type: 'exponential', delay: def.backoffMs } : undefined,
          removeOnComplete: { age: 3600, count: 1000 },
          removeOnFail: { age: 24 * 3600 },
          ...opts,
        });
        if (job.id) span.setAttribute('messaging.message.id', job.id);
        return job.id;
      },
      { kind: SpanKind.PRODUCER },
    );
  }

  async depth(name: QueueName): Promise<Record<string, number>> {
    return this.queue(name).getJobCounts('wait', 'active', 'delayed', 'failed', 'prioritized');
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}

export type Handlers<Q extends QueueName> = {
  [N in JobsOfQueue<Q>]: (payload: JobPayload<N>, job: Job) => Promise<unknown>;
};

export interface WorkerOptions {
  connection: Redis;
  prefix: string;
  concurrency?: number;
  /** Lock duration: a job whose worker died is handed to another worker after this long. */
  lockDurationMs?: number;
  /** How often expired locks are looked for (BullMQ default 30 s). */
  stalledIntervalMs?: number;
  /** Times a job may lose its worker before it is failed (BullMQ default 1). */
  maxStalledCount?: number;
  /** Told about every job the handler ran (libs/runtime `createJobMetrics(registry)` implements it). */
  metrics?: JobMetrics;
  /**
   * This worker's name: BullMQ stores it on each job it takes (`job.processedBy`), so another
   * process can tell whether an active job is held by a worker that is still alive.
   */
  name?: string;
}

/**
 * One handler run. `completed`: the handler returned (the domain job may still have ended failed:
 * the parse worker records such failures and returns); `failed`: it threw, `final` when BullMQ
 * will not try again; `delayed`: it handed the job back (DelayedError), not a failure.
 */
export interface JobObservation {
  queue: QueueName;
  job: string;
  outcome: 'completed' | 'failed' | 'delayed';
  final: boolean;
  seconds: number;
}

/** What createWorker reports to; kept structural so this library needs no metrics client. */
export interface JobMetrics {
  observe(o: JobObservation): void;
}

// Thrown by handlers to park the job, not failures (BullMQ's DelayedError, WaitingChildrenError, RateLimitError).
const PARKED = new Set(['DelayedError', 'WaitingChildrenError', 'RateLimitError']);

function classify(err: unknown, job: Job): Pick<JobObservation, 'outcome' | 'final'> {
  if (err instanceof Error && PARKED.has(err.name)) return { outcome: 'delayed', final: false };
  return {
    outcome: 'failed',
    final: err instanceof UnrecoverableError || job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
  };
}

const traceOf = (data: unknown): Record<string, string> | undefined => {
  const t = (data as { trace?: unknown } | null)?.trace;
  return t && typeof t === 'object' ? (t as Record<string, string>) : undefined;
};

/**
 * A worker for one queue. It refuses to start when a job of its queue has no handler, and
 * validates every payload before the handler sees it. Each run is a CONSUMER span
 * (`process <job>`) in the trace the enqueuer stored in the payload, and is reported to
 * `opts.metrics` with its duration and outcome.
 */
export function createWorker<Q extends QueueName>(queue: Q, handlers: Handlers<Q>, opts: WorkerOptions): Worker {
  const missing = jobsOfQueue(queue).filter((n) => typeof (handlers as Record<string, unknown>)[n] !== 'function');
  if (missing.length) throw new Error(`worker for queue '${queue}' has no handler for: ${missing.join(', ')}`);
  const run = async (job: Job) => {
    const name = job.name as JobName;
    const def = JOBS[name];
    if (!def || def.queue !== queue) throw new Error(`unknown job '${job.name}' on queue '${queue}'`);
    const payload = def.payload.parse(job.data);
    const handler = (handlers as Record<string, (p: unknown, j: Job) => Promise<unknown>>)[name];
    return handler(payload, job);
  };
  return new Worker(
    queue,
    (job) =>
      withExtractedContext(traceOf(job.data), () =>
        tracer().startActiveSpan(
          `process ${job.name}`,
          {
            kind: SpanKind.CONSUMER,
            attributes: {
              'messaging.system': 'bullmq',
              'messaging.operation.type': 'process',
              'messaging.destination.name': queue,
              'messaging.message.id': job.id ?? '',
              'docfleet.job.name': job.name,
              'docfleet.job.attempt': job.attemptsMade + 1,
            },
          },
          async (span) => {
            const t0 = performance.now();
            const observe = (o: Pick<JobObservation, 'outcome' | 'final'>) =>
              opts.metrics?.observe({ queue, job: job.name, ...o, seconds: (performance.now() - t0) / 1000 });
            try {
              const out = await run(job);
              observe({ outcome: 'completed', final: true });
              return out;
            } catch (err) {
              const o = classify(err, job);
              observe(o);
              span.setAttribute('docfleet.job.outcome', o.outcome);
              if (o.outcome === 'failed') {
                span.recordException(err as Error);
                span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
              }
              throw err;
            } finally {
              span.end();
            }
          },
        ),
      ),
    {
      connection: opts.connection,
      prefix: opts.prefix,
      concurrency: opts.concurrency ?? 1,
      lockDuration: opts.lockDurationMs ?? 30000,
      ...(opts.stalledIntervalMs ? { stalledInterval: opts.stalledIntervalMs } : {}),
      ...(opts.maxStalledCount !== undefined ? { maxStalledCount: opts.maxStalledCount } : {}),
      ...(opts.name ? { name: opts.name } : {}),
    },
  );
}

export interface Schedule {
  /** Scheduler id and job name (a job of the queue's registry). */
  name: JobName;
  everyMs: number;
}

export interface ScheduleKeeper {
  /** Re-creates every schedule missing from Redis; resolves to the names it had to re-create. */
  ensure(): Promise<JobName[]>;
  stop(): void;
}

/**
 * Keeps repeatable jobs scheduled however Redis loses them. Redis runs without persistence in the
 * quickstart (and may be replaced in a cluster), so a restart drops every job scheduler; the
 * queue's workers reconnect but nothing would ever schedule the duties again. The keeper upserts
 * each schedule now, re-checks whenever the connection becomes ready again, and checks every
 * `checkEveryMs` in case Redis was flushed or replaced without the connection dropping. Only a
 * missing scheduler is re-created, so its cadence is not disturbed by the checks.
 */
export async function keepSchedules(
  queue: Queue,
  schedules: Schedule[],
  opts: {
    connection: Redis;
    checkEveryMs: number;
    onRestored?: (names: JobName[]) => void;
    onError?: (err: unknown) => void;
  },
): Promise<ScheduleKeeper> {
  const upsert = (s: Schedule) => queue.upsertJobScheduler(s.name, { every: s.everyMs }, { name: s.name, data: {} });
  let running: Promise<JobName[]> | null = null;
  const ensure = (): Promise<JobName[]> => {
    running ??= (async () => {
      const restored: JobName[] = [];
      for (const s of schedules) {
        if (await queue.getJobScheduler(s.name)) continue;
        await upsert(s);
        restored.push(s.name);
      }
      if (restored.length) opts.onRestored?.(restored);
      return restored;
    })().finally(() => {
      running = null;
    });
    return running;
  };
  const check = () => void ensure().catch((err) => opts.onError?.(err));
  for (const s of schedules) await upsert(s);
  const timer = setInterval(check, opts.checkEveryMs);
  timer.unref();
  opts.connection.on('ready', check);
  return {
    ensure,
    stop: () => {
      clearInterval(timer);
      opts.connection.off('ready', check);
    },
  };
}
