import { closeOrphanReservations, reconcile, rollupUsage, rolloverPeriods } from '@docfleet/billing';
import { failAbandonedJobs } from '@docfleet/jobs';
import type { Db } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
import type { Handlers } from '@docfleet/queue';
import { reapOperations } from '@docfleet/workflows';
import { Counter, Gauge, type Registry } from 'prom-client';

export interface BillingDutyConfig {
  runningStaleMs: number;
  queuedStaleMs: number;
  /** An operation attempt without a heartbeat (or queued) this long, and no live queue entry, is reaped (WORKER_LOST_SECONDS). */
  operationLostMs?: number;
}

/** The billing queue's handlers; metrics go to `registry` so /metrics exposes them. */
/**
 * `hasLiveOperationJob` answers whether an operation attempt still has a live queue entry; with it
 * the reaper also ends (and refunds) operations whose attempt can no longer finish.
 */
export function createBillingHandlers(deps: {
  db: Db;
  logger: Logger;
  registry: Registry;
  config: BillingDutyConfig;
  hasLiveOperationJob?: (operationId: string, attempt: number) => Promise<boolean>;
}): Handlers<'billing'> {
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
    'billing.reap': duty('reap', async () => {
      const jobsFailed = await failAbandonedJobs(deps.db, deps.config);
      const r = { jobsFailed, ...(await closeOrphanReservations(deps.db, deps.config)) };
      reaped.inc(r.jobsFailed.length);
      closed.inc(r.reservationsClosed.length);
      if (r.jobsFailed.length || r.reservationsClosed.length)
        deps.logger.warn(
          { jobs: r.jobsFailed, reservations: r.reservationsClosed },
          'reaped abandoned jobs and reservations',
        );
      const operations = deps.hasLiveOperationJob
        ? await reapOperations(deps.db, {
            staleMs: deps.config.operationLostMs ?? deps.config.runningStaleMs,
            hasLiveJob: deps.hasLiveOperationJob,
          })
        : [];
      opsReaped.inc(operations.length);
      if (operations.length) deps.logger.warn({ operations }, 'reaped abandoned operations');
      return { ...r, operationsFailed: operations };
    }),
    'billing.rollover': duty('rollover', () => rolloverPeriods(deps.db)),
    'billing.rollup': duty('rollup', () => rollupUsage(deps.db)),
    'billing.reconcile': duty('reconcile', async () => {
      const found = await reconcile(deps.db);
      mismatches.set(found.length);
      // An alert line operators can match on (docs/operations.md): money and ledger disagree.
      for (const m of found)
        deps.logger.error({ alert: 'billing_reconciliation_mismatch', ...m }, 'ALERT billing reconciliation mismatch');
      return { mismatches: found.length };
    }),
  };
}
