import { defineEnv } from '@docfleet/config';
import { createPrismaClient } from '@docfleet/db';
import { createLogger } from '@docfleet/logger';
import { QueueClient, createRedis } from '@docfleet/queue';
import {
  createJobMetrics,
  createMetricsRegistry,
  onShutdown,
  closeWorkerConnections,
  runService,
  startWorkerHealth,
} from '@docfleet/runtime';
import { initTelemetry } from '@docfleet/telemetry';
import { pruneWebhookEvents } from '@docfleet/webhooks';
import { webhookWorkerEnv } from './config';
import { DeliveryLoop } from './delivery-loop';
import { startRelay } from './relay-loop';
import { attemptMetrics, startWebhookWorker } from './worker';

// Composition root of the webhook worker: relays the outbox, runs the delivery loop, and takes
// doorbells from the 'webhook' queue (one at a time: a process holds one while its loop drains,
// so the next doorbell goes to a process with room, and waiting doorbells mean a backlog).
async function main() {
  const telemetry = initTelemetry('webhook-worker');
  const env = defineEnv(webhookWorkerEnv);
  const logger = createLogger('webhook-worker', env.LOG_LEVEL);
  const db = createPrismaClient(env.DATABASE_URL, { poolMax: Math.max(env.DB_POOL_MAX, 4) });
  const redis = createRedis(env.REDIS_URL);
  const workerRedis = createRedis(env.REDIS_URL, { forWorker: true });
  const queues = new QueueClient(redis, env.QUEUE_PREFIX);
  const registry = createMetricsRegistry('webhook-worker');
  const loop = new DeliveryLoop({
    db,
    queues,
    logger,
    policy: { allowHttp: env.WEBHOOK_ALLOW_HTTP, allowPrivate: env.WEBHOOK_ALLOW_PRIVATE },
    urlCheckCacheMs: env.WEBHOOK_URL_CHECK_CACHE_MS,
    schedule: {
      baseMs: env.WEBHOOK_RETRY_BASE_MS,
      factor: env.WEBHOOK_RETRY_FACTOR,
      maxDelayMs: env.WEBHOOK_RETRY_MAX_DELAY_MS,
      windowMs: env.WEBHOOK_RETRY_WINDOW_MS,
      jitter: env.WEBHOOK_RETRY_JITTER,
    },
    timeoutMs: env.WEBHOOK_TIMEOUT_MS,
    maxResponseBytes: env.WEBHOOK_MAX_RESPONSE_BYTES,
    disableAfterMs: env.WEBHOOK_DISABLE_AFTER_MS,
    concurrency: env.WEBHOOK_CONCURRENCY,
    pollMs: env.WEBHOOK_SWEEP_INTERVAL_MS,
    onAttempt: attemptMetrics(registry),
  });
  const worker = startWebhookWorker(loop, logger, {
    connection: workerRedis,
    prefix: env.QUEUE_PREFIX,
    metrics: createJobMetrics(registry),
    lockDurationMs: env.WEBHOOK_JOB_LOCK_MS,
  });
  const relay = await startRelay({
    db,
    databaseUrl: env.DATABASE_URL,
    queues,
    redis,
    prefix: env.QUEUE_PREFIX,
    logger,
    intervalMs: env.WEBHOOK_RELAY_INTERVAL_MS,
    onDeliveries: () => loop.kick(),
    doorbellEvery: env.WEBHOOK_CONCURRENCY,
  });
  // Retention: expired events and their finished deliveries go in bounded batches; any worker may
  // run it (SKIP LOCKED keeps two from touching the same rows).
  const prune = () =>
    pruneWebhookEvents(db, { retentionHours: env.WEBHOOK_EVENT_RETENTION_HOURS })
      .then((n) => n.events && logger.info(n, 'expired webhook events pruned'))
      .catch((err) => logger.warn({ err }, 'webhook event pruning failed; the next run retries'));
  const pruneTimer = setInterval(() => void prune(), env.WEBHOOK_PRUNE_INTERVAL_MS);
  pruneTimer.unref();
  void prune();
  const health = await startWorkerHealth({ port: env.HEALTH_PORT, registry, db, redis });
  logger.info({ health_port: health.port, concurrency: env.WEBHOOK_CONCURRENCY }, 'webhook worker started');

  // SIGTERM: stop relaying and taking jobs; attempts in flight finish and are recorded.
  onShutdown(
    async () => {
      clearInterval(pruneTimer);
      await relay.stop();
      await loop.stop();
      await worker.close();
      await closeWorkerConnections({ health, queues, redis: [redis, workerRedis], db, telemetry });
    },
    30_000,
    (m) => logger.info(m),
  );
}

runService('webhook-worker', main);
