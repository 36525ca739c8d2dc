import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry, collectDefaultMetrics } from 'prom-client';

export * from './metrics';
// One prom-client for the fleet: services without their own dependency on it define metrics with these.
export { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type ReadyCheck = () => Promise<void>;

/**
 * Calls `beat` now and then every `everyMs` until the returned stop() is called: a running job or
 * operation says its worker is alive (heartbeat_at), so a dead worker is noticed in seconds. A
 * failed beat is reported and the next one tried; beats never overlap.
 */
export function startHeartbeat(
  beat: () => Promise<unknown>,
  everyMs: number,
  onError: (err: unknown) => void = () => undefined,
): () => void {
  let stopped = false;
  let running: Promise<void> | undefined;
  const tick = () => {
    if (stopped || running) return;
    running = beat()
      .then(() => undefined, onError)
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/**
 * The small HTTP server every worker exposes on HEALTH_PORT: /healthz (alive), /readyz (every
 * check passes: database, Redis, …) and /metrics (Prometheus text format).
 */
export async function startHealthServer(opts: {
  port: number;
  host?: string;
  checks: Record<string, ReadyCheck>;
  registry?: Registry;
}): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  const registry = opts.registry ?? new Registry();
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    if (path === '/readyz') {
      const checks: Record<string, string> = {};
      for (const [name, check] of Object.entries(opts.checks)) {
        try {
          await check();
          checks[name] = 'ok';
        } catch (e) {
          checks[name] = (e as Error).message;
        }
      }
      const ok = Object.values(checks).every((v) => v === 'ok');
      return void res
        .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: ok ? 'ok' : 'unavailable', checks }));
    }
    if (path === '/metrics') {
      const body = await registry.metrics();
      return void res.writeHead(200, { 'content-type': registry.contentType }).end(body);
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found","code":"route_not_found"}');
  });
  await new Promise<void>((resolve) => server.listen(opts.port, opts.host ?? '0.0.0.0', resolve));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// The parts every worker's composition root (services/*/src/main.ts) shared line for line: the
// start-failure exit, the health server with its database and Redis checks, and the end of the
// shutdown once the worker's own loops have stopped. Structural types: runtime depends on no lib.

/** Runs a service's `main`: a failure to start is one line on stderr and exit code 1. */
export function runService(name: string, main: () => Promise<void>): void {
  main().catch((err) => {
    process.stderr.write(`${name} failed to start: ${(err as Error).message}\n`);
    process.exit(1);
  });
}

export interface PingableDb {
  $queryRaw(query: TemplateStringsArray, ...values: unknown[]): PromiseLike<unknown>;
}
export interface PingableRedis {
  ping(): Promise<string>;
}

/** A worker's HEALTH_PORT server: /readyz answers `{ database, redis }` (the k8s readiness probe). */
export function startWorkerHealth(opts: { port: number; registry: Registry; db: PingableDb; redis: PingableRedis }) {
  return startHealthServer({
    port: opts.port,
    registry: opts.registry,
    checks: {
      database: async () => void (await opts.db.$queryRaw`SELECT 1`),
      redis: async () => {
        if ((await opts.redis.ping()) !== 'PONG') throw new Error('unexpected reply');
      },
    },
  });
}

/**
 * The end of a worker's shutdown, after it stopped taking jobs: health server, queue client and
 * Redis connections (their failures do not matter any more), the database (a failure there exits
 * 1 through onShutdown), and telemetry last so the shutdown's own spans are flushed.
 */
export async function closeWorkerConnections(c: {
  health: { close(): Promise<void> };
  queues: { close(): Promise<unknown> };
  redis: Array<{ quit(): Promise<unknown> }>;
  db: { $disconnect(): Promise<void> };
  telemetry: { shutdown(): Promise<unknown> };
}): Promise<void> {
  await c.health.close();
  await c.queues.close().catch(() => undefined);
  await Promise.all(c.redis.map((r) => r.quit().catch(() => undefined)));
  await c.db.$disconnect();
  await c.telemetry.shutdown();
}

/** A registry with the process's default metrics, labelled with the service name. */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** The IPC message a supervisor (the gateway's cluster primary) sends a process to shut down gracefully. */
export const SHUTDOWN_MESSAGE = 'docfleet:shutdown';

/** Runs `stop` once on SIGTERM/SIGINT, then exits; a second signal or the grace period forces exit. */
export function onShutdown(
  stop: (signal: string) => Promise<void>,
  graceMs = 30_000,
  log: (msg: string) => void = () => undefined,
) {
  let stopping = false;
  const handler = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    log(`${signal}: shutting down (grace ${graceMs} ms)`);
    setTimeout(() => process.exit(1), graceMs).unref();
    stop(signal).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // A supervisor's request (a gateway's cluster primary, over IPC) starts the same shutdown; unlike a
  // second signal it never forces exit, so Ctrl-C (SIGINT to the whole group) plus the request drains.
  if (process.send) {
    process.on('message', (m: unknown) => {
      if (m === SHUTDOWN_MESSAGE && !stopping) handler('supervisor request');
    });
  }
  process.on('SIGTERM', () => handler('SIGTERM'));
  process.on('SIGINT', () => handler('SIGINT'));
  // Started by `pnpm start`'s supervisor: when it is killed outright (SIGKILL, OOM) we are re-parented
  // and nobody would ever stop us; shut down as if signalled rather than run on unattended.
  const supervisor = Number(process.env.DOCFLEET_SUPERVISOR_PID) || 0;
  if (supervisor && process.ppid === supervisor) {
    setInterval(() => {
      if (process.ppid !== supervisor && !stopping) handler('supervisor gone');
    }, 1000).unref();
  }
}
