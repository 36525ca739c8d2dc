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
import { CORPUS, createTestDb, gatewayClient, testDbUrl, type TestDb } from '@docfleet/testing';
import { createPrismaClient } from '@docfleet/db';
import { migrate } from '@docfleet/db/src/migrate';
import { buildApp } from '../src/app';
import type { Deps } from '../src/deps';

// The gateway's own tests mount its app in this process (app.ts builds it without listening). Every
// other package starts the gateway as a process through libs/testing (spawnGateway, startFleet),
// which also holds the HTTP client and fixtures used here (gatewayClient).
export { CORPUS, gatewayClient };

/**
 * A real gateway on an ephemeral port, over its own fresh database, storage dir and Redis prefix.
 * With `keepDatabase` (benchmarks only), over that named database instead: created from the
 * migrations when missing, migrated when present, and kept on close, so a benchmark can
 * reuse data that takes minutes to build.
 */
export async function startGateway(envOverrides: Record<string, string> = {}, o: { keepDatabase?: string } = {}) {
  const tdb = o.keepDatabase ? await keptDb(o.keepDatabase) : await createTestDb();
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

/** A named database that outlives the gateway (see startGateway's `keepDatabase`): created and migrated by migrate(). */
async function keptDb(name: string): Promise<TestDb> {
  if (!/^[a-z][a-z0-9_]{2,62}$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const url = testDbUrl(name);
  await migrate(url);
  const db = createPrismaClient(url, { poolMax: 4 });
  return { url, db, drop: () => db.$disconnect() };
}
