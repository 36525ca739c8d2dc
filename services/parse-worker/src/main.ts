// Composition root of the parse worker: config, logger, database, storage, queues; then consume
// queue 'parse' and serve /healthz, /readyz and /metrics on HEALTH_PORT (libs/runtime). SIGTERM
// stops taking jobs and lets the current one finish; after PARSE_GRACE_SECONDS it is handed back.
import { hostname } from 'node:os';
import { observeCredits } from '@docfleet/billing';
import { defineEnv } from '@docfleet/config';
import { createPrismaClient } from '@docfleet/db';
import { onJobProgress, publishJobProgressTo } from '@docfleet/jobs';
import { createLogger } from '@docfleet/logger';
import { QueueClient, createRedis } from '@docfleet/queue';
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
import { removeDeadScratch } from '@docfleet/pdf';
import { initTelemetry } from '@docfleet/telemetry';
import { parseWorkerEnv } from './config';
import type { WorkerDeps } from './deps';
import { workerConnectionName } from './lost-shards';
import { createParseMetrics } from './parse-metrics';
import { startParseWorker } from './worker';

async function main() {
  const telemetry = initTelemetry('parse-worker');
  const env = defineEnv(parseWorkerEnv);
  // Tesseract's OpenMP threads fight each other (and the other services) on a busy machine.
  process.env.OMP_THREAD_LIMIT ??= '1';
  const logger = createLogger('parse-worker', env.LOG_LEVEL);
  const workerId = `${hostname()}:${process.pid}`;
  // Named so the other workers see this process alive (lost-shards.ts): the connection dies with it.
  const redis = createRedis(env.REDIS_URL, { name: workerConnectionName(workerId) });
  const workerRedis = createRedis(env.REDIS_URL, { forWorker: true });
  // Progress writes go out on Redis too, so the event stream of any gateway replica carries them.
  onJobProgress(publishJobProgressTo(redis, env.QUEUE_PREFIX));
  const registry = createMetricsRegistry('parse-worker');
  observeCredits(createCreditMetrics(registry));
  const deps: WorkerDeps = {
    env,
    logger,
    db: createPrismaClient(env.DATABASE_URL, { poolMax: env.DB_POOL_MAX }),
    storage: createStorage(env.DATA_DIR),
    queues: new QueueClient(redis, env.QUEUE_PREFIX),
    workerId,
    handBack: { requested: false },
    pageImages: env.PARSE_PAGE_IMAGES,
    metrics: createParseMetrics(registry),
    heartbeatMs: env.WORKER_HEARTBEAT_SECONDS * 1000,
  };
  // A worker killed mid-parse leaves its scratch folders behind: remove those of dead processes.
  const leftovers = await removeDeadScratch();
  if (leftovers.length)
    logger.warn({ removed: leftovers }, 'removed scratch folders of parse workers that died mid-parse');
  const running = startParseWorker(deps, {
    connection: workerRedis,
    prefix: env.QUEUE_PREFIX,
    concurrency: env.PARSE_CONCURRENCY,
    lockMs: env.PARSE_LOCK_SECONDS * 1000,
    stalledIntervalMs: env.PARSE_STALLED_INTERVAL_SECONDS * 1000,
    maxStalledCount: env.PARSE_MAX_STALLED,
    reapIntervalMs: env.PARSE_REAP_INTERVAL_SECONDS * 1000,
    lostMs: env.WORKER_LOST_SECONDS * 1000,
    lostShardCheckMs: env.PARSE_LOST_SHARD_CHECK_SECONDS * 1000,
    lostShardQuietMs: env.PARSE_LOST_SHARD_QUIET_SECONDS * 1000,
    jobMetrics: createJobMetrics(registry),
  });
  const health = await startWorkerHealth({ port: env.HEALTH_PORT, registry, db: deps.db, redis });
  logger.info(
    { concurrency: env.PARSE_CONCURRENCY, health_port: health.port, worker: deps.workerId },
    'parse worker started',
  );

  // SIGTERM/SIGINT (or the supervisor gone): no new jobs; finish or hand back the current one. If closing
  // hangs (Redis unreachable) the grace ends it: the lock expires and another worker takes over.
  onShutdown(
    async (signal) => {
      logger.info(
        { signal, grace_seconds: env.PARSE_GRACE_SECONDS },
        'shutting down: no new jobs; finishing or handing back the current one',
      );
      try {
        await running.close(env.PARSE_GRACE_SECONDS * 1000);
      } catch (err) {
        logger.error({ err }, 'closing the worker failed');
      }
      await closeWorkerConnections({
        health,
        queues: deps.queues,
        redis: [redis, workerRedis],
        db: deps.db,
        telemetry,
      });
    },
    (env.PARSE_GRACE_SECONDS + 30) * 1000,
  );
}

runService('parse-worker', main);
