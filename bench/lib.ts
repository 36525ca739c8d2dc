// Shared helpers for the benchmark modules in bench/ (run by bench/run.ts, `pnpm bench`).
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import globalSetup from '../libs/testing/src/global-setup';
import { DocfleetClient } from '../libs/sdk/src';
import { spawnGateway } from '../libs/testing/src';

/**
 * One line of a benchmark's result table. Every benchmark measures its subject beside a baseline
 * in the same run; `slowdown` is baseline throughput ÷ this row's throughput (1.00 for the
 * baseline itself, 4.00 = four times slower than the baseline). Absolute figures drift with the
 * load on the machine; the ratios are what to compare between runs.
 */
export interface Row {
  case: string;
  /** The reference this benchmark's other rows are compared with. */
  baseline?: boolean;
  throughput: number;
  unit: string;
  p50_ms?: number;
  p99_ms?: number;
  slowdown?: number;
  /** Requests or repetitions the figures are computed from. */
  samples?: number;
  note?: string;
  /** Profile details (sizes, query plan, raw samples) kept in the JSON output only. */
  extra?: Record<string, unknown>;
}

export interface BenchModule {
  name: string;
  run(): Promise<Row[]>;
}

export function percentile(values: number[], p: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx];
}

export const median = (values: number[]) => percentile(values, 50);

export const round = (n: number, digits = 2) => (Number.isFinite(n) ? Math.round(n * 10 ** digits) / 10 ** digits : n);

/** Fills in `slowdown` on every row from the row marked baseline. */
export function withSlowdown(rows: Row[]): Row[] {
  const base = rows.find((r) => r.baseline);
  if (!base) return rows;
  return rows.map((r) => ({ ...r, slowdown: round(base.throughput / r.throughput) }));
}

let template: Promise<void> | undefined;

/**
 * Rebuilds the migrated template database once per process (what jest's global setup does; the
 * swap is safe against test runs cloning it at the same moment), so benchmarks run on the
 * migrations as they are now.
 */
export function ensureTemplate(): Promise<void> {
  return (template ??= globalSetup());
}

/**
 * The real gateway as its own process (libs/testing spawnGateway, what `pnpm start` runs) on an
 * ephemeral port over a fresh database, with a database pool of 4 connections. With `keepDatabase`,
 * over that named database, kept on close (see spawnGateway).
 */
export async function startBenchGateway(env: Record<string, string> = {}, o: { keepDatabase?: string } = {}) {
  await ensureTemplate();
  return spawnGateway({ env: { DB_POOL_MAX: '4', ...env }, keepDatabase: o.keepDatabase });
}

/** The SDK on a gateway at `url`, polling fast (operations and jobs finish in milliseconds here). */
export function benchClient(url: string, key: string): DocfleetClient {
  return new DocfleetClient({
    baseUrl: url,
    apiKey: key,
    polling: { initialIntervalMs: 100, maxIntervalMs: 250, factor: 1.2, timeoutMs: 120_000 },
  });
}

export interface LoadResult {
  requests: number;
  errors: number;
  rps: number;
  p50_ms: number;
  p99_ms: number;
  seconds: number;
  /** Share of the time this process's event loop (the gateway's too, when it runs in this process) was busy. */
  loop_busy: number;
  rounds?: number;
}

/** Runs fn and reports how busy this thread's event loop was meanwhile (0..1). */
async function measuringLoop<T>(fn: () => Promise<T>): Promise<T & { loop_busy: number }> {
  const before = performance.eventLoopUtilization();
  const r = await fn();
  return { ...r, loop_busy: performance.eventLoopUtilization(before).utilization };
}

/**
 * A closed loop: `concurrency` callers each await fn() back to back for `seconds` (after an
 * unmeasured warm-up), the same shape of load autocannon puts on the HTTP server.
 */
