import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDb, type TestDb } from '@docfleet/testing';

const root = path.resolve(__dirname, '../..');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

let t: TestDb;
let dataDir: string;
beforeAll(async () => {
  t = await createTestDb();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-start-'));
});
afterAll(async () => {
  await t.drop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('pnpm start', () => {
  it('runs the fleet in the foreground, becomes ready, and stops cleanly on SIGINT', async () => {
    const port = await freePort();
    const child = spawn('pnpm', ['--silent', 'start'], {
      cwd: root,
      env: { ...process.env, PORT: String(port), DATABASE_URL: t.url, DATA_DIR: dataDir, QUEUE_PREFIX: `start${port}`, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    const deadline = Date.now() + 45_000;
    let ready = false;
    while (Date.now() < deadline && !ready) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`);
        ready = r.status === 200;
      } catch { /* not up yet */ }
      if (!ready) await new Promise((r) => setTimeout(r, 300));
    }
    expect({ ready, out: ready ? '' : out }).toEqual({ ready: true, out: '' });
    expect(out).toContain('starting: gateway');
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
    // Ctrl-C in a terminal signals the whole foreground process group.
    process.kill(-child.pid!, 'SIGINT');
    const how = await exited;
    expect(how.code === 0 || how.signal === 'SIGINT').toBe(true);
    // every service is gone: the port no longer answers
    await new Promise((r) => setTimeout(r, 500));
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  }, 90_000);

  it('refuses invalid configuration with one line naming the variable', async () => {
    const child = spawn('pnpm', ['--silent', 'exec', 'tsx', 'services/gateway/src/main.ts'], { cwd: root, env: { ...process.env, PORT: 'eighty', DATABASE_URL: t.url } });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err.trim().split('\n')).toEqual([expect.stringMatching(/^invalid configuration: PORT: /)]);
  }, 30_000);
});
