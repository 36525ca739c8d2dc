import { observeCredits } from '@docfleet/billing';
import { defineEnv } from '@docfleet/config';
import { onJobProgress, publishJobProgressTo } from '@docfleet/jobs';
import { createPrismaClient } from '@docfleet/db';
import { createLogger } from '@docfleet/logger';
import { ModelRegistry, readModelConfig } from '@docfleet/models';
import { createRedis, QueueClient } from '@docfleet/queue';
import {
  createCreditMetrics,
  createJobMetrics,
  createMetricsRegistry,
  onShutdown,
  closeWorkerConnections,
  runService,
  startWorkerHealth,
} from '@docfleet/runtime';
import { createStorage } from '@docfleet/storage';
import { initTelemetry } from '@docfleet/telemetry';
import { workflowWorkerEnv } from './config';
import { startWorkflowWorker } from './worker';

// Composition root of the workflow worker: consumes the 'workflow' queue (operations of every
// model workflow, and file-path extraction jobs). Model configuration is read at start-up, so a
// bad provider setting fails here with one line rather than on the first job.
async function main() {
  const telemetry = initTelemetry('workflow-worker');
  const env = defineEnv(workflowWorkerEnv);
  const logger = createLogger('workflow-worker', env.LOG_LEVEL);
  const models = new ModelRegistry(readModelConfig(process.env));
  const db = createPrismaClient(env.DATABASE_URL, { poolMax: Math.max(env.DB_POOL_MAX, env.WORKFLOW_CONCURRENCY + 1) });
  const redis = createRedis(env.REDIS_URL);
  const workerRedis = createRedis(env.REDIS_URL, { forWorker: true });
  // Extraction jobs' stage moves go out on Redis too, so any gateway replica's event stream carries them.
  onJobProgress(publishJobProgressTo(redis, env.QUEUE_PREFIX));
  const registry = createMetricsRegistry('workflow-worker');
  // Refunds of failed and cancelled attempts are written here.
  observeCredits(createCreditMetrics(registry));
  const deps = {
    db,
    storage: createStorage(env.DATA_DIR),
    models,
    logger,
    queues: new QueueClient(redis, env.QUEUE_PREFIX),
    heartbeatMs: env.WORKER_HEARTBEAT_SECONDS * 1000,
  };
  const worker = startWorkflowWorker(deps, {
    connection: workerRedis,
    prefix: env.QUEUE_PREFIX,
    concurrency: env.WORKFLOW_CONCURRENCY,
    metrics: createJobMetrics(registry),
  });

  const health = await startWorkerHealth({ port: env.HEALTH_PORT, registry, db, redis });
  logger.info(
    {
      health_port: health.port,
      concurrency: env.WORKFLOW_CONCURRENCY,
      default_model: models.defaultModelId() ?? 'none',
    },
    'workflow worker started',
  );

  // SIGTERM: stop taking jobs; running attempts get the grace period, then their model calls are
  // aborted and the jobs handed back to the queue for another worker.
  onShutdown(
    async () => {
      await worker.close(20_000);
      await closeWorkerConnections({ health, queues: deps.queues, redis: [redis, workerRedis], db, telemetry });
    },
    30_000,
    (m) => logger.info(m),
  );
}

runService('workflow-worker', main);
