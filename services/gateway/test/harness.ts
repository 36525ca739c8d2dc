import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createOrganization, createOrgApiKey, createOrgUser, type Role } from '@docfleet/auth';
import { grantCredits, setMonthlyQuota } from '@docfleet/billing';
import { defineEnv, gatewayEnv } from '@docfleet/config';
import { createLogger } from '@docfleet/logger';
import { QueueClient, createRedis } from '@docfleet/queue';
import { createStorage } from '@docfleet/storage';
import { createTestDb } from '@docfleet/testing';
import type { PrismaClient } from '@docfleet/db';
import { buildApp } from '../src/app';
import type { Deps } from '../src/deps';

export interface Res<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** HTTP calls and test fixtures (organisations, sessions, uploads) against a gateway at `url` over `db`. */
export function gatewayClient(url: string, db: PrismaClient) {
  async function req<T = any>(
    method: string,
    p: string,
    o: { key?: string; body?: unknown; headers?: Record<string, string>; form?: FormData; raw?: string } = {},
  ): Promise<Res<T>> {
    const headers: Record<string, string> = { ...(o.key ? { 'x-api-key': o.key } : {}), ...o.headers };
    let body: FormData | string | undefined;
    if (o.form) body = o.form;
    else if (o.raw !== undefined) {
      body = o.raw;
      headers['content-type'] ??= 'application/json';
    } else if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] = 'application/json';
    }
    const r = await fetch(url + p, { method, headers, body });
    const text = await r.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON */
    }
    return { status: r.status, body: parsed as T, headers: r.headers };
  }

  async function createOrg(o: { credits?: number; quota?: number; name?: string } = {}) {
    const org = await createOrganization(db, o.name ?? `org-${randomUUID().slice(0, 6)}`);
    if (o.credits)
      await grantCredits(db, { orgId: org.id, amount: o.credits, idempotencyKey: `test:${org.id}`, reason: 'test' });
    if (o.quota !== undefined) await setMonthlyQuota(db, org.id, o.quota);
    const key = await createOrgApiKey(db, org.id);
    return { orgId: org.id, key: key.secret, keyId: key.id };
  }

  /** A person with a role in the organisation, signed in; returns headers for session calls. */
  async function createSession(orgId: string, role: Role) {
    const email = `${role}-${randomUUID().slice(0, 8)}@example.test`;
    const user = await createOrgUser(db, { orgId, email, role, password: 'correct horse battery' });
    const r = await req('POST', '/v1/auth/login', { body: { email, password: 'correct horse battery' } });
    if (r.status !== 200) throw new Error(`login failed: ${JSON.stringify(r.body)}`);
    return { userId: user.id, headers: { authorization: `Bearer ${r.body.token}`, 'x-service-org-id': orgId } };
  }

  function upload(
    key: string,
    fields: Record<string, string>,
    file: { name: string; data: Buffer | string; type?: string },
    method = 'POST',
    p = '/v1/files',
  ) {
    const form = new FormData();
    for (const [k, v] of Object.entries(fields)) form.append(k, v);
    form.append('file', new Blob([file.data], { type: file.type ?? 'application/octet-stream' }), file.name);
    return req(method, p, { key, form });
  }

  return { req, upload, createOrg, createSession };
}

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

export const CORPUS = process.env.DOCFLEET_CORPUS ?? path.resolve(__dirname, '../../../../shared/corpus');
