import type { Db } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { monthStart, reservedHold } from './accounts';

export async function getCredits(db: Db, orgId: string) {
  const acc = await db.creditAccount.findUnique({ where: { org_id: orgId } });
  const hold = await reservedHold(db, orgId);
  const now = new Date();
  const periodEnded = acc ? monthStart(now) > acc.period_start : false;
  return {
    credits: {
      balance_credits: acc?.balance_credits ?? 0,
      reserved_credits: hold,
      total_used_credits: acc?.total_used_credits ?? 0,
      monthly_used_credits: acc && !periodEnded ? acc.monthly_used_credits : 0,
      monthly_quota_credits: acc?.monthly_quota_credits ?? null,
    },
    subscription: (acc?.subscription as object | null | undefined) ?? null,
  };
}

export interface LedgerPage<T> {
  entries: T[];
  next_cursor: string | null;
}

function encodeCursor(createdAt: Date, id: string) {
  return Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString('base64url');
}
function decodeCursor(cursor: string): [Date, string] | null {
  try {
    const [ts, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString()) as [string, string];
    return [new Date(ts), id];
  } catch {
    return null;
  }
}

export async function listLedger(db: Db, orgId: string, opts: { limit: number; cursor?: string }) {
  const c = opts.cursor ? decodeCursor(opts.cursor) : null;
  const rows = await db.ledgerEntry.findMany({
    where: {
      org_id: orgId,
      ...(c ? { OR: [{ created_at: { lt: c[0] } }, { created_at: c[0], id: { lt: c[1] } }] } : {}),
    },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    take: opts.limit + 1,
  });
  const page = rows.slice(0, opts.limit);
  return {
    entries: page.map((e) => ({
      id: e.id,
      kind: e.kind,
      amount_credits: e.amount_credits,
      balance_after: e.balance_after,
      idempotency_key: e.idempotency_key,
      reason: e.reason,
      file_id: e.file_id,
      job_id: e.job_id,
      operation_id: e.operation_id,
      created_at: e.created_at.toISOString(),
    })),
    next_cursor:
      rows.length > opts.limit ? encodeCursor(page[page.length - 1].created_at, page[page.length - 1].id) : null,
  };
}

/**
 * Grouped activity per UTC day. Finished days come from the usage_daily roll-up (services/billing);
 * days the roll-up has not finalised yet are computed live from the ledger, so the view is exact
 * even when the billing service is behind.
 */
export async function ledgerByDay(db: Db, orgId: string, opts: { limit: number; cursor?: string }) {
  const before = opts.cursor ? new Date(Buffer.from(opts.cursor, 'base64url').toString()) : null;
  if (before && Number.isNaN(before.getTime())) throw new ApiError('invalid_request', 'Invalid cursor.');
  const rows = await db.$queryRaw<
    { day: Date; debited: bigint; refunded: bigint; granted: bigint; adjusted: bigint; entry_count: bigint }[]
  >`
    WITH final AS (
      SELECT day, debited_credits::bigint AS debited, refunded_credits::bigint AS refunded, granted_credits::bigint AS granted,
        adjusted_credits::bigint AS adjusted, entry_count::bigint AS entry_count
      FROM usage_daily WHERE org_id = ${orgId}::uuid AND updated_at >= (day + 1)::timestamp AT TIME ZONE 'UTC'
    ), live AS (
      SELECT (created_at AT TIME ZONE 'UTC')::date AS day,
        COALESCE(SUM(-amount_credits) FILTER (WHERE kind = 'debit'), 0) AS debited,
        COALESCE(SUM(amount_credits) FILTER (WHERE kind = 'reversal'), 0) AS refunded,
        COALESCE(SUM(amount_credits) FILTER (WHERE kind = 'grant'), 0) AS granted,
        COALESCE(SUM(amount_credits) FILTER (WHERE kind = 'adjustment'), 0) AS adjusted,
        COUNT(*) AS entry_count
      FROM ledger_entries WHERE org_id = ${orgId}::uuid
        AND created_at >= COALESCE(((SELECT max(day) FROM final) + 1)::timestamp AT TIME ZONE 'UTC', '-infinity')
      GROUP BY 1
    )
    SELECT * FROM (SELECT * FROM final UNION ALL SELECT * FROM live) d
    WHERE (${before}::date IS NULL OR d.day < ${before}::date)
    ORDER BY day DESC LIMIT ${opts.limit + 1}`;
  const page = rows.slice(0, opts.limit);
  const iso = (d: Date) => d.toISOString().slice(0, 10);
  return {
    entries: page.map((r) => ({
      day: iso(r.day),
      debited_credits: Number(r.debited),
      refunded_credits: Number(r.refunded),
      granted_credits: Number(r.granted),
      adjusted_credits: Number(r.adjusted),
      net_used_credits: Number(r.debited) - Number(r.refunded),
      entry_count: Number(r.entry_count),
    })),
    next_cursor: rows.length > opts.limit ? Buffer.from(iso(page[page.length - 1].day)).toString('base64url') : null,
  };
}
