// `pnpm start`: the gateway and every worker on this machine, in the foreground. Output lines are
// prefixed with the service name; Ctrl-C (or SIGTERM) stops all; if one service dies, all stop.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';

const root = path.resolve(__dirname, '..');
// Long-running services only (the CLI and the stdio tool server are started by their users).
const LONG_RUNNING = /^(gateway|.*-worker|billing)$/;
const services = readdirSync(path.join(root, 'services'))
  .filter((s) => LONG_RUNNING.test(s) && existsSync(path.join(root, 'services', s, 'src', 'main.ts')))
  .sort((a, b) => (a === 'gateway' ? -1 : b === 'gateway' ? 1 : a.localeCompare(b)));

const tsx = path.join(root, 'node_modules', '.bin', 'tsx');
const children = new Map<string, ChildProcess>();
let stopping = false;

function stopAll(code: number) {
  if (stopping) return;
  stopping = true;
  for (const c of children.values()) c.kill('SIGTERM');
  setTimeout(() => process.exit(code), 30_000).unref();
}

services.forEach((name, i) => {
  const child = spawn(tsx, [path.join('services', name, 'src', 'main.ts')], {
    cwd: root,
    env: { ...process.env, OMP_THREAD_LIMIT: process.env.OMP_THREAD_LIMIT ?? '1', HEALTH_PORT: process.env.HEALTH_PORT ?? (name === 'gateway' ? '0' : String(9100 + i)) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(name, child);
  for (const stream of [child.stdout!, child.stderr!]) {
    readline.createInterface({ input: stream }).on('line', (line) => process.stdout.write(`${name.padEnd(16)}| ${line}\n`));
  }
  child.on('exit', (code, signal) => {
    children.delete(name);
    process.stdout.write(`${name.padEnd(16)}| exited (${signal ?? code})\n`);
    if (!stopping) stopAll(code ?? 1);
    if (children.size === 0) process.exit(stopping ? 0 : code ?? 1);
  });
});
process.stdout.write(`starting: ${services.join(', ')}\n`);
process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));
