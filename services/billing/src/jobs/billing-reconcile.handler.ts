// 'billing.reconcile': balances against the ledger (libs/billing reconcile); every mismatch is an alert.
import { reconcile } from '@docfleet/billing';
import type { Gauge } from 'prom-client';
import type { BillingDeps } from '../deps';

export async function reconcileLedger(deps: Pick<BillingDeps, 'db' | 'logger'>, mismatches: Gauge) {
  const found = await reconcile(deps.db);
  mismatches.set(found.length);
  // An alert line operators can match on (docs/operations.md): money and ledger disagree.
  for (const m of found)
    deps.logger.error({ alert: 'billing_reconciliation_mismatch', ...m }, 'ALERT billing reconciliation mismatch');
  return { mismatches: found.length };
}
