// The gateway as a real process (`node --import tsx services/gateway/src/main.ts`, what `pnpm start`
// runs), over its own fresh database, storage dir and queue prefix. Tests that must show the process
// survives a request (hostile bodies, dropped connections) use this rather than the in-process
// gateway: an uncaught error there would end jest, not answer whether the service lives.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTestDb, freePort } from '@docfleet/testing';
import { gatewayClient } from './harness';

const ROOT = path.resolve(__dirname, '../../..');

export interface SpawnOptions {
  env?: Record<string, string>;
  /** Wraps the command, e.g. a shell that sets a resource limit first: (argv) => ['sh', '-c', …]. */
  wrap?: (argv: string[]) => string[];
  /** A DATA_DIR to use instead of a fresh temporary one (the caller removes it). */
  dataDir?: string;
}

export async function spawnGateway(opts: SpawnOptions = {}) {
  const tdb = await createTestDb();
  const ownDataDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? (await mkdtemp(path.join(os.tmpdir(), 'docfleet-gwp-')));
  const port = await freePort();
  const queuePrefix = `t${randomUUID().slice(0, 8)}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: tdb.url,
    DATA_DIR: dataDir,
    QUEUE_PREFIX: queuePrefix,
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    DB_POOL_MAX: '3',
    RATE_LIMIT_POINTS: '100000',
    ...opts.env,
  };
  const argv = [process.execPath, '--import', 'tsx', path.join('services', 'gateway', 'src', 'main.ts')];
  const [cmd, ...args] = opts.wrap ? opts.wrap(argv) : argv;
  const child: ChildProcess = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (out += b));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`gateway exited at start:\n${out}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 600) {
      child.kill('SIGKILL');
      throw new Error(`gateway not ready in 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  /** The same process still runs and answers /healthz. */
  async function alive(): Promise<boolean> {
    if (child.exitCode !== null || child.signalCode !== null) return false;
    try {
      return (await fetch(`${url}/healthz`)).ok;
    } catch {
      return false;
    }
  }

  async function close() {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    }
    await tdb.drop();
    if (ownDataDir) await rm(dataDir, { recursive: true, force: true });
  }

  return {
    url,
    port,
    db: tdb.db,
    dataDir,
    queuePrefix,
    child,
    output: () => out,
    exited,
    alive,
    close,
    ...gatewayClient(url, tdb.db),
  };
}

export type GatewayProcess = Awaited<ReturnType<typeof spawnGateway>>;
