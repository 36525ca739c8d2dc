import type { PrismaClient } from '@docfleet/db';

/** The money invariants of an organisation: sum(ledger) must equal the balance, no reservation left open. */
export async function creditInvariants(gw: { db: PrismaClient }, orgId: string) {
  const acc = await gw.db.creditAccount.findUniqueOrThrow({ where: { org_id: orgId } });
  const sum = await gw.db.ledgerEntry.aggregate({ where: { org_id: orgId }, _sum: { amount_credits: true } });
  const open = await gw.db.creditReservation.count({ where: { org_id: orgId, status: 'reserved' } });
  return { balance: acc.balance_credits, ledgerSum: sum._sum.amount_credits ?? 0, openReservations: open };
}
