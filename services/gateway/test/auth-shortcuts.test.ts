// The gateway's two per-request shortcuts (docs/operations.md): API key rows cached in each
// process for API_KEY_CACHE_TTL_SECONDS, and rate-limit tokens reserved from Redis in batches.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { createPrismaClient } from '@docfleet/db';
import { createLogger } from '@docfleet/logger';
import { QueueClient, createRedis } from '@docfleet/queue';
import { ROOT, waitUntil } from '@docfleet/testing';
import { buildApp } from '../src/app';
import type { Deps } from '../src/deps';
import { startGateway, type Gateway } from './harness';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const execFileP = promisify(execFile);

/** Starts a gateway with API_KEY_CACHE_TTL_SECONDS (read when the app is built). */
async function gatewayWithTtl(ttlSeconds: string, env: Record<string, string> = {}) {
  const before = process.env.API_KEY_CACHE_TTL_SECONDS;
  process.env.API_KEY_CACHE_TTL_SECONDS = ttlSeconds;
  try {
    return await startGateway(env);
  } finally {
    if (before === undefined) delete process.env.API_KEY_CACHE_TTL_SECONDS;
    else process.env.API_KEY_CACHE_TTL_SECONDS = before;
  }
}

/** A second replica of `gw`: same database, Redis and prefix, its own database client, Redis connection and caches. */
async function replicaOf(gw: Gateway) {
  const db = createPrismaClient(gw.deps.env.DATABASE_URL, { poolMax: 2 });
  const redis = createRedis(gw.deps.env.REDIS_URL);
  const deps: Deps = {
    ...gw.deps,
    db,
    redis,
    queues: new QueueClient(redis, gw.deps.env.QUEUE_PREFIX),
    logger: createLogger('replica', 'silent'),
  };
  const server: Server = createServer(buildApp(deps).app);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const get = async (p: string, key: string) => {
    const r = await fetch(url + p, { headers: { 'x-api-key': key } });
    return { status: r.status, body: await r.json().catch(() => null), headers: r.headers };
  };
  const close = async () => {
    await new Promise<void>((r) => server.close(() => r()));
    await deps.queues.close();
    await redis.quit();
    await db.$disconnect();
  };
  return { url, get, close, db };
}

describe('API key cache (default TTL, 5 s)', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await gatewayWithTtl('5');
  });
  afterAll(() => gw.close());

  it('rejects a key revoked through DELETE /v1/api-keys/{id} on the very next request', async () => {
    const { orgId } = await gw.createOrg();
    const admin = await gw.createSession(orgId, 'admin');
    const created = await gw.req('POST', '/v1/api-keys', { headers: admin.headers, body: { name: 'ci' } });
    const secret = created.body.secret as string;
    expect((await gw.req('GET', '/v1/knowledge-bases', { key: secret })).status).toBe(200); // now cached
    expect((await gw.req('DELETE', `/v1/api-keys/${created.body.api_key.id}`, { headers: admin.headers })).status).toBe(
      200,
    );
    const r = await gw.req('GET', '/v1/knowledge-bases', { key: secret });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('invalid_api_key');
  });

  it('keeps serving a cached key revoked behind its back until the TTL, but honours expiry exactly', async () => {
    // What the cache trades: a revocation that did not go through this process waits for the TTL.
    const a = await gw.createOrg();
    expect((await gw.req('GET', '/v1/knowledge-bases', { key: a.key })).status).toBe(200);
    await gw.db.apiKey.update({ where: { id: a.keyId }, data: { revoked_at: new Date() } });
    expect((await gw.req('GET', '/v1/knowledge-bases', { key: a.key })).status).toBe(200);
    // expires_at is checked against the cached row on every request
    const b = await gw.createOrg();
    await gw.db.apiKey.update({ where: { id: b.keyId }, data: { expires_at: new Date(Date.now() + 1200) } });
    expect((await gw.req('GET', '/v1/knowledge-bases', { key: b.key })).status).toBe(200);
    await sleep(1300);
    expect((await gw.req('GET', '/v1/knowledge-bases', { key: b.key })).status).toBe(401);
  });

  it('writes last_used_at once, not on every request', async () => {
    const { key, keyId } = await gw.createOrg();
    expect((await gw.db.apiKey.findUniqueOrThrow({ where: { id: keyId } })).last_used_at).toBeNull();
    expect((await gw.req('GET', '/v1/knowledge-bases', { key })).status).toBe(200);
    const first = await waitUntil(
      `last_used_at written for key ${keyId}`,
      async () => (await gw.db.apiKey.findUniqueOrThrow({ where: { id: keyId } })).last_used_at,
      { timeoutMs: 1000, intervalMs: 20 },
    );
    expect(first).toBeInstanceOf(Date);
    for (let i = 0; i < 5; i++) expect((await gw.req('GET', '/v1/knowledge-bases', { key })).status).toBe(200);
    await sleep(100);
    expect((await gw.db.apiKey.findUniqueOrThrow({ where: { id: keyId } })).last_used_at).toEqual(first);
  });
});

