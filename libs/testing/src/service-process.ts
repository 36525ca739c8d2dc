// Services as real processes (`node --import tsx services/<name>/src/main.ts`: one process, so a
// signal reaches the service itself and not a wrapper), for any package's tests, benchmarks and
// evaluations. One spawner (`startServiceProcess`) serves every shape below: a worker on a
// gateway's stores, any service by name, a fleet service that a test kills, and the gateway itself.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freePort } from './private-redis';
import { WaitTimeoutError, waitUntil } from './wait';

export const ROOT = path.resolve(__dirname, '../../..');

type Exit = { code: number | null; signal: NodeJS.Signals | null };

export interface StartedProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<Exit>;
  /** True once the process has exited (or was killed). */
  gone(): boolean;
}

export interface StartProcessOptions {
  /** The environment on top of this process's. */
  env: Record<string, string>;
  /** Ready once this URL answers `ready(status)` (default: any 2xx). */
  readyUrl: string;
  ready?: (status: number) => boolean;
  readyTimeoutMs?: number;
  /** Milliseconds between readiness probes. */
  pollMs?: number;
  /** Wraps the command, e.g. a shell that sets a resource limit first: (argv) => ['sh', '-c', …]. */
  wrap?: (argv: string[]) => string[];
  /** A killed test run takes the service with it (DOCFLEET_SUPERVISOR_PID); on by default. */
  supervised?: boolean;
  /** Variables of this process the service does not inherit (e.g. model providers, for an offline fleet). */
  dropEnv?: RegExp;
}

/** `services/<name>/src/main.ts` as a process; resolves once it is ready, rejects (and kills it) if it is not. */
export async function startServiceProcess(name: string, o: StartProcessOptions): Promise<StartedProcess> {
  const argv = [process.execPath, '--import', 'tsx', path.join('services', name, 'src', 'main.ts')];
  const [cmd, ...args] = o.wrap ? o.wrap(argv) : argv;
  const inherited = { ...process.env };
  if (o.dropEnv) for (const k of Object.keys(inherited)) if (o.dropEnv.test(k)) delete inherited[k];
  const child = spawn(cmd!, args, {
    cwd: ROOT,
    env: {
      ...inherited,
      ...(o.supervised === false ? {} : { DOCFLEET_SUPERVISOR_PID: String(process.pid) }),
      ...o.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (b) => (out += b));
  child.stderr!.on('data', (b) => (out += b));
  let gone = false;
  const exited = new Promise<Exit>((r) => child.on('exit', (code, signal) => r({ code, signal })));
  void exited.then(() => (gone = true));
  const timeoutMs = o.readyTimeoutMs ?? 60_000;
  const ready = o.ready ?? ((s: number) => s >= 200 && s < 300);
  let last = 'not listening yet';
  try {
    await waitUntil(
      `${name} ready at ${o.readyUrl}`,
      async () => {
        if (gone || child.exitCode !== null || child.signalCode !== null)
          throw new Error(`${name} exited before it was ready:\n${out}`);
        try {
          const status = (await fetch(o.readyUrl)).status;
          last = `answered ${status}`;
          return ready(status);
        } catch {
          return false; // not listening yet
        }
      },
      { timeoutMs, intervalMs: o.pollMs ?? 100, detail: () => `${last}\n${out}` },
    );
  } catch (e) {
    if (e instanceof WaitTimeoutError) child.kill('SIGKILL');
    throw e;
  }
  return { child, output: () => out, exited, gone: () => gone };
}

/**
 * SIGTERM, SIGKILL after `graceMs`, and wait for the exit. A process that had to be killed is named on
 * stderr with the end of its output, so a shutdown that hangs says where (a test's teardown would
 * otherwise only run over its hook timeout).
 */
export async function stopProcess(p: StartedProcess, graceMs = 10_000, name = 'service'): Promise<Exit> {
  if (!p.gone() && p.child.exitCode === null && p.child.signalCode === null) {
    p.child.kill('SIGTERM');
    const t = setTimeout(() => {
      process.stderr.write(
        `${name} (pid ${p.child.pid}) did not exit within ${graceMs} ms of SIGTERM; SIGKILL. Its last output:\n` +
          `${p.output().slice(-4000)}\n`,
      );
      p.child.kill('SIGKILL');
    }, graceMs);
    const exit = await p.exited;
    clearTimeout(t);
    return exit;
  }
  return p.exited;
}

export interface WorkerProcess {
  child: ChildProcess;
  healthPort: number;
  output: () => string;
  exited: Promise<Exit>;
}

/** What a worker process shares with the gateway it serves (a spawned gateway fits). */
export interface WorkerTarget {
  deps: { env: { DATABASE_URL: string; REDIS_URL: string; QUEUE_PREFIX: string } };
  dataDir: string;
}

/** The environment that puts a worker on a gateway's database, Redis, storage and queue prefix. */
export function workerEnvOf(gw: WorkerTarget): Record<string, string> {
  return {
    DATABASE_URL: gw.deps.env.DATABASE_URL,
    REDIS_URL: gw.deps.env.REDIS_URL,
    DATA_DIR: gw.dataDir,
    QUEUE_PREFIX: gw.deps.env.QUEUE_PREFIX,
  };
}

/**
 * A worker as a real process on the gateway's database, Redis, storage and queue prefix: the parse
 * worker unless `service` names another (index-worker, workflow-worker, billing, webhook-worker).
 */
export async function spawnWorker(
  gw: WorkerTarget,
  env: Record<string, string> = {},
  service = 'parse-worker',
): Promise<WorkerProcess> {
  const healthPort = await freePort();
  const p = await startServiceProcess(service, {
    env: {
      ...workerEnvOf(gw),
      HEALTH_PORT: String(healthPort),
      LOG_LEVEL: 'info',
      DB_POOL_MAX: '3',
      OMP_THREAD_LIMIT: '1',
      ...env,
    },
    readyUrl: `http://127.0.0.1:${healthPort}/healthz`,
    ready: (s) => s === 200,
  });
  return { child: p.child, healthPort, output: p.output, exited: p.exited };
}

export interface ServiceProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<Exit>;
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
  const p = await startServiceProcess(name, { env, readyUrl });
  return {
    child: p.child,
    output: p.output,
    exited: p.exited,
    async stop() {
      if (p.child.exitCode === null) p.child.kill('SIGTERM');
      return (await p.exited).code;
    },
  };
}

/** A process's node children, by pid (a gateway primary's processes; tsx's esbuild service is one too). */
export function nodeChildren(pid: number | undefined): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => l.trim().split(/\s+/))
      .filter(([, comm]) => comm === 'node')
      .map(([n]) => Number(n));
  } catch {
    return []; // ps exits 1 when there are none
  }
}
