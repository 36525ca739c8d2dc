import cluster from 'node:cluster';
import { createServer } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { defineEnv, gatewayEnv } from '@docfleet/config';
import { createPrismaClient } from '@docfleet/db';
import { createLogger } from '@docfleet/logger';
import { QueueClient, createRedis } from '@docfleet/queue';
import { ModelRegistry, readModelConfig } from '@docfleet/models';
import { createStorage } from '@docfleet/storage';
import { onShutdown, runService } from '@docfleet/runtime';
import { initTelemetry } from '@docfleet/telemetry';
import { buildApp } from './app';
import { runPrimary } from './cluster';
import type { Deps } from './deps';

// Composition root: config, logger, database, queues, storage; then listen, and drain on SIGTERM.
async function main() {
  // Prisma 7's query compiler is WebAssembly, compiled at the first query; V8 then recompiles its hot
  // functions with TurboFan and keeps both: +110 MiB RSS at the first authenticated request, most
  // of the 140 MiB above start-up that put the gateway over 300 MiB (issue 17). Baseline (Liftoff)
  // code only: +60 MiB, peak 270 vs 305-343 MiB in the same probe, and no slower query compilation
  // measured (docs/benchmarks.md, issue 17). Must run before the first query.
  setFlagsFromString('--liftoff-only');
  const env = defineEnv(gatewayEnv);
  const logger = createLogger('gateway', env.LOG_LEVEL);
  // GATEWAY_PROCESSES > 1: this process only supervises that many gateways sharing the port (cluster.ts).
  if (env.GATEWAY_PROCESSES > 1 && cluster.isPrimary) return runPrimary({ processes: env.GATEWAY_PROCESSES, logger });
  const telemetry = initTelemetry('gateway');
  const redis = createRedis(env.REDIS_URL);
  const deps: Deps = {
    env,
    logger,
    db: createPrismaClient(env.DATABASE_URL, { poolMax: env.DB_POOL_MAX }),
    storage: createStorage(env.DATA_DIR),
    redis,
    queues: new QueueClient(redis, env.QUEUE_PREFIX),
    models: new ModelRegistry(readModelConfig(process.env)),
  };
  const { app, closeStreams } = buildApp(deps);
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  server.listen(env.PORT, env.HOST, () => logger.info({ port: env.PORT }, 'gateway listening'));

  // SIGTERM/SIGINT (or the supervisor gone): no new connections, finish in-flight requests, then close.
  onShutdown(async (signal) => {
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const closed = new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    // Event streams never finish on their own: end them (clients resume with Last-Event-ID).
    await closeStreams();
    await closed;
    await deps.queues.close().catch(() => undefined);
    await deps.redis.quit().catch(() => undefined);
    await deps.db.$disconnect().catch(() => undefined);
    await telemetry.shutdown();
  }, 25_000);
}

runService('gateway', main);
