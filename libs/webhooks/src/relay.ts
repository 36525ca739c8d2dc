// The relay: moves outbox rows to deliveries and gives each a stream position, one relay at a time
// (an advisory lock), so positions follow the order in which events became visible and a stream
// resumed from a position never skips one that committed late.
import { Prisma, rawTransaction, type Db } from '@docfleet/db';
import { eventBody } from './outbox';
import type { LiveMessage } from './progress';

const RELAY_LOCK = 72707370;

export interface RelayOutcome {
  /** Another process holds the relay lock: try again shortly. */
  busy: boolean;
  events: LiveMessage[];
  /** Deliveries created (each to be claimed by a delivery loop). */
  deliveries: number;
  /** True when the batch was full: more rows may be waiting. */
  more: boolean;
}

interface Row {
  id: string;
  org_id: string;
  event_type: string;
  resource_key: string;
  knowledge_base_id: string | null;
  file_id: string | null;
  payload: Record<string, unknown>;
  created_at: Date;
  /** int8 as text (node-postgres), or a bigint. */
  stream_seq: string | bigint;
  /** Deliveries the statement created (the same on every row). */
  made: number;
}

/**
 * Relays up to `limit` outbox rows: numbers them and fans them out to deliveries, in one
 * transaction on a pooled connection without Prisma (rawTransaction): the relay runs once per
 * batch of up to 500 events, and Prisma's mapping of a 500-row createManyAndReturn was most of a
 * worker's CPU per delivery after the batched claims (docs/benchmarks.md).
 */
export async function relayBatch(db: Db, limit = 500): Promise<RelayOutcome> {
  return rawTransaction(db, async (query) => {
    const [lock] = await query<{ ok: boolean }>(Prisma.sql`SELECT pg_try_advisory_xact_lock(${RELAY_LOCK}) AS ok`);
    if (!lock?.ok) return { busy: true, events: [], deliveries: 0, more: false };
    // One statement after the lock (its snapshot sees every earlier relay's commit): the oldest
    // unrelayed rows, a block of positions drawn from the sequence (only the lock holder draws),
    // numbered in (created_at, id) order, and one delivery per event and endpoint that wants it: a
    // test event to its endpoint only, enabled or not; every other event to the enabled endpoints
    // of its organisation that take its type (an empty list: all). The delivery's event_seq is the
    // event's position, which the claim's per-resource order follows.
    const rows = await query<Row>(Prisma.sql`WITH picked AS (
        SELECT id, row_number() OVER (ORDER BY created_at, id) AS rn
        FROM (SELECT id, created_at FROM webhook_events WHERE stream_seq IS NULL
          ORDER BY created_at, id LIMIT ${limit}) oldest),
      block AS (
        SELECT setval('webhook_events_stream_seq_seq', nextval('webhook_events_stream_seq_seq') + n.c - 1) - n.c + 1 AS first
        FROM (SELECT count(*) AS c FROM picked) n WHERE n.c > 0),
      numbered AS (
        UPDATE webhook_events e SET stream_seq = block.first + picked.rn - 1, relayed_at = now()
        FROM picked, block WHERE e.id = picked.id
        RETURNING e.id, e.org_id, e.event_type, e.resource_key, e.knowledge_base_id, e.file_id, e.payload,
          e.created_at, e.stream_seq),
      made AS (
        INSERT INTO webhook_deliveries (org_id, endpoint_id, event_id, event_type, resource_key, event_seq, status)
        SELECT r.org_id, ep.id, r.id, r.event_type, r.resource_key, r.stream_seq, 'pending'
        FROM numbered r JOIN webhook_endpoints ep ON ep.org_id = r.org_id
        WHERE CASE WHEN r.event_type = 'webhook.test' THEN ep.id::text = r.payload->>'webhook_id'
          ELSE ep.enabled AND (coalesce(cardinality(ep.events), 0) = 0 OR r.event_type = ANY(ep.events)) END
        ORDER BY r.stream_seq
        ON CONFLICT (endpoint_id, event_id) DO NOTHING
        RETURNING 1)
      SELECT r.id, r.org_id, r.event_type, r.resource_key, r.knowledge_base_id, r.file_id, r.payload,
        r.created_at, r.stream_seq, (SELECT count(*)::int FROM made) AS made
      FROM numbered r ORDER BY r.stream_seq`);
    if (!rows.length) return { busy: false, events: [], deliveries: 0, more: false };
    const events: LiveMessage[] = rows.map((r) => {
      const seq = BigInt(r.stream_seq);
      return {
        kind: 'event',
        seq: String(seq),
        prev_seq: String(seq - 1n),
        org_id: r.org_id,
        knowledge_base_id: r.knowledge_base_id,
        file_id: r.file_id,
        event: eventBody({ ...r, created_at: new Date(r.created_at) }),
      };
    });
    return { busy: false, events, deliveries: Number(rows[0]!.made), more: rows.length === limit };
  });
}
