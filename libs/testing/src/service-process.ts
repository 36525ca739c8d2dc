// Services as real processes (`node --import tsx services/<name>/src/main.ts`: one process, so a
// signal reaches the service itself and not a wrapper), for any package's tests and benchmarks.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './private-redis';

const ROOT = path.resolve(__dirname, '../../..');

export interface WorkerProcess {
  child: ChildProcess;
  healthPort: number;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** What a parse worker process shares with the gateway it serves (a started gateway fits). */
export interface WorkerTarget {
  deps: { env: { DATABASE_URL: string; REDIS_URL: string; QUEUE_PREFIX: string } };
  dataDir: string;
}

/** The parse worker as a real process on the gateway's database, Redis, storage and queue prefix. */
export async function spawnWorker(gw: WorkerTarget, env: Record<string, string> = {}): Promise<WorkerProcess> {
  const healthPort = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('services', 'parse-worker', 'src', 'main.ts')], {
    cwd: ROOT,
    env: {
      ...process.env,
      DOCFLEET_SUPERVISOR_PID: String(process.pid), // a killed test run takes its workers with it
      DATABASE_URL: gw.deps.env.DATABASE_URL,
      REDIS_URL: gw.deps.env.REDIS_URL,
      DATA_DIR: gw.dataDir,
      QUEUE_PREFIX: gw.deps.env.QUEUE_PREFIX,
      HEALTH_PORT: String(healthPort),
      LOG_LEVEL: 'info',
      DB_POOL_MAX: '3',
      OMP_THREAD_LIMIT: '1',
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
  // Ready when the health port answers.
  for (let i = 0; i < 300; i++) {
    try {
      const r = await fetch(`http://127.0.0.1:${healthPort}/healthz`);
      if (r.ok) break;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null) throw new Error(`worker exited at start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, healthPort, output: () => out, exited };
}

export interface ServiceProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Any service of services/ as a real process (`node --import tsx services/<name>/src/main.ts`),
 * ready once `readyUrl` answers 2xx. The environment is exactly `env` on top of this process's.
 */
export async function spawnService(
  name: string,
  env: Record<string, string>,
  readyUrl: string,
): Promise<ServiceProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('services', name, 'src', 'main.ts')], {
    cwd: ROOT,
    env: { ...process.env, DOCFLEET_SUPERVISOR_PID: String(process.pid), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (out += b));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('exit', (code, signal) => r({ code, signal })),
  );
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(readyUrl)).ok) break;
    } catch {
      /* not up yet */
    }
    if (child.exitCode !== null) throw new Error(`${name} exited at start:\n${out}`);
    if (i > 600) {
      child.kill('SIGKILL');
      throw new Error(`${name} not ready after 60 s:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    output: () => out,
    exited,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return (await exited).code;
    },
  };
}
