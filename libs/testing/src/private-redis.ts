import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

/** A free TCP port on 127.0.0.1 (closed again before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
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
    for (let i = 0; i < 100; i++) {
      if (await answersPing(port)) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`private redis-server on port ${port} did not start`);
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
