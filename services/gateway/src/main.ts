import { createServer } from 'node:http';
import { defineEnv, gatewayEnv } from '@docfleet/config';
import { createPrismaClient } from '@docfleet/db';
import { createLogger } from '@docfleet/logger';
import { QueueClient, createRedis } from '@docfleet/queue';
import { ModelRegistry, readModelConfig } from '@docfleet/models';
import { createStorage } from '@docfleet/storage';
import { initTelemetry } from '@docfleet/telemetry';
import { buildApp } from './app';
import { parseFileHooks } from './domain/parse/auto-parse';
import type { Deps } from './deps';

// Composition root: config, logger, database, queues, storage; then listen, and drain on SIGTERM.
async function main() {
  const telemetry = initTelemetry('gateway');
  const env = defineEnv(gatewayEnv);
  const logger = createLogger('gateway', env.LOG_LEVEL);
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
  const { app } = buildApp(deps, { fileHooks: parseFileHooks(deps) });
  const server = createServer(app);
  server.keepAliveTimeout = 65_000;
  server.listen(env.PORT, env.HOST, () => logger.info({ port: env.PORT }, 'gateway listening'));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const force = setTimeout(() => process.exit(1), 25_000).unref();
    server.close(async () => {
      await deps.queues.close().catch(() => undefined);
      await deps.redis.quit().catch(() => undefined);
      await deps.db.$disconnect().catch(() => undefined);
      await telemetry.shutdown();
      clearTimeout(force);
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((err) => {
  process.stderr.write(`gateway failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
