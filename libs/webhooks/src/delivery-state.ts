// Every write the delivery loop makes: take a delivery (a lease, so a killed worker's delivery is
// sent again by another after the lease), and record an attempt with its outcome. Order per
// resource: a delivery is only taken when no earlier delivery of the same resource to the same
// endpoint is still pending.
import {
  Prisma,
  queryRows,
  type Db,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEvent,
} from '@docfleet/db';
import { emitEvent } from './outbox';
import { nextAttemptAt, type RetrySchedule } from './schedule';

export interface Claimed {
  delivery: WebhookDelivery;
  endpoint: WebhookEndpoint;
  event: WebhookEvent;
}

/**
 * Takes up to `limit` due deliveries in one statement: leases them (`FOR UPDATE SKIP LOCKED`, so
 * concurrent workers take disjoint rows) and returns each with its endpoint and event. A delivery
 * is only taken when no earlier delivery of the same resource to the same endpoint is still pending
 * (order per resource), so two of one resource are never out at once. The lease outlives one
 * attempt: a live worker records the attempt before it runs out; a killed worker's runs out and
 * another takes the delivery again (at-least-once, the same event id).
 */
export async function claimDue(db: Db, limit: number, leaseMs: number): Promise<Claimed[]> {
  if (limit <= 0) return [];
  // Straight on the pool (queryRows): at hundreds of deliveries a second, Prisma's work per raw
  // statement cost more CPU than the statement. Not prepared: with PostgreSQL's generic plans this
  // statement and recordSuccesses took the database about 30× the time in the bench.
  const taken = await queryRows<DeliveryRow & { ep: Json | null; ev: Json | null }>(
    db,
    Prisma.sql`WITH cand AS (
      SELECT d.id FROM webhook_deliveries d
      WHERE d.status = 'pending' AND d.next_attempt_at <= now() + interval '50 milliseconds'
        AND (d.locked_until IS NULL OR d.locked_until < now())
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = d.endpoint_id
          AND p.resource_key = d.resource_key AND p.event_seq < d.event_seq AND p.status = 'pending')
      ORDER BY d.next_attempt_at, d.event_seq
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), c AS (
      UPDATE webhook_deliveries d
        SET locked_until = now() + ${leaseMs} * interval '1 millisecond', updated_at = now()
      FROM cand WHERE d.id = cand.id
        AND d.status = 'pending' AND (d.locked_until IS NULL OR d.locked_until < now())
      RETURNING d.*)
    SELECT c.*, to_jsonb(ep) AS ep, to_jsonb(ev) AS ev FROM c
      LEFT JOIN webhook_endpoints ep ON ep.id = c.endpoint_id LEFT JOIN webhook_events ev ON ev.id = c.event_id
    ORDER BY c.event_seq`,
  );
  const out: Claimed[] = [];
  for (const row of taken) {
    const { ep, ev, ...delivery } = row;
    // Cascades remove deliveries with their endpoint; an event is pruned only without pending deliveries.
    if (!ep || !ev) continue;
    out.push({ delivery: deliveryFromRow(delivery), endpoint: endpointFromJson(ep), event: eventFromJson(ev) });
  }
  return out;
}

type Json = Record<string, unknown>;
const date = (v: unknown) => (v == null ? null : new Date(v as string));

/** A delivery row as node-postgres returns it (int8 as text). */
type DeliveryRow = Omit<WebhookDelivery, 'event_seq'> & { event_seq: string | bigint };

function deliveryFromRow(r: DeliveryRow): WebhookDelivery {
  return { ...r, event_seq: BigInt(r.event_seq) };
}

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
  if (r.ok && !opts.giveUp) {
    await recordSuccesses(db, [{ delivery: d, result: r }]);
    return { status: 'succeeded', nextAttemptAt: null, disabled: false, successor: await successorOf(db, d) };
  }
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
    const successor = status !== 'pending' ? await successorOf(tx, d) : null;
    return { status, nextAttemptAt: next, disabled, successor };
  });
}

/**
 * Successful attempts of many deliveries in one statement (atomic without a transaction): their
 * attempt rows, the deliveries' ends and their endpoints' failure clocks cleared. At hundreds of
 * deliveries a second the round trips, not the POSTs, were the limit.
 */
export async function recordSuccesses(db: Db, done: { delivery: WebhookDelivery; result: AttemptResult }[]) {
  if (!done.length) return;
  const ids = done.map((x) => x.delivery.id);
  const attempts = done.map((x) => x.delivery.attempts + 1);
  const codes = done.map((x) => x.result.statusCode ?? 0);
  const ms = done.map((x) => x.result.durationMs);
  const endpoints = [...new Set(done.map((x) => x.delivery.endpoint_id))];
  await queryRows(
    db,
    Prisma.sql`WITH r AS (
      SELECT * FROM unnest(${ids}::uuid[], ${attempts}::int[], ${codes}::int[], ${ms}::int[]) AS r(id, attempt, code, ms)
    ), a AS (
      INSERT INTO webhook_delivery_attempts (delivery_id, attempt, status_code, error, duration_ms)
      SELECT id, attempt, code, NULL, ms FROM r
    ), u AS (
      UPDATE webhook_deliveries d SET attempts = r.attempt, status = 'succeeded', locked_until = NULL,
        last_status_code = r.code, last_error = NULL, last_duration_ms = r.ms, completed_at = now(), updated_at = now()
      FROM r WHERE d.id = r.id
    )
    UPDATE webhook_endpoints SET failing_since = NULL, updated_at = now()
    WHERE id = ANY(${endpoints}::uuid[]) AND failing_since IS NOT NULL`,
  );
}

/** The next pending delivery of the same resource after `d` (free to go once `d` ended). */
async function successorOf(db: Pick<Db, 'webhookDelivery'>, d: WebhookDelivery): Promise<string | null> {
  const s = await db.webhookDelivery.findFirst({
    where: {
      endpoint_id: d.endpoint_id,
      resource_key: d.resource_key,
      status: 'pending',
      event_seq: { gt: d.event_seq },
    },
    orderBy: { event_seq: 'asc' },
    select: { id: true },
  });
  return s?.id ?? null;
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
