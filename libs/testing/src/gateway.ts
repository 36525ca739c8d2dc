// The gateway for any package's tests, benchmarks and evaluations: a real process
// (`node --import tsx services/gateway/src/main.ts`, what `pnpm start` runs, auto-parse wired as
// main.ts wires it) over its own fresh database, storage dir and queue prefix, plus the HTTP client
// and fixtures (organisations, sessions, uploads) every test uses. Tests reach it over HTTP; what a
// worker shares with it (database, storage, queues) is opened here from the libraries, never from
// the gateway's code. The gateway's own tests may also mount its app in process
// (services/gateway/test/harness.ts); nothing else does.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createOrganization, createOrgApiKey, createOrgUser, type Role } from '@docfleet/auth';
import { grantCredits, setMonthlyQuota } from '@docfleet/billing';
import { defineEnv, gatewayEnv } from '@docfleet/config';
import type { api } from '@docfleet/contracts';
import type { PrismaClient } from '@docfleet/db';
import { QueueClient, createRedis } from '@docfleet/queue';
import { createStorage } from '@docfleet/storage';
import { createTestDb, keptTestDb } from './db';
import { freePort } from './private-redis';
import { ROOT, startServiceProcess, stopProcess } from './service-process';

/** The shared test corpus (read in place, never modified); DOCFLEET_CORPUS overrides `../shared/corpus`. */
export const CORPUS = process.env.DOCFLEET_CORPUS ?? path.resolve(ROOT, '../shared/corpus');
export const corpus = (rel: string) => path.join(CORPUS, rel);

type KnowledgeBase = api.KnowledgeBase;

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

  /**
   * A knowledge base as a test's setup (where the creation request itself is under test, use req).
   * A name is unique per organisation; by default a fresh one.
   */
  async function createKnowledgeBase(key: string, name = `kb-${randomUUID().slice(0, 6)}`): Promise<KnowledgeBase> {
    const r = await req<{ knowledge_base: KnowledgeBase }>('POST', '/v1/knowledge-bases', { key, body: { name } });
    if (r.status !== 201) throw new Error(`creating knowledge base ${name}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.knowledge_base;
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

  return { req, upload, createOrg, createSession, createKnowledgeBase };
}

export interface SpawnGatewayOptions {
  /** Environment of the gateway on top of the test defaults (model providers, limits, …). */
  env?: Record<string, string>;
  /** Wraps the command, e.g. a shell that sets a resource limit first: (argv) => ['sh', '-c', …]. */
  wrap?: (argv: string[]) => string[];
  /** A DATA_DIR to use instead of a fresh temporary one (the caller removes it). */
  dataDir?: string;
  /**
   * Another replica of a running gateway: the same database, storage and queue prefix, its own
   * environment (e.g. other model providers). Closing it leaves the shared stores to their owner.
   */
  replicaOf?: { db: PrismaClient; dataDir: string; queuePrefix: string; env: { DATABASE_URL: string } };
  /** Variables of this process the gateway does not inherit (model providers, for an offline fleet). */
  dropEnv?: RegExp;
  /**
   * Benchmarks only: over this named database instead of a fresh one, created from the migrations
   * when missing, migrated when present, and kept on close (keptTestDb).
   */
  keepDatabase?: string;
}

/** The gateway as a real process on an ephemeral port; resolves once /readyz answers. */
export async function spawnGateway(opts: SpawnGatewayOptions = {}) {
  const base = opts.replicaOf;
  const tdb = base ? null : opts.keepDatabase ? await keptTestDb(opts.keepDatabase) : await createTestDb();
  const ownDataDir = !base && !opts.dataDir;
  const dataDir = base?.dataDir ?? opts.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'docfleet-gwp-')));
  const port = await freePort();
  const queuePrefix = base?.queuePrefix ?? `t${randomUUID().slice(0, 8)}`;
  const raw: Record<string, string> = {
    DATABASE_URL: base?.env.DATABASE_URL ?? tdb!.url,
    DATA_DIR: dataDir,
    QUEUE_PREFIX: queuePrefix,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DB_POOL_MAX: '3',
    RATE_LIMIT_POINTS: '100000',
    ...opts.env,
  };
  // The configuration the process reads, parsed the same way (worker environments and tests read it).
  const inherited = { ...process.env };
  if (opts.dropEnv) for (const k of Object.keys(inherited)) if (opts.dropEnv.test(k)) delete inherited[k];
  const env = defineEnv(gatewayEnv, { ...inherited, ...raw }, { exit: false });
  const proc = await startServiceProcess('gateway', {
    env: raw,
    readyUrl: `http://127.0.0.1:${port}/readyz`,
    wrap: opts.wrap,
    dropEnv: opts.dropEnv,
  }).catch(async (err) => {
    await tdb?.drop();
    if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
    throw err;
  });
  const url = `http://127.0.0.1:${port}`;
  const db: PrismaClient = base?.db ?? tdb!.db;
  const redis = createRedis(env.REDIS_URL);
  /**
   * What a worker shares with this gateway: its configuration, database, storage and queues (also
   * the SearchIndexEnv the search index fixtures write through).
   */
  const deps = { env, db, storage: createStorage(dataDir), redis, queues: new QueueClient(redis, env.QUEUE_PREFIX) };

  /** The same process still runs and answers /healthz. */
  async function alive(): Promise<boolean> {
    if (proc.gone() || proc.child.exitCode !== null || proc.child.signalCode !== null) return false;
    try {
      return (await fetch(`${url}/healthz`)).ok;
    } catch {
      return false;
    }
  }

  async function close() {
    await stopProcess(proc);
    await deps.queues.close();
    await redis.quit().catch(() => undefined);
    await tdb?.drop();
    if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
  }

  return {
    url,
    port,
    db,
    dataDir,
    queuePrefix,
    env,
    deps,
    child: proc.child,
    output: proc.output,
    exited: proc.exited,
    alive,
    close,
    ...gatewayClient(url, db),
  };
}

export type GatewayProcess = Awaited<ReturnType<typeof spawnGateway>>;
