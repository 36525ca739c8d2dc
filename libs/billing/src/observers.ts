/**
 * Who is told when credits move, for metrics (a service plugs in libs/runtime's
 * `createCreditMetrics(registry)`; this library stays free of a metrics client).
 *
 * Calls happen when the ledger row is written, inside its transaction: a transaction that rolls
 * back afterwards leaves the count ahead of the ledger. The ledger is the truth; these are rates.
 */
export interface CreditObserver {
  /** A debit row of `credits` was written. */
  debited(credits: number): void;
  /** A reversal (refund) row giving back `credits` was written. */
  refunded(credits: number): void;
}

const observers = new Set<CreditObserver>();

/** Registers an observer for every credit movement in this process; returns its removal. */
export function observeCredits(observer: CreditObserver): () => void {
  observers.add(observer);
  return () => void observers.delete(observer);
}

/** Called by the ledger writer; an observer that throws never breaks a credit write. */
export function reportCreditMovement(kind: string, amount: number): void {
  if (!observers.size || amount === 0) return;
  for (const o of observers) {
    try {
      if (kind === 'debit') o.debited(-amount);
      else if (kind === 'reversal') o.refunded(amount);
    } catch {
      // metrics must not fail a charge
    }
  }
}
