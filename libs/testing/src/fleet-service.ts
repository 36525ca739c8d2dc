// A fleet service as a real process (`node --import tsx services/<name>/src/main.ts`, what
// `pnpm start` runs), for tests that need processes they can kill: it answers once its readiness
// URL (the gateway's /readyz on PORT, a worker's /readyz on HEALTH_PORT) says 200.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './private-redis';

const ROOT = path.resolve(__dirname, '../../..');

export interface FleetServiceProcess {
  name: string;
  child: ChildProcess;
  pid: number;
  /** The gateway's base URL, or the worker's health server. */
  url: string;
  out(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILL: no shutdown code runs (a crash, the OOM killer). */
  kill9(): Promise<void>;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

export async function spawnFleetService(
  name: string,
  env: Record<string, string>,
  opts: { readyTimeoutMs?: number } = {},
): Promise<FleetServiceProcess> {
  const port = await freePort();
  const isGateway = name === 'gateway';
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('services', name, 'src', 'main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      DB_POOL_MAX: '4',
      ...(isGateway ? { PORT: String(port), HOST: '127.0.0.1', HEALTH_PORT: '0' } : { HEALTH_PORT: String(port) }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (out += b));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (gone) throw new Error(`${name} exited before it was ready:\n${out}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} not ready within ${opts.readyTimeoutMs ?? 60_000} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    name,
    child,
    pid: child.pid!,
    url,
    out: () => out,
    exited,
    async kill9() {
      if (!gone) child.kill('SIGKILL');
      await exited;
    },
    async stop() {
      if (!gone) child.kill('SIGTERM');
      await exited;
    },
  };
}
