// GATEWAY_PROCESSES > 1: this process becomes a small primary that runs that many gateway processes
// (node:cluster) sharing PORT, replaces one that exits unexpectedly, and stops them all on SIGTERM or
// SIGINT (issue 22.5: one process's single thread limited searches at 32 callers). Each process is
// the whole gateway (main.ts's serve()): its own database pool, Redis connections, API key cache and
// in-memory search copies; the rate limit and event streams already work across replicas through Redis.
import cluster, { type Worker } from 'node:cluster';
import { SHUTDOWN_MESSAGE, onShutdown } from '@docfleet/runtime';
import type { Logger } from '@docfleet/logger';

export interface PrimaryOptions {
  processes: number;
  logger: Logger;
  /** A process that exits unexpectedly this many times within the window stops the whole gateway. */
  crashLoopLimit?: number;
  crashLoopWindowMs?: number;
  /** How long the processes get to drain before they are killed (each drains for 25 s itself). */
  graceMs?: number;
}

export function runPrimary(opts: PrimaryOptions): void {
  const { logger, processes } = opts;
  const limit = opts.crashLoopLimit ?? 5;
  const windowMs = opts.crashLoopWindowMs ?? 60_000;
  const graceMs = opts.graceMs ?? 28_000;
  const slots = new Map<Worker, number>();
  const crashes: number[] = [];
  let stopping = false;
  let allExited: () => void = () => undefined;
  const exited = new Promise<void>((resolve) => (allExited = resolve));

  const fork = (slot: number) => {
    const w = cluster.fork({ GATEWAY_PROCESS_INDEX: String(slot) });
    slots.set(w, slot);
  };

  cluster.on('exit', (w, code, signal) => {
    const slot = slots.get(w) ?? 0;
    slots.delete(w);
    if (stopping) {
      if (slots.size === 0) allExited();
      return;
    }
    const now = Date.now();
    crashes.push(now);
    while (crashes.length && crashes[0] < now - windowMs) crashes.shift();
    if (crashes.length >= limit) {
      logger.error(
        { slot, code, signal },
        `gateway processes exited ${crashes.length} times within ${windowMs / 1000} s: stopping`,
      );
      process.exitCode = 1;
      process.kill(process.pid, 'SIGTERM');
      return;
    }
    const delay = Math.min(200 * 2 ** (crashes.length - 1), 5_000);
    logger.warn({ slot, pid: w.process.pid, code, signal, delay }, 'gateway process exited: replacing it');
    setTimeout(() => !stopping && fork(slot), delay).unref();
  });

  for (let i = 0; i < processes; i++) fork(i);
  logger.info({ processes, pid: process.pid }, 'gateway primary: processes started');

  onShutdown(async (signal) => {
    stopping = true;
    logger.info({ signal, processes: slots.size }, 'gateway primary: stopping every process');
    if (slots.size === 0) return;
    // Asked over IPC, not signalled: a process that also got the terminal's SIGINT drains once.
    for (const w of slots.keys()) if (w.isConnected()) w.send(SHUTDOWN_MESSAGE);
    const killer = setTimeout(() => {
      for (const w of slots.keys()) w.process.kill('SIGKILL');
    }, graceMs);
    await exited;
    clearTimeout(killer);
    if (process.exitCode) throw new Error('crash loop');
  }, graceMs + 2_000);
}
