// A PostgreSQL server of the test's own (initdb into a temporary folder, a free port), so a test can
// stop and restart the database under a running fleet without touching the server every other test
// shares. PostgreSQL refuses to run as root: as root, the server runs as the `postgres` user.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { migrate } from '@docfleet/db/src/migrate';
import { freePort } from './private-redis';
import { WaitTimeoutError, waitUntil } from './wait';

export interface PrivatePostgres {
  port: number;
  /** URL of the migrated database `docfleet`. */
  url: string;
  /** Stops the server as an operator's restart does (fast shutdown: every connection is cut), then starts it again. */
  restart(opts?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(path.join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (!versions.length) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql/*/bin');
  return path.join(root, versions[0], 'bin');
}

const asRoot = process.getuid?.() === 0;
/** As root, the server's processes run as the postgres user (spawned with its uid, so signals reach the server itself). */
function serverUser(): { uid: number; gid: number } | Record<string, never> {
  if (!asRoot) return {};
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

async function accepts(port: number): Promise<boolean> {
  const c = new Client({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database: 'postgres',
    connectionTimeoutMillis: 1000,
  });
  c.on('error', () => undefined);
  try {
    await c.connect();
    await c.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'docfleet-pg-'));
  const user = serverUser();
  if ('uid' in user) chownSync(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const env = { ...process.env, HOME: dir, LC_ALL: 'C' };
  execFileSync(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8'], {
    stdio: 'ignore',
    cwd: dir,
    env,
    ...user,
  });
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn(
      path.join(bin, 'postgres'),
      [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'max_connections=200',
      ],
      { stdio: 'ignore', cwd: dir, env, ...user },
    );
    await waitUntil(`private PostgreSQL on port ${port} to accept connections`, () => accepts(port), {
      timeoutMs: 20_000,
      intervalMs: 100,
    });
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    // SIGINT is PostgreSQL's fast shutdown: sessions are terminated, the data is kept.
    await new Promise<void>((resolve) => {
      const hard = setTimeout(() => c.kill('SIGKILL'), 15_000);
      c.once('exit', () => {
        clearTimeout(hard);
        resolve();
      });
      c.kill('SIGINT');
    });
    // Left in place after the 10 s, as before: the next start fails on it with PostgreSQL's own words.
    await waitUntil(
      `private PostgreSQL on port ${port} to remove postmaster.pid`,
      () => !existsSync(path.join(data, 'postmaster.pid')),
      {
        timeoutMs: 10_000,
        intervalMs: 100,
      },
    ).catch((e: unknown) => {
      if (!(e instanceof WaitTimeoutError)) throw e;
    });
  };
  await start();
  const url = `postgresql://postgres@127.0.0.1:${port}/docfleet`;
  await migrate(url, { log: () => undefined });
  return {
    port,
    url,
    async restart(opts = {}) {
      await stop();
      if (opts.downMs) await new Promise((r) => setTimeout(r, opts.downMs));
      await start();
    },
    async stop() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
