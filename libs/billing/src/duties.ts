import type { Db } from '@docfleet/db';
import { monthStart } from './accounts';
import { finalizeReservation } from './reservations';

// The ledger's background duties, run on a schedule by services/billing.

export interface ReapOptions {
  now?: Date;
  /** A reservation open behind a terminal or missing job is closed once it is this old. */
  runningStaleMs: number;
}

/**
 * Closes reservations left open behind terminal or missing jobs (libs/jobs failAbandonedJobs ends
 * the dead jobs themselves, their reservations with them).
 */
export async function closeOrphanReservations(db: Db, opts: ReapOptions) {
  const now = opts.now ?? new Date();
  const running = new Date(now.getTime() - opts.runningStaleMs);
  // Reservations still open although their job is terminal or gone.
  const orphans = await db.$queryRaw<{ id: string; job_id: string | null; job_status: string | null }[]>`
    SELECT r.id, r.job_id, j.status AS job_status FROM credit_reservations r
    LEFT JOIN jobs j ON j.id = r.job_id
    WHERE r.status = 'reserved' AND (j.id IS NULL OR j.status IN ('completed', 'failed', 'cancelled'))
      AND r.created_at < ${running}
    LIMIT 500`;
  const reservationsClosed: string[] = [];
  for (const o of orphans) {
    await db.$transaction(async (tx) => {
      if (o.job_id && o.job_status) {
        await finalizeReservation(tx, {
          jobId: o.job_id,
          outcome: o.job_status as 'completed' | 'failed' | 'cancelled',
        });
      } else {
        await tx.creditReservation.updateMany({
          where: { id: o.id, status: 'reserved' },
          data: { status: 'released', finalized_at: now },
        });
      }
    });
    reservationsClosed.push(o.id);
  }
  return { reservationsClosed };
}

/** Starts a new monthly quota period for every account whose period has ended. */
export async function rolloverPeriods(db: Db, now = new Date()) {
  const start = monthStart(now);
  const n =
    await db.$executeRaw`UPDATE credit_accounts SET monthly_used_credits = 0, period_start = ${start}, updated_at = now()
    WHERE period_start < ${start}`;
  return { accountsRolled: n };
}

/**
 * Recomputes usage_daily from the ledger for the days since `since` (default: the last 2 days).
 * A row whose updated_at is after its day ended is final; reads use final rows and compute the rest live.
 */
export async function rollupUsage(db: Db, opts: { since?: Date } = {}) {
  const since = opts.since ?? new Date(Date.now() - 2 * 86400_000);
  const n = await db.$executeRaw`
    INSERT INTO usage_daily (org_id, day, debited_credits, refunded_credits, granted_credits, adjusted_credits, entry_count, updated_at)
    SELECT org_id, (created_at AT TIME ZONE 'UTC')::date AS day,
      COALESCE(SUM(-amount_credits) FILTER (WHERE kind = 'debit'), 0),
      COALESCE(SUM(amount_credits) FILTER (WHERE kind = 'reversal'), 0),
      COALESCE(SUM(amount_credits) FILTER (WHERE kind = 'grant'), 0),
      COALESCE(SUM(amount_credits) FILTER (WHERE kind = 'adjustment'), 0),
      COUNT(*), now()
    FROM ledger_entries WHERE (created_at AT TIME ZONE 'UTC')::date >= (${since}::timestamptz AT TIME ZONE 'UTC')::date
    GROUP BY 1, 2
    ON CONFLICT (org_id, day) DO UPDATE SET debited_credits = EXCLUDED.debited_credits, refunded_credits = EXCLUDED.refunded_credits,
      granted_credits = EXCLUDED.granted_credits, adjusted_credits = EXCLUDED.adjusted_credits, entry_count = EXCLUDED.entry_count, updated_at = now()`;
  return { daysWritten: n };
}

export interface Mismatch {
  kind: 'balance' | 'total_used' | 'reservation_debits' | 'reservation_overdrawn';
  org_id: string;
  reservation_id?: string;
  expected: number;
  actual: number;
}

/**
 * Every account's balance must equal the sum of its ledger, its lifetime use the net of its debits
 * and reversals, and every reservation's debits must match its ledger rows and stay within it.
 */
export async function reconcile(db: Db): Promise<Mismatch[]> {
  const accounts = await db.$queryRaw<
    { org_id: string; balance: number; used: number; ledger_sum: bigint | null; ledger_used: bigint | null }[]
  >`
    SELECT a.org_id, a.balance_credits AS balance, a.total_used_credits AS used,
      (SELECT SUM(amount_credits) FROM ledger_entries l WHERE l.org_id = a.org_id) AS ledger_sum,
      (SELECT SUM(-amount_credits) FROM ledger_entries l WHERE l.org_id = a.org_id AND l.kind IN ('debit', 'reversal')) AS ledger_used
    FROM credit_accounts a`;
  const out: Mismatch[] = [];
  for (const a of accounts) {
    const sum = Number(a.ledger_sum ?? 0);
    if (sum !== a.balance) out.push({ kind: 'balance', org_id: a.org_id, expected: sum, actual: a.balance });
    const used = Number(a.ledger_used ?? 0);
    if (used !== a.used) out.push({ kind: 'total_used', org_id: a.org_id, expected: used, actual: a.used });
  }
  const reservations = await db.$queryRaw<
    { id: string; org_id: string; amount: number; debited: number; ledger_debits: bigint | null }[]
  >`
    SELECT r.id, r.org_id, r.amount_credits AS amount, r.debited_credits AS debited,
      (SELECT SUM(-amount_credits) FROM ledger_entries l WHERE l.reservation_id = r.id AND l.kind = 'debit') AS ledger_debits
    FROM credit_reservations r`;
  for (const r of reservations) {
    const debits = Number(r.ledger_debits ?? 0);
    if (debits !== r.debited)
      out.push({
        kind: 'reservation_debits',
        org_id: r.org_id,
        reservation_id: r.id,
        expected: debits,
        actual: r.debited,
      });
    if (r.debited > r.amount)
      out.push({
        kind: 'reservation_overdrawn',
        org_id: r.org_id,
        reservation_id: r.id,
        expected: r.amount,
        actual: r.debited,
      });
  }
  return out;
}
