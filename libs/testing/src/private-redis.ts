import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { waitUntil } from './wait';

const bindable = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });

/**
 * A free TCP port on 127.0.0.1 (closed again before it is returned), for a server a test starts next.
 * Taken below the kernel's ephemeral range (32768–60999 on Linux): a port the kernel handed out would
 * be free to hand out again as the source port of any outgoing connection (a database pool, a fetch)
 * before the server binds it, which under a loaded test run gave EADDRINUSE. Each jest worker draws
 * from its own slice, so two workers do not pick the same port at the same moment.
 */
export async function freePort(): Promise<number> {
  const worker = Math.max(0, Number(process.env.JEST_WORKER_ID ?? 1) - 1) % 8;
  const low = 20_000 + worker * 1_500;
  const start = Math.floor(Math.random() * 1_500);
  for (let i = 0; i < 1_500; i++) {
    const port = low + ((start + i) % 1_500);
    if (await bindable(port)) return port;
  }
  throw new Error(`no free port in ${low}–${low + 1_499}`);
}

async function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = net.connect(port, '127.0.0.1');
    let buf = '';
    sock.setTimeout(500, () => {
      sock.destroy();
      resolve(false);
    });
    sock.on('error', () => resolve(false));
    sock.on('data', (d) => {
      buf += d;
      if (buf.includes('PONG')) {
        sock.end();
        resolve(true);
      }
    });
    sock.on('connect', () => sock.write('PING\r\n'));
  });
}

export interface PrivateRedis {
  port: number;
  url: string;
  /** Kills the server (SIGKILL: nothing is saved) and starts an empty one on the same port, after `downMs` (default 0). */
  restart(opts?: { downMs?: number }): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A redis-server of the test's own, keeping nothing on disk like the quickstart's, so a test can
 * restart or flush it without touching the Redis every other test shares.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: 'ignore',
    });
    await waitUntil(`private redis-server on port ${port} to answer PING`, () => answersPing(port), {
      timeoutMs: 5_000,
      intervalMs: 50,
    });
  };
  const stop = async () => {
    const c = child;
    child = null;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    restart: async (opts = {}) => {
      await stop();
      if (opts.downMs) await new Promise((r) => setTimeout(r, opts.downMs));
      await start();
    },
    stop,
  };
}
