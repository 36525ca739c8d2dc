import { observeCredits } from '@docfleet/billing';
import { defineEnv } from '@docfleet/config';
import { createPrismaClient } from '@docfleet/db';
import { createLogger } from '@docfleet/logger';
import { QueueClient, createRedis, keepSchedules, schedulesOf } from '@docfleet/queue';
import {
  createCreditMetrics,
  createJobMetrics,
  createMetricsRegistry,
  onShutdown,
  closeWorkerConnections,
  runService,
  startWorkerHealth,
} from '@docfleet/runtime';
import { initTelemetry } from '@docfleet/telemetry';
import { operationJobId } from '@docfleet/workflows';
import { billingEnv } from './config';
import { startBillingWorker } from './worker';

// Composition root of the billing service: the ledger's background duties on the 'billing' queue,
// run on the schedules the queue registry declares (job schedulers in Redis: one instance runs each
// tick however many replicas exist).
async function main() {
  const telemetry = initTelemetry('billing');
  const env = defineEnv(billingEnv);
  const logger = createLogger('billing', env.LOG_LEVEL);
  const db = createPrismaClient(env.DATABASE_URL, { poolMax: env.DB_POOL_MAX });
  const redis = createRedis(env.REDIS_URL);
  const workerRedis = createRedis(env.REDIS_URL, { forWorker: true });
  const queues = new QueueClient(redis, env.QUEUE_PREFIX);
  const registry = createMetricsRegistry('billing');
  // The reaper's finalizeReservation reverses page charges: refunds are counted here.
  observeCredits(createCreditMetrics(registry));
  const worker = startBillingWorker(
    {
      db,
      logger,
      registry,
      hasLiveOperationJob: (id, attempt) => queues.isLive('workflow', operationJobId(id, attempt)),
      config: {
        runningStaleMs: env.REAPER_RUNNING_STALE_MINUTES * 60_000,
        queuedStaleMs: env.REAPER_QUEUED_STALE_HOURS * 3600_000,
        operationLostMs: env.WORKER_LOST_SECONDS * 1000,
      },
    },
    { connection: workerRedis, prefix: env.QUEUE_PREFIX, metrics: createJobMetrics(registry) },
  );

  const schedules = schedulesOf('billing', env);
  // Redis keeps nothing on disk in the quickstart: after a restart the schedules are re-created.
  const keeper = await keepSchedules(queues.queue('billing'), schedules, {
    connection: redis,
    checkEveryMs: env.BILLING_SCHEDULE_CHECK_SECONDS * 1000,
    onRestored: (names) =>
      logger.warn({ schedules: names }, 'billing schedules were missing from Redis and were re-created'),
    onError: (err) => logger.error({ err }, 'billing schedule check failed'),
  });

  const health = await startWorkerHealth({ port: env.HEALTH_PORT, registry, db, redis });
  const schedule = Object.fromEntries(schedules.map((s) => [s.name, s.everyMs / 1000]));
  logger.info({ health_port: health.port, schedule }, 'billing service started');

  onShutdown(
    async () => {
      keeper.stop();
      await worker.close();
      await closeWorkerConnections({ health, queues, redis: [redis, workerRedis], db, telemetry });
    },
    30_000,
    (m) => logger.info(m),
  );
}

runService('billing', main);
