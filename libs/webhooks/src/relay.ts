// The relay: moves outbox rows to deliveries and gives each a stream position, one relay at a time
// (an advisory lock), so positions follow the order in which events became visible and a stream
// resumed from a position never skips one that committed late.
import type { Db } from '@docfleet/db';
import { eventBody } from './outbox';
import type { LiveMessage } from './progress';

const RELAY_LOCK = 72707370;

export interface RelayOutcome {
  /** Another process holds the relay lock: try again shortly. */
  busy: boolean;
  events: LiveMessage[];
  /** Deliveries created (each wants a queue job). */
  deliveries: string[];
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
  stream_seq: bigint;
  /** Every endpoint of the row's organisation (null: none). */
  endpoints: { id: string; events: string[]; enabled: boolean }[] | null;
}

export async function relayBatch(db: Db, limit = 500): Promise<RelayOutcome> {
  return db.$transaction(async (tx) => {
    const [lock] = await tx.$queryRaw<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(${RELAY_LOCK}) AS ok`;
    if (!lock?.ok) return { busy: true, events: [], deliveries: [], more: false };
    // One statement after the lock (its snapshot sees every earlier relay's commit): the oldest
    // unrelayed rows, a block of positions drawn from the sequence (only the lock holder draws),
    // numbered in (created_at, id) order, each row returned with its organisation's endpoints.
    // One round trip instead of four: the relay's transaction is most of an event's way to a stream.
    const rows = await tx.$queryRaw<Row[]>`WITH picked AS (
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
          e.created_at, e.stream_seq)
      SELECT r.*, (SELECT json_agg(json_build_object('id', ep.id, 'events', ep.events, 'enabled', ep.enabled))
          FROM webhook_endpoints ep WHERE ep.org_id = r.org_id) AS endpoints
      FROM numbered r ORDER BY r.stream_seq`;
    if (!rows.length) return { busy: false, events: [], deliveries: [], more: false };
    const seqs = rows.map((r) => r.stream_seq);

    const data: {
      org_id: string;
      endpoint_id: string;
      event_id: string;
      event_type: string;
      resource_key: string;
      event_seq: bigint;
      status: string;
    }[] = [];
    rows.forEach((r, i) => {
      for (const ep of r.endpoints ?? []) {
        // A test event goes to its endpoint only, enabled or not; every other event to the
        // enabled endpoints that want its type.
        const wanted =
          r.event_type === 'webhook.test'
            ? r.payload.webhook_id === ep.id
            : ep.enabled && (ep.events.length === 0 || ep.events.includes(r.event_type));
        if (wanted)
          data.push({
            org_id: r.org_id,
            endpoint_id: ep.id,
            event_id: r.id,
            event_type: r.event_type,
            resource_key: r.resource_key,
            event_seq: seqs[i]!,
            status: 'pending',
          });
      }
    });
    let deliveries: string[] = [];
    if (data.length) {
      const made = await tx.webhookDelivery.createManyAndReturn({ data, skipDuplicates: true, select: { id: true } });
      deliveries = made.map((d) => d.id);
    }
    const events: LiveMessage[] = rows.map((r, i) => ({
      kind: 'event',
      seq: String(seqs[i]),
      prev_seq: String(seqs[i]! - 1n),
      org_id: r.org_id,
      knowledge_base_id: r.knowledge_base_id,
      file_id: r.file_id,
      event: eventBody(r),
    }));
    return { busy: false, events, deliveries, more: rows.length === limit };
  });
}
