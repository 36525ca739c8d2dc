import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort, waitUntil } from '@docfleet/testing';

export const root = path.resolve(__dirname, '../..');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A process that still runs (a zombie waiting for a parent that does not reap it counts as gone). */
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
};

/** Peak resident set (VmHWM) of a live process, in MiB; null once it is gone. */
export function peakRssMiB(pid: number): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export interface Fleet {
  port: number;
  baseUrl: string;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: string | null }>;
  out(): string;
  /** Every pid the supervisor reported starting (`<service> | started (pid N)`), oldest first. */
  pidsOf(service?: string): number[];
  /** Creates an organisation with the admin CLI against the fleet's database. */
  createOrg(credits: number): Promise<{ apiKey: string; orgId: string }>;
  /** SIGTERM to the process group; resolves with the supervisor's exit. */
  stop(): Promise<{ code: number | null; signal: string | null }>;
  /** SIGKILL to everything it started, whatever state it is in. */
  kill(): void;
}

/** `pnpm start` in its own process group, as a terminal or a process supervisor would run it. */
export async function startFleet(env: Record<string, string>): Promise<Fleet> {
  const port = await freePort();
  const child: ChildProcess = spawn('pnpm', ['--silent', 'start'], {
    cwd: root,
    // START_WATCH_PID: a test run that is killed (no afterAll) takes its fleet with it.
    env: {
      ...process.env,
      PORT: String(port),
      QUEUE_PREFIX: `fleet${port}`,
      LOG_LEVEL: 'warn',
      HEALTH_PORT: '0',
      START_WATCH_PID: String(process.pid),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const pidsOf = (service?: string) =>
    [...out.matchAll(/^(\S+)\s*\| started \(pid (\d+)\)$/gm)]
      .filter((m) => !service || m[1] === service)
      .map((m) => Number(m[2]));
  const fleet: Fleet = {
    port,
    baseUrl: `http://127.0.0.1:${port}`,
    child,
    exited,
    out: () => out,
    pidsOf,
    async createOrg(credits) {
      const { stdout } = await promisify(execFile)(
        'pnpm',
        [
          '--silent',
          'docfleet',
          'admin',
          'create-org',
          '--name',
          `org-${port}`,
          '--credits',
          String(credits),
          '--json',
        ],
        { cwd: root, env: { ...process.env, ...env } },
      );
      const { api_key: apiKey, org_id: orgId } = JSON.parse(stdout) as { api_key: string; org_id: string };
      return { apiKey, orgId };
    },
    async stop() {
      if (alive(child.pid!)) process.kill(-child.pid!, 'SIGTERM');
      return exited;
    },
    kill() {
      for (const pid of pidsOf()) if (alive(pid)) process.kill(pid, 'SIGKILL');
      if (alive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
    },
  };
  let last = 'no answer yet';
  try {
    await waitUntil(
      `pnpm start to answer ${fleet.baseUrl}/readyz with 200`,
      async () => {
        try {
          const status = (await fetch(`${fleet.baseUrl}/readyz`)).status;
          last = `readyz ${status}`;
          return status === 200;
        } catch (e) {
          last = `readyz: ${e instanceof Error ? e.message : String(e)}`; // not up yet
          return false;
        }
      },
      { timeoutMs: 90_000, intervalMs: 300, detail: () => `${last}\n${out}` },
    );
  } catch (e) {
    fleet.kill();
    throw e;
  }
  return fleet;
}
