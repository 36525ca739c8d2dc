// A running docfleet for end-to-end tests of the tool server and the CLI: the real gateway
// (services/gateway/test/harness.ts: its own fresh database, storage dir and queue prefix, with
// the auto-parse hooks wired as main.ts wires them) and the real workers as processes, exactly as
// `pnpm start` runs them: parse-worker, index-worker, webhook-worker, and workflow-worker once it exists. Clients
// (the MCP server, the CLI) reach it only over HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CORPUS, startGateway, type Gateway } from '../../gateway/test/harness';

export const ROOT = path.resolve(__dirname, '../../..');
export { CORPUS };

/** A small born-digital invoice from the corpus (1 page, text layer; MANIFEST.tsv). */
export const INVOICE_PDF = 'f_forms_invoices/invoice2data/AzureInterior.pdf';

const ROUTES = path.join(ROOT, 'services/gateway/src/routes');
function routesMention(text: string): boolean {
  if (!existsSync(ROUTES)) return false;
  return readdirSync(ROUTES).some((f) => readFileSync(path.join(ROUTES, f), 'utf8').includes(text));
}

/**
 * The workflow endpoints (extract runs and jobs, split, operations) and the workflow worker are
 * landing separately; the tests that need them run once all of them exist.
 */
export function workflowsLanded(): boolean {
  return (
    existsSync(path.join(ROOT, 'services/workflow-worker/src/main.ts')) &&
    routesMention('/v1/extract/runs') &&
    routesMention('/v1/files/:fileId/extract') &&
    routesMention('/v1/split/runs') &&
    routesMention('/v1/split/download') &&
    routesMention('/v1/operations/:operationId')
  );
}

export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

interface ServiceProcess {
  name: string;
  child: ChildProcess;
  output(): string;
}

/** Environment without any remote model provider, so workflows run on the offline docfleet-local model. */
export function offlineEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(env)) if (/^(ANTHROPIC_|OPENAI_|MODEL_)/.test(k) || /^SERVICE_/.test(k)) delete env[k];
  return { ...env, ...extra };
}

async function spawnService(name: string, gw: Gateway): Promise<ServiceProcess> {
  const healthPort = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('services', name, 'src', 'main.ts')], {
    cwd: ROOT,
    env: offlineEnv({
      DOCFLEET_SUPERVISOR_PID: String(process.pid), // a killed test run takes its services with it
      DATABASE_URL: gw.deps.env.DATABASE_URL,
      REDIS_URL: gw.deps.env.REDIS_URL,
      DATA_DIR: gw.dataDir,
      QUEUE_PREFIX: gw.deps.env.QUEUE_PREFIX,
      HEALTH_PORT: String(healthPort),
      LOG_LEVEL: 'warn',
      DB_POOL_MAX: '3',
      OMP_THREAD_LIMIT: '1',
    }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (out += b));
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited at start:\n${out}`);
    try {
      if ((await fetch(`http://127.0.0.1:${healthPort}/healthz`)).ok) return { name, child, output: () => out };
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`${name} did not become healthy in 60 s:\n${out}`);
}

export interface Fleet {
  url: string;
  gw: Gateway;
  /** True when the workflow worker runs (extract, split, operations can complete). */
  workflows: boolean;
  /** A temporary directory removed by close(). */
  tmp: string;
  createOrg(o?: { credits?: number }): Promise<{ orgId: string; key: string }>;
  /** Copies a corpus file into tmp (the corpus itself is never touched) and returns the copy's absolute path. */
  corpusCopy(rel: string, name?: string): Promise<string>;
  logs(): string;
  close(): Promise<void>;
}

export async function startFleet(): Promise<Fleet> {
  const gw = await startGateway({});
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'docfleet-fleet-'));
  const procs: ServiceProcess[] = [];
  const close = async () => {
    await Promise.all(
      procs.map(
        (p) =>
          new Promise<void>((resolve) => {
            if (p.child.exitCode !== null || p.child.signalCode !== null) return resolve();
            const t = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
            p.child.once('exit', () => (clearTimeout(t), resolve()));
            p.child.kill('SIGTERM');
          }),
      ),
    );
    await gw.close();
    await rm(tmp, { recursive: true, force: true });
  };
  const workflows = workflowsLanded();
  try {
    // The webhook worker relays stored events to the event stream (`parse --watch` follows it).
    const names = ['parse-worker', 'index-worker', 'webhook-worker', ...(workflows ? ['workflow-worker'] : [])];
    const started = await Promise.allSettled(names.map((n) => spawnService(n, gw)));
    for (const s of started) if (s.status === 'fulfilled') procs.push(s.value);
    const failed = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (err) {
    await close();
    throw err;
  }
  return {
    url: gw.url,
    gw,
    workflows,
    tmp,
    createOrg: (o = {}) => gw.createOrg({ credits: o.credits ?? 100 }),
    async corpusCopy(rel, name) {
      const dest = path.join(tmp, name ?? path.basename(rel));
      await copyFile(path.join(CORPUS, rel), dest);
      return dest;
    },
    logs: () => procs.map((p) => `--- ${p.name}\n${p.output()}`).join('\n'),
    close,
  };
}
