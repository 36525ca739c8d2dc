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
import { createStorage } from '@docfleet/storage';
import { indexWorkerEnv } from './config';
import { sweepUnindexed } from './index-sweep';
import { startIndexWorker } from './worker';

// Composition root of the index worker: consumes the 'index' queue, writes evidence_index_segments.
async function main() {
  const telemetry = initTelemetry('index-worker');
  const env = defineEnv(indexWorkerEnv);
  const logger = createLogger('index-worker', env.LOG_LEVEL);
  // Each job in flight holds one connection for its transaction; one more serves health checks.
  const db = createPrismaClient(env.DATABASE_URL, { poolMax: Math.max(env.DB_POOL_MAX, env.INDEX_CONCURRENCY + 1) });
  const redis = createRedis(env.REDIS_URL);
  const workerRedis = createRedis(env.REDIS_URL, { forWorker: true });
  const registry = createMetricsRegistry('index-worker');
  const worker = startIndexWorker(
    {
      db,
      logger,
      registry,
      storage: createStorage(env.DATA_DIR),
      batchRows: env.INDEX_BATCH_ROWS,
      txTimeoutMs: env.INDEX_TX_TIMEOUT_MS,
    },
    {
      connection: workerRedis,
      prefix: env.QUEUE_PREFIX,
      metrics: createJobMetrics(registry),
      concurrency: env.INDEX_CONCURRENCY,
    },
  );

  const health = await startWorkerHealth({ port: env.HEALTH_PORT, registry, db, redis });
  logger.info({ health_port: health.port, concurrency: env.INDEX_CONCURRENCY }, 'index worker started');

  const queues = new QueueClient(redis, env.QUEUE_PREFIX);
  const sweep = () =>
    sweepUnindexed({ db, queues, logger }, { graceMs: env.WORKER_LOST_SECONDS * 1000, windowMs: 3600_000 }).catch(
      (err) => logger.warn({ err }, 'index sweep failed'),
    );
  const sweeper = setInterval(sweep, env.INDEX_SWEEP_INTERVAL_SECONDS * 1000);
  sweeper.unref();

  // SIGTERM: stop taking jobs and let the ones in flight commit (worker.close waits for them).
  onShutdown(
    async () => {
      clearInterval(sweeper);
      await worker.close();
      await closeWorkerConnections({ health, queues, redis: [redis, workerRedis], db, telemetry });
    },
    60_000,
    (m) => logger.info(m),
  );
}

runService('index-worker', main);
