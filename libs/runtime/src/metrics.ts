import { Counter, Histogram, type Registry } from 'prom-client';

// The fleet's shared metric definitions (docs/operations.md, Metrics). Libraries that must not
// depend on prom-client (libs/queue, libs/billing) report through small structural interfaces;
// these functions are the prom-client side a service plugs into them.

/** Matches libs/queue's JobObservation (kept structural: runtime does not depend on the queue lib). */
export interface JobObservationLike {
  queue: string;
  job: string;
  outcome: 'completed' | 'failed' | 'delayed';
  final: boolean;
  seconds: number;
}

const jobMetricsByRegistry = new WeakMap<Registry, { observe(o: JobObservationLike): void }>();

/**
 * Job duration and counts for createWorker's `metrics` option, in `registry`:
 * docfleet_job_duration_seconds{queue,job,outcome}, docfleet_jobs_completed_total{queue,job},
 * docfleet_jobs_failed_total{queue,job,final}. One set per registry however often it is called.
 */
export function createJobMetrics(registry: Registry): { observe(o: JobObservationLike): void } {
  const existing = jobMetricsByRegistry.get(registry);
  if (existing) return existing;
  const duration = new Histogram({
    name: 'docfleet_job_duration_seconds',
    help: 'Time a handler ran, by queue, job name and outcome (completed, failed, delayed)',
    labelNames: ['queue', 'job', 'outcome'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
    registers: [registry],
  });
  const completed = new Counter({
    name: 'docfleet_jobs_completed_total',
    help: 'Handler runs that returned, by queue and job name',
    labelNames: ['queue', 'job'],
    registers: [registry],
  });
  const failed = new Counter({
    name: 'docfleet_jobs_failed_total',
    help: 'Handler runs that threw, by queue and job name; final="true" when BullMQ will not retry',
    labelNames: ['queue', 'job', 'final'],
    registers: [registry],
  });
  const metrics = {
    observe(o: JobObservationLike) {
      duration.observe({ queue: o.queue, job: o.job, outcome: o.outcome }, o.seconds);
      if (o.outcome === 'completed') completed.inc({ queue: o.queue, job: o.job });
      else if (o.outcome === 'failed') failed.inc({ queue: o.queue, job: o.job, final: String(o.final) });
    },
  };
  jobMetricsByRegistry.set(registry, metrics);
  return metrics;
}

const creditMetricsByRegistry = new WeakMap<
  Registry,
  { debited(credits: number): void; refunded(credits: number): void }
>();

/**
 * docfleet_credits_debited_total and docfleet_credits_refunded_total in `registry`, shaped as
 * libs/billing's CreditObserver: `observeCredits(createCreditMetrics(registry))`.
 */
export function createCreditMetrics(registry: Registry): {
  debited(credits: number): void;
  refunded(credits: number): void;
} {
  const existing = creditMetricsByRegistry.get(registry);
  if (existing) return existing;
  const debited = new Counter({
    name: 'docfleet_credits_debited_total',
    help: 'Credits debited by this process (ledger debit rows written)',
    registers: [registry],
  });
  const refunded = new Counter({
    name: 'docfleet_credits_refunded_total',
    help: 'Credits given back by this process (ledger reversal rows written)',
    registers: [registry],
  });
  const metrics = { debited: (n: number) => debited.inc(n), refunded: (n: number) => refunded.inc(n) };
  creditMetricsByRegistry.set(registry, metrics);
  return metrics;
}

/**
 * The value of one sample in Prometheus text format: the first line of `name` whose labels include
 * every pair of `labels` (in any order; other labels such as `service` ignored). NaN when absent.
 * For tests and benchmarks that scrape /metrics.
 */
export function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return NaN;
}
