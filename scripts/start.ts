// `pnpm start`: the gateway and every worker on this machine, in the foreground, under a small
// supervisor. Output lines are prefixed with the service name. A service that crashes is restarted
// with backoff while the others keep serving; Ctrl-C or SIGTERM (to this process, to pnpm, or to the
// whole process group) stops everything gracefully; a crash loop stops everything with a clear message.
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

const num = (name: string, fallback: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? v : fallback;
};
/** A service that crashes this many times within the window is a crash loop: everything stops. */
const CRASH_LOOP_LIMIT = num('START_CRASH_LOOP_LIMIT', 5);
const CRASH_LOOP_WINDOW_MS = num('START_CRASH_LOOP_WINDOW_SECONDS', 60) * 1000;
const STOP_GRACE_MS = num('START_STOP_GRACE_SECONDS', 30) * 1000;

const children = new Map<string, ChildProcess>();
const crashes = new Map<string, number[]>();
const restarts = new Map<string, number>();
const pendingRestarts = new Set<NodeJS.Timeout>();
let stopping = false;
let exitCode = 0;

const say = (name: string, line: string) => process.stdout.write(`${name.padEnd(16)}| ${line}\n`);

function finish() {
  if (children.size === 0) process.exit(exitCode);
}

function stopAll(code: number, why: string) {
  if (stopping) return;
  stopping = true;
  exitCode = code;
  process.stdout.write(`stopping every service: ${why}\n`);
  for (const t of pendingRestarts) clearTimeout(t);
  pendingRestarts.clear();
  for (const c of children.values()) c.kill('SIGTERM');
  // A service that ignores SIGTERM past the grace period is killed, so nothing outlives the supervisor.
  setTimeout(() => {
    for (const [name, c] of children) {
      say(name, `did not stop within ${STOP_GRACE_MS / 1000} s: killed`);
      c.kill('SIGKILL');
    }
    setTimeout(() => process.exit(exitCode), 1000).unref();
  }, STOP_GRACE_MS).unref();
  finish();
}

function start(name: string, index: number) {
  // node with tsx's loader, not the tsx CLI: the pid we signal is the service itself.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join('services', name, 'src', 'main.ts')], {
    cwd: root,
    // DOCFLEET_SUPERVISOR_PID: a service whose supervisor is killed outright stops too (libs/runtime onShutdown).
    env: {
      ...process.env,
      OMP_THREAD_LIMIT: process.env.OMP_THREAD_LIMIT ?? '1',
      HEALTH_PORT: process.env.HEALTH_PORT ?? (name === 'gateway' ? '0' : String(9100 + index)),
      DOCFLEET_SUPERVISOR_PID: String(process.pid),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.set(name, child);
  say(name, `started (pid ${child.pid})`);
  for (const stream of [child.stdout!, child.stderr!]) {
    readline.createInterface({ input: stream }).on('line', (line) => say(name, line));
  }
  child.on('exit', (code, signal) => {
    if (children.get(name) === child) children.delete(name);
    say(name, `exited (${signal ?? code})`);
    if (stopping) return finish();
    const now = Date.now();
    const recent = (crashes.get(name) ?? []).filter((t) => now - t < CRASH_LOOP_WINDOW_MS).concat(now);
    crashes.set(name, recent);
    if (recent.length >= CRASH_LOOP_LIMIT) {
      return stopAll(
        1,
        `${name} crashed ${recent.length} times within ${CRASH_LOOP_WINDOW_MS / 1000} s (a crash loop); see its log lines above`,
      );
    }
    const delayMs = Math.min(30_000, 1000 * 2 ** (recent.length - 1));
    const n = (restarts.get(name) ?? 0) + 1;
    restarts.set(name, n);
    say(
      name,
      `crashed; restart ${n} in ${delayMs / 1000} s (${recent.length} crash${recent.length === 1 ? '' : 'es'} in the last ${CRASH_LOOP_WINDOW_MS / 1000} s)`,
    );
    const timer = setTimeout(() => {
      pendingRestarts.delete(timer);
      if (!stopping) start(name, index);
    }, delayMs);
    pendingRestarts.add(timer);
  });
}

process.on('SIGINT', () => stopAll(0, 'SIGINT'));
process.on('SIGTERM', () => stopAll(0, 'SIGTERM'));
process.on('SIGHUP', () => stopAll(0, 'SIGHUP'));
// If whatever started us goes away without a signal reaching us (pnpm killed with SIGKILL, a closed
// terminal), we are re-parented: stop rather than leave the fleet running unattended.
// START_WATCH_PID names one more process whose end stops the fleet (a test runner, a wrapper script
// that starts pnpm in its own process group and may die without cleaning up).
const parent = process.ppid;
const watched = Number(process.env.START_WATCH_PID) || 0;
const gone = (pid: number) => {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
};
setInterval(() => {
  if (process.ppid !== parent) stopAll(0, 'the parent process is gone');
  else if (watched && gone(watched)) stopAll(0, `the watched process ${watched} is gone`);
}, 1000).unref();
// Keep the event loop alive while services restart.
setInterval(() => undefined, 1 << 30);

process.stdout.write(`starting: ${services.join(', ')}\n`);
services.forEach((name, i) => start(name, i));
