// Reading an endpoint's deliveries and asking for one again.
import type { api } from '@docfleet/contracts';
import type { Db, WebhookDelivery, WebhookDeliveryAttempt } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { getEndpoint } from './endpoints';

export function serializeDelivery(
  d: WebhookDelivery & { attempt_rows?: WebhookDeliveryAttempt[] },
): api.WebhookDelivery {
  return {
    id: d.id,
    event_id: d.event_id,
    event_type: d.event_type as api.WebhookEventType,
    status: d.status as api.WebhookDelivery['status'],
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? d.next_attempt_at.toISOString() : null,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    last_duration_ms: d.last_duration_ms,
    attempt_log: (d.attempt_rows ?? []).map((a) => ({
      attempt: a.attempt,
      status_code: a.status_code,
      error: a.error,
      duration_ms: a.duration_ms,
      created_at: a.created_at.toISOString(),
    })),
    created_at: d.created_at.toISOString(),
    completed_at: d.completed_at?.toISOString() ?? null,
  };
}

/** Newest first; the cursor is the last row's `created_at|id`. */
export async function listDeliveries(
  db: Db,
  orgId: string,
  endpointId: string,
  q: { limit: number; cursor?: string; status?: 'pending' | 'succeeded' | 'failed' },
) {
  await getEndpoint(db, orgId, endpointId);
  let before: { at: Date; id: string } | undefined;
  if (q.cursor) {
    const [at, id] = Buffer.from(q.cursor, 'base64url').toString().split('|');
    if (!at || !id || Number.isNaN(Date.parse(at))) throw new ApiError('invalid_request', 'Invalid cursor.');
    before = { at: new Date(at), id };
  }
  const rows = await db.webhookDelivery.findMany({
    where: {
      endpoint_id: endpointId,
      org_id: orgId,
      ...(q.status ? { status: q.status } : {}),
      ...(before ? { OR: [{ created_at: { lt: before.at } }, { created_at: before.at, id: { lt: before.id } }] } : {}),
    },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    take: q.limit + 1,
    include: { attempt_rows: { orderBy: { id: 'asc' }, take: 50 } },
  });
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    deliveries: page.map(serializeDelivery),
    next_cursor:
      rows.length > q.limit && last
        ? Buffer.from(`${last.created_at.toISOString()}|${last.id}`).toString('base64url')
        : null,
  };
}

/**
 * Puts a delivery back in line: pending, due now, the retry window starting again. Its
 * `webhook-id` (the event id) is unchanged, so a receiver that saw it already can tell.
 */
export async function redeliver(db: Db, orgId: string, endpointId: string, deliveryId: string) {
  await getEndpoint(db, orgId, endpointId);
  const n = await db.webhookDelivery.updateMany({
    where: { id: deliveryId, endpoint_id: endpointId, org_id: orgId },
    data: {
      status: 'pending',
      next_attempt_at: new Date(),
      window_start_at: new Date(),
      completed_at: null,
      locked_until: null,
    },
  });
  if (!n.count) throw new ApiError('webhook_delivery_not_found', 'No such delivery of this webhook endpoint.');
  return db.webhookDelivery.findUniqueOrThrow({
    where: { id: deliveryId },
    include: { attempt_rows: { orderBy: { id: 'asc' }, take: 50 } },
  });
}
