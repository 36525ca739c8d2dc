// 'billing.reap': jobs that died without a terminal state (libs/jobs), reservations left open behind
// finished jobs (libs/billing) and, when the queue can be asked, workflow operations whose attempt can
// no longer finish (libs/workflows, refunded there).
import { closeOrphanReservations } from '@docfleet/billing';
import { failAbandonedJobs } from '@docfleet/jobs';
import { reapOperations } from '@docfleet/workflows';
import type { Counter } from 'prom-client';
import type { BillingDeps } from '../deps';

/** Counters of what the reaper ended (worker.ts registers them). */
export interface ReapCounters {
  reaped: Counter;
  closed: Counter;
  opsReaped: Counter;
}

export async function reapAbandoned(deps: BillingDeps, counters: ReapCounters) {
  const { reaped, closed, opsReaped } = counters;
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
}
