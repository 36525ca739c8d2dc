import { rollupUsage, rolloverPeriods } from '@docfleet/billing';
import { createWorker, type Handlers, type WorkerOptions } from '@docfleet/queue';
import { Counter, Gauge } from 'prom-client';
import type { BillingDeps } from './deps';
import { reapAbandoned } from './jobs/billing-reap.handler';
import { reconcileLedger } from './jobs/billing-reconcile.handler';

export type { BillingDutyConfig } from './deps';

/** The billing queue's handlers (one per duty); metrics go to `deps.registry` so /metrics exposes them. */
export function createBillingHandlers(deps: BillingDeps): Handlers<'billing'> {
  const mismatches = new Gauge({
    name: 'docfleet_billing_reconciliation_mismatches',
    help: 'Ledger/account/reservation mismatches found by the last reconciliation',
    registers: [deps.registry],
  });
  const reaped = new Counter({
    name: 'docfleet_billing_jobs_reaped_total',
    help: 'Jobs failed by the reaper because they died without a terminal state',
    registers: [deps.registry],
  });
  const opsReaped = new Counter({
    name: 'docfleet_billing_operations_reaped_total',
    help: 'Operations failed (and refunded) by the reaper because their attempt could no longer finish',
    registers: [deps.registry],
  });
  const closed = new Counter({
    name: 'docfleet_billing_reservations_closed_total',
    help: 'Reservations closed by the reaper',
    registers: [deps.registry],
  });
  const runs = new Counter({
    name: 'docfleet_billing_duty_runs_total',
    help: 'Billing duty runs by duty and outcome',
    labelNames: ['duty', 'outcome'],
    registers: [deps.registry],
  });

  const duty =
    <T>(name: string, fn: () => Promise<T>) =>
    async () => {
      try {
        const out = await fn();
        runs.inc({ duty: name, outcome: 'ok' });
        return out;
      } catch (err) {
        runs.inc({ duty: name, outcome: 'error' });
        deps.logger.error({ err, duty: name }, 'billing duty failed');
        throw err;
      }
    };

  return {
    'billing.reap': duty('reap', () => reapAbandoned(deps, { reaped, closed, opsReaped })),
    'billing.rollover': duty('rollover', () => rolloverPeriods(deps.db)),
    'billing.rollup': duty('rollup', () => rollupUsage(deps.db)),
    'billing.reconcile': duty('reconcile', () => reconcileLedger(deps, mismatches)),
  };
}

export interface BillingWorkerOptions {
  connection: WorkerOptions['connection'];
  prefix: string;
  /** Job duration and counts (libs/runtime createJobMetrics). */
  metrics?: WorkerOptions['metrics'];
}

/** The 'billing' queue consumer (main.ts starts it; the schedules that feed it are kept there). */
export function startBillingWorker(deps: BillingDeps, o: BillingWorkerOptions): ReturnType<typeof createWorker> {
  const worker = createWorker('billing', createBillingHandlers(deps), {
    connection: o.connection,
    prefix: o.prefix,
    metrics: o.metrics,
  });
  worker.on('failed', (job, err) => deps.logger.error({ job: job?.name, err }, 'billing job failed'));
  return worker;
}
