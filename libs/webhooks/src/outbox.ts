// The transactional outbox. An event row is written by the transaction that makes the state change
// it reports, so a committed change always has its event and a rolled-back one never does. The
// relay (services/webhook-worker) moves rows to deliveries and the event stream; NOTIFY (sent at
// commit, never for a rolled-back transaction) wakes it without polling.
import type { api } from '@docfleet/contracts';
import type { Prisma, Tx } from '@docfleet/db';

export const OUTBOX_CHANNEL = 'docfleet_webhook_events';

export interface OutboxEvent {
  orgId: string;
  type: api.WebhookEventType;
  /** Events of one key reach an endpoint in order (`file:<id>`, `job:<id>`, `operation:<id>`, `kb:<id>`). */
  resourceKey: string;
  knowledgeBaseId?: string | null;
  fileId?: string | null;
  /** The resource as the API returns it. */
  data: Record<string, unknown>;
}

/** Writes the event inside `tx` (the state change's transaction); returns its id. */
export async function emitEvent(tx: Tx, e: OutboxEvent): Promise<string> {
  const row = await tx.webhookEvent.create({
    data: {
      org_id: e.orgId,
      event_type: e.type,
      resource_key: e.resourceKey,
      knowledge_base_id: e.knowledgeBaseId ?? null,
      file_id: e.fileId ?? null,
      payload: e.data as Prisma.InputJsonValue,
    },
    select: { id: true },
  });
  await tx.$executeRaw`SELECT pg_notify(${OUTBOX_CHANNEL}, '')`;
  return row.id;
}

/** The wire form of a stored event (delivery body and SSE `data:`). */
export function eventBody(ev: {
  id: string;
  event_type: string;
  created_at: Date;
  org_id: string;
  payload: unknown;
}): api.WebhookEvent {
  return {
    id: ev.id,
    type: ev.event_type as api.WebhookEventType,
    created_at: ev.created_at.toISOString(),
    org_id: ev.org_id,
    data: (ev.payload ?? {}) as api.JsonObject,
  };
}
