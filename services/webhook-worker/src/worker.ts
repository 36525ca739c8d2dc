import { createWorker, type Handlers, type WorkerOptions } from '@docfleet/queue';
import { Counter, Histogram, type Registry } from '@docfleet/runtime';
import type { Logger } from '@docfleet/logger';
import type { DeliveryLoop } from './delivery-loop';
import type { DeliveryLoopDeps } from './deps';
import { wakeHandler } from './jobs/webhook-wake.handler';

/** The handlers of the 'webhook' queue: both job names are doorbells for this process's delivery loop. */
export function createWebhookHandlers(loop: Pick<DeliveryLoop, 'drain'>): Handlers<'webhook'> {
  const wake = wakeHandler(loop);
  return { 'webhook.wake': wake, 'webhook.deliver': wake };
}

/** Attempt counts and durations, observed by the delivery loop (`onAttempt`) and exposed on /metrics. */
export function attemptMetrics(registry: Registry): NonNullable<DeliveryLoopDeps['onAttempt']> {
  const attempts = new Counter({
    name: 'docfleet_webhook_attempts_total',
    help: 'Webhook delivery attempts by outcome',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'docfleet_webhook_attempt_seconds',
    help: 'Duration of one webhook POST',
    buckets: [0.005, 0.02, 0.05, 0.1, 0.5, 1, 5, 10],
    registers: [registry],
  });
  return (a) => {
    attempts.inc({ outcome: a.ok ? 'ok' : 'failed' });
    seconds.observe(a.ms / 1000);
  };
}

export interface WebhookWorkerOptions {
  connection: WorkerOptions['connection'];
  prefix: string;
  /** Job duration and counts (libs/runtime createJobMetrics). */
  metrics?: WorkerOptions['metrics'];
  /** A doorbell whose worker died is handed to another after this long (WEBHOOK_JOB_LOCK_MS). */
  lockDurationMs: number;
}

/**
 * The 'webhook' queue consumer (main.ts starts it), one doorbell at a time: a process holds one while
 * its loop drains, so the next doorbell goes to a process with room.
 */
export function startWebhookWorker(
  loop: Pick<DeliveryLoop, 'drain'>,
  logger: Logger,
  o: WebhookWorkerOptions,
): ReturnType<typeof createWorker> {
  const worker = createWorker('webhook', createWebhookHandlers(loop), {
    connection: o.connection,
    prefix: o.prefix,
    metrics: o.metrics,
    concurrency: 1,
    lockDurationMs: o.lockDurationMs,
    stalledIntervalMs: Math.max(1000, Math.floor(o.lockDurationMs / 2)),
  });
  worker.on('failed', (job, err) => logger.error({ job_id: job?.id, err }, 'webhook job failed'));
  worker.on('error', (err) => logger.error({ err }, 'webhook worker error'));
  return worker;
}