describe('API key cache (TTL 1 s) and the admin CLI', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await gatewayWithTtl('1');
  });
  afterAll(() => gw.close());

  it('picks up a revocation by the admin CLI (its own process and database connection) within the TTL', async () => {
    const { key, keyId } = await gw.createOrg();
    expect((await gw.req('GET', '/v1/knowledge-bases', { key })).status).toBe(200);
    // `pnpm docfleet admin revoke-key` as an operator runs it; the key stays in use (and cached) meanwhile.
    const revoke = execFileP(
      process.execPath,
      ['--import', 'tsx', 'services/cli/src/main.ts', 'admin', 'revoke-key', '--key-id', keyId, '--json'],
      { cwd: ROOT, env: { ...process.env, DATABASE_URL: gw.deps.env.DATABASE_URL } },
    );
    let revokedAt = 0;
    let rejectedAt = 0;
    const done = revoke.then(({ stdout }) => {
      revokedAt = Date.now(); // the revocation committed before the command printed and exited
      expect(JSON.parse(stdout).revoked_at).toEqual(expect.any(String));
    });
    while (!revokedAt) {
      const r = await gw.req('GET', '/v1/knowledge-bases', { key });
      if (r.status === 401) rejectedAt ||= Date.now();
      else expect(r.status).toBe(200);
      await Promise.race([sleep(50), done]);
    }
    await done;
    let lastStatus = 0;
    await waitUntil(
      `the gateway to refuse key ${keyId} after the admin CLI revoked it`,
      async () => {
        if (rejectedAt) return true;
        lastStatus = (await gw.req('GET', '/v1/knowledge-bases', { key })).status;
        if (lastStatus === 401) return (rejectedAt = Date.now());
        expect(lastStatus).toBe(200);
        return false;
      },
      { timeoutMs: Math.max(0, 5000 - (Date.now() - revokedAt)), detail: () => `last status: ${lastStatus}` },
    );
    // the row cached at the latest just before the revocation is stale one TTL later; 300 ms for a
    // request on a loaded machine
    expect(rejectedAt - revokedAt).toBeLessThanOrEqual(1000 + 300);
  });
});

describe('rate limit across two gateway replicas sharing Redis', () => {
  // 500 per minute: each replica reserves 10 tokens at a time (points / 50 caps the batch at 10).
  const POINTS = 500;
  const BATCH = 10;
  let gw: Gateway;
  let other: Awaited<ReturnType<typeof replicaOf>>;
  beforeAll(async () => {
    gw = await startGateway({ RATE_LIMIT_POINTS: String(POINTS), RATE_LIMIT_WINDOW_SECONDS: '60' });
    other = await replicaOf(gw);
  });
  afterAll(async () => {
    await other.close();
    await gw.close();
  });

  const hit = async (i: number, key: string) =>
    i % 2 ? other.get('/v1/knowledge-bases', key) : gw.req('GET', '/v1/knowledge-bases', { key });

  it('admits at most the limit in total and at least the limit minus the reserved tokens, then 429 with Retry-After on both', async () => {
    const { key, keyId } = await gw.createOrg();
    const statuses: number[] = [];
    // 8 callers at a time, alternating replicas, well past the limit
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < POINTS + 60) {
          const i = next++;
          statuses.push((await hit(i, key)).status);
        }
      }),
    );
    const ok = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    expect(ok).toBeLessThanOrEqual(POINTS);
    expect(ok).toBeGreaterThanOrEqual(POINTS - 2 * (BATCH - 1));
    const counted = Number(await gw.deps.redis.get(`${gw.deps.env.QUEUE_PREFIX}:ratelimit:key:${keyId}`));
    expect(counted).toBeLessThanOrEqual(POINTS);
    for (const r of [
      await gw.req('GET', '/v1/knowledge-bases', { key }),
      await other.get('/v1/knowledge-bases', key),
    ]) {
      expect(r.status).toBe(429);
      expect(r.body.code).toBe('rate_limited');
      const retry = Number(r.headers.get('retry-after'));
      expect(retry).toBeGreaterThan(0);
      expect(retry).toBeLessThanOrEqual(60);
    }
    // another key is unaffected on either replica
    const b = await gw.createOrg();
    expect((await other.get('/v1/knowledge-bases', b.key)).status).toBe(200);
    expect((await gw.req('GET', '/v1/knowledge-bases', { key: b.key })).status).toBe(200);
  });

  it('sequential requests split over both replicas reach the same bound', async () => {
    const { key } = await gw.createOrg();
    let ok = 0;
    let first429 = -1;
    for (let i = 0; i < POINTS + 20 && first429 < 0; i++) {
      const s = (await hit(i, key)).status;
      if (s === 200) ok++;
      else if (s === 429) first429 = i;
    }
    expect(first429).toBeGreaterThan(0);
    expect(ok).toBeLessThanOrEqual(POINTS);
    expect(ok).toBeGreaterThanOrEqual(POINTS - 2 * (BATCH - 1));
  });
});
