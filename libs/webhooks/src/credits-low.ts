// credits.low: an organisation that set a threshold hears once when its available credits (balance
// minus holds) go under it, and again only after they rose back to it or above (once per crossing).
// libs/billing calls noteAvailableCredits inside every credit transaction that moves them.
import type { Db, Tx } from '@docfleet/db';
import { emitEvent } from './outbox';

export async function noteAvailableCredits(tx: Tx, orgId: string, available: () => Promise<number>): Promise<void> {
  const alert = await tx.creditAlert.findUnique({ where: { org_id: orgId } });
  if (!alert) return;
  const now = await available();
  if (now < alert.low_threshold) {
    if (alert.low_since) return;
    await tx.creditAlert.update({ where: { org_id: orgId }, data: { low_since: new Date() } });
    await emitEvent(tx, {
      orgId,
      type: 'credits.low',
      resourceKey: `credits:${orgId}`,
      data: { available_credits: now, credits_low_threshold: alert.low_threshold },
    });
  } else if (alert.low_since) {
    await tx.creditAlert.update({ where: { org_id: orgId }, data: { low_since: null } });
  }
}

export async function getCreditAlert(db: Db, orgId: string) {
  const a = await db.creditAlert.findUnique({ where: { org_id: orgId } });
  return { credits_low_threshold: a?.low_threshold ?? null };
}

/** Sets the threshold (null removes it); a new threshold starts a new crossing. */
export async function setCreditAlert(db: Db, orgId: string, threshold: number | null) {
  if (threshold === null) await db.creditAlert.deleteMany({ where: { org_id: orgId } });
  else
    await db.creditAlert.upsert({
      where: { org_id: orgId },
      create: { org_id: orgId, low_threshold: threshold },
      update: { low_threshold: threshold, low_since: null },
    });
  return { credits_low_threshold: threshold };
}
