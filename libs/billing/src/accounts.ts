import type { Db, Tx } from '@docfleet/db';

export interface AccountRow {
  id: string;
  org_id: string;
  balance_credits: number;
  total_used_credits: number;
  monthly_used_credits: number;
  monthly_quota_credits: number | null;
  period_start: Date;
}

/** First instant of the UTC calendar month containing d. Quota periods are calendar months. */
export function monthStart(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}

/**
 * Locks the organisation's credit account row for the rest of the transaction (creating it when
 * missing) and rolls the monthly period over if it has ended. Every credit write goes through
 * here, so concurrent charges serialise on one row and can never over-spend or over-reserve.
 */
export async function lockAccount(tx: Tx, orgId: string, now = new Date()): Promise<AccountRow> {
  await tx.$executeRaw`INSERT INTO credit_accounts (id, org_id, period_start, updated_at)
    VALUES (gen_random_uuid(), ${orgId}::uuid, ${monthStart(now)}, now()) ON CONFLICT (org_id) DO NOTHING`;
  const rows = await tx.$queryRaw<
    AccountRow[]
  >`SELECT id, org_id, balance_credits, total_used_credits, monthly_used_credits,
    monthly_quota_credits, period_start FROM credit_accounts WHERE org_id = ${orgId}::uuid FOR UPDATE`;
  const acc = rows[0];
  if (monthStart(now) > acc.period_start) {
    await tx.creditAccount.update({
      where: { id: acc.id },
      data: { period_start: monthStart(now), monthly_used_credits: 0 },
    });
    acc.period_start = monthStart(now);
    acc.monthly_used_credits = 0;
  }
  return acc;
}

/** Credits held by open reservations (reserved minus what they already debited). */
export async function reservedHold(tx: Tx | Db, orgId: string): Promise<number> {
  const rows = await tx.$queryRaw<
    { hold: bigint | number | null }[]
  >`SELECT COALESCE(SUM(amount_credits - debited_credits), 0) AS hold
    FROM credit_reservations WHERE org_id = ${orgId}::uuid AND status = 'reserved'`;
  return Number(rows[0]?.hold ?? 0);
}
