import { Queue, Worker, type Job, type JobsOptions } from 'bullmq';
import IORedis, { type Redis } from 'ioredis';
import { injectTraceContext } from '@docfleet/telemetry';
import { JOBS, jobsOfQueue, type JobName, type JobPayload, type JobsOfQueue, type QueueName } from './registry';

export * from './registry';
export { DelayedError, UnrecoverableError, type Job } from 'bullmq';

export function createRedis(url: string, opts: { forWorker?: boolean } = {}): Redis {
  // BullMQ workers block on Redis; they need maxRetriesPerRequest null.
  return new IORedis(url, { maxRetriesPerRequest: opts.forWorker ? null : 3, enableReadyCheck: true, lazyConnect: false });
}

/** Owns one BullMQ Queue per queue name; enqueue() validates the payload against the registry. */
export class QueueClient {
  private readonly queues = new Map<QueueName, Queue>();
  constructor(private readonly connection: Redis, readonly prefix: string) {}

  queue(name: QueueName): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: this.prefix });
      this.queues.set(name, q);
    }
    return q;
  }

  async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, opts: JobsOptions = {}): Promise<string | undefined> {
    const def = JOBS[name];
    const data = def.payload.parse({ ...payload, trace: (payload as { trace?: unknown }).trace ?? injectTraceContext() });
    const job = await this.queue(def.queue).add(name, data, {
      attempts: def.attempts,
      backoff: def.backoffMs ? { type: 'exponential', delay: def.backoffMs } : undefined,
      removeOnComplete: { age: 3600, count: 1000 },
      removeOnFail: { age: 24 * 3600 },
      ...opts,
    });
    return job.id;
  }

  async depth(name: QueueName): Promise<Record<string, number>> {
    return this.queue(name).getJobCounts('wait', 'active', 'delayed', 'failed', 'prioritized');
  }

  async close(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.close()));
  }
}

export type Handlers<Q extends QueueName> = { [N in JobsOfQueue<Q>]: (payload: JobPayload<N>, job: Job) => Promise<unknown> };

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
}

/**
 * A worker for one queue. It refuses to start when a job of its queue has no handler, and
 * validates every payload before the handler sees it.
 */
export function createWorker<Q extends QueueName>(queue: Q, handlers: Handlers<Q>, opts: WorkerOptions): Worker {
  const missing = jobsOfQueue(queue).filter((n) => typeof (handlers as Record<string, unknown>)[n] !== 'function');
  if (missing.length) throw new Error(`worker for queue '${queue}' has no handler for: ${missing.join(', ')}`);
  return new Worker(
    queue,
    async (job) => {
      const name = job.name as JobName;
      const def = JOBS[name];
      if (!def || def.queue !== queue) throw new Error(`unknown job '${job.name}' on queue '${queue}'`);
      const payload = def.payload.parse(job.data);
      const handler = (handlers as Record<string, (p: unknown, j: Job) => Promise<unknown>>)[name];
      return handler(payload, job);
    },
    {
      connection: opts.connection, prefix: opts.prefix, concurrency: opts.concurrency ?? 1, lockDuration: opts.lockDurationMs ?? 30000,
      ...(opts.stalledIntervalMs ? { stalledInterval: opts.stalledIntervalMs } : {}),
      ...(opts.maxStalledCount !== undefined ? { maxStalledCount: opts.maxStalledCount } : {}),
    },
  );
}
