import type { Db, Tx } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { noteAvailableCredits } from '@docfleet/webhooks';
import { lockAccount, reservedHold, type AccountRow } from './accounts';
import { creditTransaction } from './credit-transaction';
import { reportCreditMovement } from './observers';

export type LedgerKind = 'grant' | 'debit' | 'reversal' | 'adjustment';

export interface EntryRefs {
  fileId?: string | null;
  jobId?: string | null;
  operationId?: string | null;
  reservationId?: string | null;
}

async function findEntry(tx: Tx, orgId: string, key: string) {
  return tx.ledgerEntry.findUnique({ where: { org_id_idempotency_key: { org_id: orgId, idempotency_key: key } } });
}

/** Writes one ledger row and moves the account balance by the same signed amount. */
async function writeEntry(
  tx: Tx,
  acc: AccountRow,
  kind: LedgerKind,
  amount: number,
  key: string,
  reason: string,
  refs: EntryRefs,
) {
  const balance = acc.balance_credits + amount;
  const used = kind === 'debit' ? -amount : kind === 'reversal' ? -amount : 0;
  await tx.creditAccount.update({
    where: { id: acc.id },
    data: {
      balance_credits: balance,
      total_used_credits: { increment: used },
      monthly_used_credits: { increment: used },
    },
  });
  acc.balance_credits = balance;
  acc.total_used_credits += used;
  acc.monthly_used_credits += used;
  const entry = await tx.ledgerEntry.create({
    data: {
      org_id: acc.org_id,
      kind,
      amount_credits: amount,
      balance_after: balance,
      idempotency_key: key,
      reason,
      file_id: refs.fileId ?? null,
      job_id: refs.jobId ?? null,
      operation_id: refs.operationId ?? null,
      reservation_id: refs.reservationId ?? null,
    },
  });
  reportCreditMovement(kind, amount);
  // credits.low, in this transaction (the outbox): only organisations with a threshold pay a lookup.
  await noteAvailableCredits(tx, acc.org_id, async () => acc.balance_credits - (await reservedHold(tx, acc.org_id)));
  return entry;
}

/** Throws 402 unless `amount` more credits fit the balance (minus holds) and the monthly quota. */
export function assertAffordable(acc: AccountRow, hold: number, amount: number): void {
  if (acc.balance_credits - hold < amount) {
    throw new ApiError(
      'insufficient_credits',
      `This needs ${amount} credit(s); ${Math.max(0, acc.balance_credits - hold)} available.`,
    );
  }
  if (acc.monthly_quota_credits !== null && acc.monthly_used_credits + hold + amount > acc.monthly_quota_credits) {
    throw new ApiError(
      'monthly_quota_exceeded',
      `This would exceed the monthly quota of ${acc.monthly_quota_credits} credits.`,
    );
  }
}

export async function grantCredits(
  db: Db,
  args: { orgId: string; amount: number; idempotencyKey: string; reason: string },
) {
  if (!Number.isInteger(args.amount) || args.amount <= 0)
    throw new ApiError('invalid_request', 'amount must be a positive integer');
  return creditTransaction(db, args.orgId, async (tx) => {
    const acc = await lockAccount(tx, args.orgId);
    const existing = await findEntry(tx, args.orgId, args.idempotencyKey);
    if (existing) return { entry: existing, granted: false };
    return {
      entry: await writeEntry(tx, acc, 'grant', args.amount, args.idempotencyKey, args.reason, {}),
      granted: true,
    };
  });
}

/**
 * Debits `amount` credits once per idempotency key. A second call with the same key debits
 * nothing and returns debited: false (the synchronous workflows rely on this).
 */
export async function debitCredits(
  tx: Tx,
  args: { orgId: string; amount: number; idempotencyKey: string; reason: string } & EntryRefs,
) {
  const acc = await lockAccount(tx, args.orgId);
  const existing = await findEntry(tx, args.orgId, args.idempotencyKey);
  if (existing) return { entry: existing, debited: false };
  assertAffordable(acc, await reservedHold(tx, args.orgId), args.amount);
  return {
    entry: await writeEntry(tx, acc, 'debit', -args.amount, args.idempotencyKey, args.reason, args),
    debited: true,
  };
}

/** Refunds the debit written under `originalKey` as a reversal under `<originalKey>:refund`. */
export async function refundDebit(tx: Tx, args: { orgId: string; originalKey: string; reason: string } & EntryRefs) {
  const original = await findEntry(tx, args.orgId, args.originalKey);
  if (!original || original.kind !== 'debit') return { entry: null, refunded: false };
  const key = `${args.originalKey}:refund`;
  const acc = await lockAccount(tx, args.orgId);
  const existing = await findEntry(tx, args.orgId, key);
  if (existing) return { entry: existing, refunded: false };
  return {
    entry: await writeEntry(tx, acc, 'reversal', -original.amount_credits, key, args.reason, {
      ...args,
      fileId: args.fileId ?? original.file_id,
      operationId: args.operationId ?? original.operation_id,
      jobId: args.jobId ?? original.job_id,
    }),
    refunded: true,
  };
}

/** An operator's correction (positive or negative), recorded as an adjustment. */
export async function adjustCredits(
  db: Db,
  args: { orgId: string; amount: number; idempotencyKey: string; reason: string },
) {
  return creditTransaction(db, args.orgId, async (tx) => {
    const acc = await lockAccount(tx, args.orgId);
    const existing = await findEntry(tx, args.orgId, args.idempotencyKey);
    if (existing) return existing;
    if (acc.balance_credits + args.amount < 0)
      throw new ApiError('insufficient_credits', 'The adjustment would make the balance negative.');
    return writeEntry(tx, acc, 'adjustment', args.amount, args.idempotencyKey, args.reason, {});
  });
}

export { writeEntry as _writeEntry, findEntry as _findEntry };

/** Sets (or clears, with null) the organisation's monthly quota. */
export async function setMonthlyQuota(db: Db, orgId: string, quota: number | null) {
  return creditTransaction(db, orgId, async (tx) => {
    const acc = await lockAccount(tx, orgId);
    return tx.creditAccount.update({ where: { id: acc.id }, data: { monthly_quota_credits: quota } });
  });
}
