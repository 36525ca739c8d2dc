// Every write the delivery loop makes: take a delivery (a lease, so a killed worker's delivery is
// sent again by another after the lease), and record an attempt with its outcome. Order per
// resource: a delivery is only taken when no earlier delivery of the same resource to the same
// endpoint is still pending.
import type { Db, WebhookDelivery, WebhookEndpoint, WebhookEvent } from '@docfleet/db';
import { emitEvent } from './outbox';
import { nextAttemptAt, type RetrySchedule } from './schedule';

export type Claim =
  | { kind: 'claimed'; delivery: WebhookDelivery; endpoint: WebhookEndpoint; event: WebhookEvent }
  | { kind: 'not-due'; at: Date }
  | { kind: 'blocked' | 'busy' | 'done' };

/**
 * Takes a due delivery: one statement leases it and returns it with its endpoint and event (the
 * lease, the order check and the reads were four round trips; at hundreds of deliveries a second
 * the round trips, not the POSTs, were the limit).
 */
export async function claimDelivery(db: Db, id: string, leaseMs: number): Promise<Claim> {
  const taken = await db.$queryRaw<(WebhookDelivery & { ep: Json | null; ev: Json | null })[]>`WITH c AS (
      UPDATE webhook_deliveries d
        SET locked_until = now() + ${leaseMs} * interval '1 millisecond', updated_at = now()
      WHERE d.id = ${id}::uuid AND d.status = 'pending' AND d.next_attempt_at <= now() + interval '50 milliseconds'
        AND (d.locked_until IS NULL OR d.locked_until < now())
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id
          AND p.resource_key = d.resource_key AND p.event_seq < d.event_seq AND p.status = 'pending')
      RETURNING d.*)
    SELECT c.*, to_jsonb(ep) AS ep, to_jsonb(ev) AS ev FROM c
      LEFT JOIN webhook_endpoints ep ON ep.id = c.endpoint_id LEFT JOIN webhook_events ev ON ev.id = c.event_id`;
  if (!taken.length) {
    const d = await db.webhookDelivery.findUnique({ where: { id } });
    if (!d || d.status !== 'pending') return { kind: 'done' };
    if (d.next_attempt_at.getTime() > Date.now() + 50) return { kind: 'not-due', at: d.next_attempt_at };
    if (d.locked_until && d.locked_until.getTime() > Date.now()) return { kind: 'busy' };
    return { kind: 'blocked' };
  }
  const { ep, ev, ...delivery } = taken[0]!;
  if (!ep || !ev) throw new Error(`webhook delivery ${id}: its endpoint or event is gone`);
  return { kind: 'claimed', delivery, endpoint: endpointFromJson(ep), event: eventFromJson(ev) };
}

type Json = Record<string, unknown>;
const date = (v: unknown) => (v == null ? null : new Date(v as string));

function endpointFromJson(j: Json): WebhookEndpoint {
  return {
    ...(j as unknown as WebhookEndpoint),
    secret_rotated_at: date(j.secret_rotated_at),
    failing_since: date(j.failing_since),
    disabled_at: date(j.disabled_at),
    created_at: date(j.created_at)!,
    updated_at: date(j.updated_at)!,
  };
}

function eventFromJson(j: Json): WebhookEvent {
  return {
    ...(j as unknown as WebhookEvent),
    created_at: date(j.created_at)!,
    relayed_at: date(j.relayed_at),
    stream_seq: j.stream_seq == null ? null : BigInt(j.stream_seq as number),
  };
}

export interface AttemptResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

export interface Ending {
  status: 'succeeded' | 'failed' | 'pending';
  nextAttemptAt: Date | null;
  /** The endpoint was disabled by this attempt (3 days of failures). */
  disabled: boolean;
  /** The next pending delivery of the same resource, now free to go. */
  successor: string | null;
}

