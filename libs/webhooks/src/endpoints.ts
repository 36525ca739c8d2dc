// Webhook endpoints of an organisation: create, read, change, delete, rotate the secret, send a
// test event. Another organisation's endpoint answers exactly like an unknown one (404).
import type { api } from '@docfleet/contracts';
import type { Db, WebhookEndpoint } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { emitEvent } from './outbox';
import { newWebhookSecret } from './secret';
import { checkWebhookUrl, type UrlPolicy } from './ssrf';

export function serializeEndpoint(ep: WebhookEndpoint): api.WebhookEndpoint {
  return {
    id: ep.id,
    url: ep.url,
    events: ep.events as api.WebhookEventType[],
    description: ep.description,
    enabled: ep.enabled,
    disabled_at: ep.disabled_at?.toISOString() ?? null,
    disabled_reason: ep.disabled_reason,
    failing_since: ep.failing_since?.toISOString() ?? null,
    secret_rotated_at: ep.secret_rotated_at?.toISOString() ?? null,
    created_at: ep.created_at.toISOString(),
    updated_at: ep.updated_at.toISOString(),
  };
}

const uniq = <T>(xs: T[] | undefined) => [...new Set(xs ?? [])];

export async function createEndpoint(
  db: Db,
  orgId: string,
  body: { url: string; events?: api.WebhookEventType[]; description?: string | null; enabled?: boolean },
  policy: UrlPolicy,
) {
  const { url } = await checkWebhookUrl(body.url, policy);
  const secret = newWebhookSecret();
  const ep = await db.webhookEndpoint.create({
    data: {
      org_id: orgId,
      url: url.toString(),
      events: uniq(body.events),
      description: body.description ?? null,
      enabled: body.enabled ?? true,
      secret,
    },
  });
  return { webhook: serializeEndpoint(ep), secret };
}

export async function getEndpoint(db: Db, orgId: string, id: string): Promise<WebhookEndpoint> {
  const ep = await db.webhookEndpoint.findFirst({ where: { id, org_id: orgId } });
  if (!ep) throw new ApiError('webhook_not_found', 'No such webhook endpoint.');
  return ep;
}

export async function listEndpoints(db: Db, orgId: string) {
  const rows = await db.webhookEndpoint.findMany({ where: { org_id: orgId }, orderBy: { created_at: 'asc' } });
  return rows.map(serializeEndpoint);
}

export async function updateEndpoint(
  db: Db,
  orgId: string,
  id: string,
  body: { url?: string; events?: api.WebhookEventType[]; description?: string | null; enabled?: boolean },
  policy: UrlPolicy,
) {
  await getEndpoint(db, orgId, id);
  const url = body.url !== undefined ? (await checkWebhookUrl(body.url, policy)).url.toString() : undefined;
  const ep = await db.webhookEndpoint.update({
    where: { id },
    data: {
      ...(url !== undefined ? { url } : {}),
      ...(body.events !== undefined ? { events: uniq(body.events) } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      // Turning an endpoint on again clears the automatic disable and the failure clock.
      ...(body.enabled !== undefined
        ? body.enabled
          ? { enabled: true, disabled_at: null, disabled_reason: null, failing_since: null }
          : { enabled: false }
        : {}),
    },
  });
  return serializeEndpoint(ep);
}

export async function deleteEndpoint(db: Db, orgId: string, id: string): Promise<void> {
  const n = await db.webhookEndpoint.deleteMany({ where: { id, org_id: orgId } });
  if (!n.count) throw new ApiError('webhook_not_found', 'No such webhook endpoint.');
}

/** A new secret; the previous one keeps signing for 24 h (deliveries carry both signatures). */
export async function rotateSecret(db: Db, orgId: string, id: string) {
  const ep = await getEndpoint(db, orgId, id);
  const secret = newWebhookSecret();
  const next = await db.webhookEndpoint.update({
    where: { id },
    data: { secret, previous_secret: ep.secret, secret_rotated_at: new Date() },
  });
  return { webhook: serializeEndpoint(next), secret };
}

/** Emits a webhook.test event addressed to this endpoint only (resource key `webhook:<id>`). */
export async function sendTestEvent(db: Db, orgId: string, id: string): Promise<string> {
  const ep = await getEndpoint(db, orgId, id);
  return db.$transaction((tx) =>
    emitEvent(tx, {
      orgId,
      type: 'webhook.test',
      resourceKey: `webhook:${ep.id}`,
      data: { webhook_id: ep.id, message: 'A test event sent on request.' },
    }),
  );
}
