import type { Tx } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { noteAvailableCredits } from '@docfleet/webhooks';
import { lockAccount, reservedHold } from './accounts';
import { _findEntry as findEntry, _writeEntry as writeEntry, assertAffordable } from './ledger';

export type ReservationStatus = 'reserved' | 'committed' | 'released' | 'failed' | 'cancelled';
export type JobOutcome = 'completed' | 'failed' | 'cancelled';

/** Holds `amount` credits for a parse job. Concurrent reservations serialise on the account lock. */
export async function reserveCredits(
  tx: Tx,
  args: { orgId: string; amount: number; jobId: string; knowledgeBaseId?: string; fileId?: string },
) {
  const acc = await lockAccount(tx, args.orgId);
  assertAffordable(acc, await reservedHold(tx, args.orgId), args.amount);
  const reservation = await tx.creditReservation.create({
    data: {
      org_id: args.orgId,
      amount_credits: args.amount,
      job_id: args.jobId,
      knowledge_base_id: args.knowledgeBaseId ?? null,
      file_id: args.fileId ?? null,
      status: 'reserved',
    },
  });
  await noteAvailableCredits(tx, args.orgId, async () => acc.balance_credits - (await reservedHold(tx, args.orgId)));
  return reservation;
}

/**
 * Debits one processed unit (page or sheet) against a reservation, once per idempotency key
 * (e.g. `parse:<jobId>:page:<n>`), never beyond the reserved amount.
 */
export async function debitReserved(
  tx: Tx,
  args: {
    reservationId: string;
    idempotencyKey: string;
    reason: string;
    amount?: number;
    fileId?: string;
    jobId?: string;
  },
) {
  const amount = args.amount ?? 1;
  const res = await tx.creditReservation.findUniqueOrThrow({ where: { id: args.reservationId } });
  const acc = await lockAccount(tx, res.org_id);
  if (await findEntry(tx, res.org_id, args.idempotencyKey)) return { debited: false };
  const fresh = await tx.creditReservation.findUniqueOrThrow({ where: { id: args.reservationId } });
  if (fresh.status !== 'reserved')
    throw new ApiError('reserved_credits_exhausted', 'The reservation is already closed.');
  if (fresh.debited_credits + amount > fresh.amount_credits) {
    throw new ApiError(
      'reserved_credits_exhausted',
      `The reservation of ${fresh.amount_credits} credit(s) is used up.`,
    );
  }
  await tx.creditReservation.update({ where: { id: fresh.id }, data: { debited_credits: { increment: amount } } });
  await writeEntry(tx, acc, 'debit', -amount, args.idempotencyKey, args.reason, {
    reservationId: fresh.id,
    fileId: args.fileId ?? fresh.file_id,
    jobId: args.jobId ?? fresh.job_id,
  });
  return { debited: true };
}

/**
 * Closes a reservation at the job's terminal state (call it in the transaction that writes the
 * job's terminal status). completed: committed if any unit was billed, else released. failed: the
 * job produced nothing, so its unit debits are reversed ("no credits spent"). cancelled: units
 * already processed stay charged; the rest stops being held.
 */
export async function finalizeReservation(tx: Tx, args: { jobId: string; outcome: JobOutcome }) {
  const res = await tx.creditReservation.findUnique({ where: { job_id: args.jobId } });
  if (!res || res.status !== 'reserved') return res;
  let status: ReservationStatus;
  if (args.outcome === 'completed') status = res.debited_credits > 0 ? 'committed' : 'released';
  else if (args.outcome === 'cancelled') status = 'cancelled';
  else status = 'failed';
  if (args.outcome === 'failed' && res.debited_credits > 0) {
    const acc = await lockAccount(tx, res.org_id);
    const debits = await tx.ledgerEntry.findMany({
      where: { org_id: res.org_id, reservation_id: res.id, kind: 'debit' },
    });
    for (const d of debits) {
      const key = `${d.idempotency_key}:refund`;
      if (await findEntry(tx, res.org_id, key)) continue;
      await writeEntry(tx, acc, 'reversal', -d.amount_credits, key, 'parse failed: page charges reversed', {
        reservationId: res.id,
        fileId: res.file_id,
        jobId: res.job_id,
      });
    }
  }
  return tx.creditReservation.update({ where: { id: res.id }, data: { status, finalized_at: new Date() } });
}

/**
 * Removes the reservations of permanently deleted files. Open ones are closed first so no
 * balance stays held; the ledger rows stay (they are the permanent history).
 */
export async function deleteReservationsOfFiles(tx: Tx, fileIds: string[]): Promise<number> {
  if (!fileIds.length) return 0;
  return (await tx.creditReservation.deleteMany({ where: { file_id: { in: fileIds } } })).count;
}

/** Removes the links between a permanently deleted knowledge base's jobs and their reservations. */
export async function deleteKnowledgeBaseJobReservations(tx: Tx, knowledgeBaseJobIds: string[]): Promise<number> {
  if (!knowledgeBaseJobIds.length) return 0;
  return (
    await tx.knowledgeBaseJobCreditReservation.deleteMany({
      where: { knowledge_base_job_id: { in: knowledgeBaseJobIds } },
    })
  ).count;
}