/** Records one attempt and what follows from it, in one transaction. */
export async function recordAttempt(
  db: Db,
  d: WebhookDelivery,
  r: AttemptResult,
  opts: { schedule: RetrySchedule; disableAfterMs: number; giveUp?: string },
): Promise<Ending> {
  if (r.ok && !opts.giveUp) return recordSuccess(db, d, r);
  return db.$transaction(async (tx) => {
    const attempt = d.attempts + 1;
    await tx.webhookDeliveryAttempt.create({
      data: { delivery_id: d.id, attempt, status_code: r.statusCode, error: r.error, duration_ms: r.durationMs },
    });
    const now = new Date();
    const next = r.ok || opts.giveUp ? null : nextAttemptAt(opts.schedule, d.window_start_at, attempt, now);
    const status = r.ok ? 'succeeded' : next ? 'pending' : 'failed';
    await tx.webhookDelivery.update({
      where: { id: d.id },
      data: {
        attempts: attempt,
        status,
        locked_until: null,
        last_status_code: r.statusCode,
        last_error: r.error,
        last_duration_ms: r.durationMs,
        ...(next ? { next_attempt_at: next } : { completed_at: now }),
      },
    });
    let disabled = false;
    if (r.ok) {
      await tx.webhookEndpoint.updateMany({
        where: { id: d.endpoint_id, failing_since: { not: null } },
        data: { failing_since: null },
      });
    } else if (!opts.giveUp && d.event_type !== 'webhook.test') {
      const [ep] = await tx.$queryRaw<{ failing_since: Date; enabled: boolean; org_id: string; url: string }[]>`
        UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, now()), updated_at = now()
        WHERE id = ${d.endpoint_id}::uuid RETURNING failing_since, enabled, org_id, url`;
      if (ep && ep.enabled && now.getTime() - ep.failing_since.getTime() >= opts.disableAfterMs) {
        const reason = `Deliveries failed for ${Math.round(opts.disableAfterMs / 3600_000)} h (last: ${r.error ?? `HTTP ${r.statusCode}`}).`;
        await tx.webhookEndpoint.update({
          where: { id: d.endpoint_id },
          data: { enabled: false, disabled_at: now, disabled_reason: reason },
        });
        // Its pending deliveries end here; the event tells the organisation's other endpoints and streams.
        await tx.webhookDelivery.updateMany({
          where: { endpoint_id: d.endpoint_id, status: 'pending' },
          data: { status: 'failed', completed_at: now, last_error: 'endpoint disabled', locked_until: null },
        });
        await emitEvent(tx, {
          orgId: ep.org_id,
          type: 'webhook.endpoint.disabled',
          resourceKey: `webhook:${d.endpoint_id}`,
          data: { webhook_id: d.endpoint_id, url: ep.url, disabled_at: now.toISOString(), reason },
        });
        disabled = true;
      }
    }
    let successor: string | null = null;
    if (status !== 'pending') {
      const s = await tx.webhookDelivery.findFirst({
        where: {
          endpoint_id: d.endpoint_id,
          resource_key: d.resource_key,
          status: 'pending',
          event_seq: { gt: d.event_seq },
        },
        orderBy: { event_seq: 'asc' },
        select: { id: true },
      });
      successor = s?.id ?? null;
    }
    return { status, nextAttemptAt: next, disabled, successor };
  });
}

/**
 * A successful attempt in one statement (atomic without a transaction): the attempt row, the
 * delivery's end, the endpoint's failure clock cleared, and the successor read (another row, so the
 * statement's snapshot is the right one).
 */
async function recordSuccess(db: Db, d: WebhookDelivery, r: AttemptResult): Promise<Ending> {
  const attempt = d.attempts + 1;
  const rows = await db.$queryRaw<{ id: string }[]>`WITH a AS (
      INSERT INTO webhook_delivery_attempts (delivery_id, attempt, status_code, error, duration_ms)
      VALUES (${d.id}::uuid, ${attempt}, ${r.statusCode}, ${r.error}, ${r.durationMs})
    ), u AS (
      UPDATE webhook_deliveries SET attempts = ${attempt}, status = 'succeeded', locked_until = NULL,
        last_status_code = ${r.statusCode}, last_error = ${r.error}, last_duration_ms = ${r.durationMs},
        completed_at = now(), updated_at = now()
      WHERE id = ${d.id}::uuid
    ), f AS (
      UPDATE webhook_endpoints SET failing_since = NULL, updated_at = now()
      WHERE id = ${d.endpoint_id}::uuid AND failing_since IS NOT NULL
    )
    SELECT id FROM webhook_deliveries WHERE endpoint_id = ${d.endpoint_id}::uuid
      AND resource_key = ${d.resource_key} AND status = 'pending' AND event_seq > ${d.event_seq}
    ORDER BY event_seq LIMIT 1`;
  return { status: 'succeeded', nextAttemptAt: null, disabled: false, successor: rows[0]?.id ?? null };
}

/** Ends a delivery without sending (its endpoint is off): the successor may go. */
export async function abandonDelivery(db: Db, d: WebhookDelivery, why: string) {
  return recordAttempt(
    db,
    d,
    { ok: false, statusCode: null, error: why, durationMs: 0 },
    {
      schedule: { baseMs: 0, factor: 1, maxDelayMs: 0, windowMs: 0, jitter: 0 },
      disableAfterMs: Infinity,
      giveUp: why,
    },
  );
}

/** Pending deliveries that are due and nobody is sending (lost queue entries, a killed worker). */
export async function dueDeliveries(db: Db, graceMs: number, limit = 500): Promise<{ id: string; attempts: number }[]> {
  return db.$queryRaw`SELECT id, attempts FROM webhook_deliveries
    WHERE status = 'pending' AND next_attempt_at <= now() - ${graceMs} * interval '1 millisecond'
      AND (locked_until IS NULL OR locked_until < now())
    ORDER BY next_attempt_at LIMIT ${limit}`;
}
