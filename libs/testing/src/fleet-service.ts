// A fleet service as a real process for tests that need processes they can kill: it answers once
// its readiness URL (the gateway's /readyz on PORT, a worker's /readyz on HEALTH_PORT) says 200.
// Built on the one spawner of service-process.ts.
import type { ChildProcess } from 'node:child_process';
import { freePort } from './private-redis';
import { startServiceProcess, stopProcess } from './service-process';

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
  /**
   * SIGTERM and wait for the exit; SIGKILL after `graceMs` (default 40 s: the services bound their own
   * shutdown at 30 s), naming the process and its last output on stderr.
   */
  stop(graceMs?: number): Promise<void>;
}

export async function spawnFleetService(
  name: string,
  env: Record<string, string>,
  opts: { readyTimeoutMs?: number } = {},
): Promise<FleetServiceProcess> {
  const port = await freePort();
  const isGateway = name === 'gateway';
  const url = `http://127.0.0.1:${port}`;
  const p = await startServiceProcess(name, {
    env: {
      LOG_LEVEL: 'warn',
      DB_POOL_MAX: '4',
      ...(isGateway ? { PORT: String(port), HOST: '127.0.0.1', HEALTH_PORT: '0' } : { HEALTH_PORT: String(port) }),
      ...env,
    },
    readyUrl: `${url}/readyz`,
    ready: (s) => s === 200,
    readyTimeoutMs: opts.readyTimeoutMs,
    pollMs: 150,
    supervised: false,
  });
  return {
    name,
    child: p.child,
    pid: p.child.pid!,
    url,
    out: p.output,
    exited: p.exited,
    async kill9() {
      if (!p.gone()) p.child.kill('SIGKILL');
      await p.exited;
    },
    async stop(graceMs = 40_000) {
      await stopProcess(p, graceMs, name);
    },
  };
}