export async function closedLoop(
  fn: () => Promise<unknown>,
  o: { concurrency: number; seconds: number; warmupSeconds?: number },
): Promise<LoadResult> {
  const runFor = async (seconds: number, record: boolean) => {
    const latencies: number[] = [];
    let errors = 0;
    const start = process.hrtime.bigint();
    const deadline = start + BigInt(Math.round(seconds * 1e9));
    await Promise.all(
      Array.from({ length: o.concurrency }, async () => {
        while (process.hrtime.bigint() < deadline) {
          const t0 = process.hrtime.bigint();
          try {
            await fn();
            if (record) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
          } catch (err) {
            errors++;
            if (errors === 1) process.stderr.write(`bench: call failed: ${(err as Error).message}\n`);
          }
        }
      }),
    );
    const elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    return { latencies, errors, elapsed };
  };
  if (o.warmupSeconds) await runFor(o.warmupSeconds, false);
  const r = await measuringLoop(() => runFor(o.seconds, true));
  return {
    requests: r.latencies.length,
    errors: r.errors,
    rps: r.latencies.length / r.elapsed,
    p50_ms: percentile(r.latencies, 50),
    p99_ms: percentile(r.latencies, 99),
    seconds: r.elapsed,
    loop_busy: r.loop_busy,
  };
}

/**
 * HTTP load with autocannon, in a worker thread so that its client work does not share the event
 * loop with a gateway under test running in this process (the gateway's own benchmarks).
 */
export async function httpLoad(
  url: string,
  o: {
    headers?: Record<string, string>;
    connections: number;
    seconds: number;
    warmupSeconds?: number;
    notModifiedIsOk?: boolean;
  },
): Promise<LoadResult & { bytes_per_response: number }> {
  const run = (duration: number) =>
    autocannon({
      url,
      headers: o.headers,
      connections: o.connections,
      duration,
      workers: 1,
      timeout: 30,
    }) as unknown as Promise<autocannon.Result>;
  if (o.warmupSeconds) await run(o.warmupSeconds);
  const r = await measuringLoop(async () => ({ r: await run(o.seconds) }));
  const res = r.r;
  // A conditional poll answered 304 is a success; autocannon counts it as non-2xx.
  const notModified = o.notModifiedIsOk ? ((res as unknown as Record<string, number>)['3xx'] ?? 0) : 0;
  const ok = res['2xx'] + notModified;
  return {
    requests: ok,
    errors: res.non2xx - notModified + res.errors + res.timeouts,
    rps: ok / (res.duration || o.seconds),
    p50_ms: res.latency.p50,
    p99_ms: res.latency.p99,
    seconds: res.duration,
    loop_busy: r.loop_busy,
    bytes_per_response: res.requests.total ? res.throughput.total / res.requests.total : 0,
  };
}

export interface LoadCase<R extends LoadResult = LoadResult> {
  label: string;
  /** One measured stretch of `seconds` (warm-up seconds first when given). */
  measure(seconds: number, warmupSeconds?: number): Promise<R>;
}

/**
 * Measures every case in `rounds` round-robin stretches (A B C A B C ...), so a change in the
 * background load of a shared machine hits every case alike instead of skewing the ratios.
 * Throughput is total requests over total time; p50 is the median of the rounds' p50s and p99
 * the worst round's p99.
 */
export async function roundRobin<R extends LoadResult>(
  cases: LoadCase<R>[],
  o: { rounds: number; seconds: number; warmupSeconds: number },
) {
  const per = o.seconds / o.rounds;
  const results: R[][] = cases.map(() => []);
  for (let k = 0; k < o.rounds; k++) {
    for (const [i, c] of cases.entries()) results[i].push(await c.measure(per, k === 0 ? o.warmupSeconds : undefined));
  }
  return results.map((rs) => {
    const requests = rs.reduce((s, r) => s + r.requests, 0);
    const seconds = rs.reduce((s, r) => s + r.seconds, 0);
    return {
      ...rs[0],
      requests,
      errors: rs.reduce((s, r) => s + r.errors, 0),
      rps: requests / seconds,
      p50_ms: median(rs.map((r) => r.p50_ms)),
      p99_ms: Math.max(...rs.map((r) => r.p99_ms)),
      seconds,
      loop_busy: rs.reduce((s, r) => s + r.loop_busy * r.seconds, 0) / seconds,
      rounds: rs.length,
      per_round_rps: rs.map((r) => round(r.rps, 1)),
    };
  });
}

export function machine() {
  return {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model,
    loadavg: os.loadavg().map((l) => round(l)),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
  };
}
