import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { defineEnv, gatewayEnv } from '@docfleet/config';
import { createLogger } from '@docfleet/logger';
import { QueueClient, createRedis } from '@docfleet/queue';
import { createStorage } from '@docfleet/storage';
import { CORPUS, createTestDb, gatewayClient } from '@docfleet/testing';
import { buildApp } from '../src/app';
import type { Deps } from '../src/deps';

// The gateway's own tests mount its app in this process (app.ts builds it without listening). Every
// other package starts the gateway as a process through libs/testing (spawnGateway, startFleet),
// which also holds the HTTP client and fixtures used here (gatewayClient).
export { CORPUS, gatewayClient };

/** A real gateway on an ephemeral port, over its own fresh database, storage dir and Redis prefix. */
export async function startGateway(envOverrides: Record<string, string> = {}) {
  const tdb = await createTestDb();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-gw-'));
  const env = defineEnv(
    gatewayEnv,
    {
      ...process.env,
      DATABASE_URL: tdb.url,
      DATA_DIR: dataDir,
      QUEUE_PREFIX: `t${randomUUID().slice(0, 8)}`,
      LOG_LEVEL: 'silent',
      RATE_LIMIT_POINTS: '100000',
      ...envOverrides,
    },
    { exit: false },
  );
  const redis = createRedis(env.REDIS_URL);
  const deps: Deps = {
    env,
    db: tdb.db,
    storage: createStorage(dataDir),
    redis,
    queues: new QueueClient(redis, env.QUEUE_PREFIX),
    logger: createLogger('gateway-test', 'silent'),
  };
  const { app, closeStreams } = buildApp(deps);
  const server: Server = createServer(app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const client = gatewayClient(url, tdb.db);

  async function close() {
    const closed = new Promise<void>((r) => server.close(() => r()));
    await closeStreams(); // open event streams would hold server.close (and leave a Redis subscriber)
    await closed;
    await deps.queues.close();
    await redis.quit();
    await tdb.drop();
    await rm(dataDir, { recursive: true, force: true });
  }

  return { url, deps, db: tdb.db, dataDir, ...client, close };
}

export type Gateway = Awaited<ReturnType<typeof startGateway>>;
