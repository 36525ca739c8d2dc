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
}

export async function relayBatch(db: Db, limit = 500): Promise<RelayOutcome> {
  return db.$transaction(async (tx) => {
    const [lock] = await tx.$queryRaw<{ ok: boolean }[]>`SELECT pg_try_advisory_xact_lock(${RELAY_LOCK}) AS ok`;
    if (!lock?.ok) return { busy: true, events: [], deliveries: [], more: false };
    const rows = await tx.$queryRaw<Row[]>`SELECT id, org_id, event_type, resource_key, knowledge_base_id, file_id,
        payload, created_at FROM webhook_events WHERE stream_seq IS NULL ORDER BY created_at, id LIMIT ${limit}`;
    if (!rows.length) return { busy: false, events: [], deliveries: [], more: false };
    // A block of positions: only the lock holder draws from the sequence.
    const [first] = await tx.$queryRaw<{ s: bigint }[]>`SELECT nextval('webhook_events_stream_seq_seq') AS s`;
    if (rows.length > 1)
      await tx.$queryRaw`SELECT setval('webhook_events_stream_seq_seq', ${first!.s + BigInt(rows.length - 1)}::bigint)`;
    const base = first!.s;
    const seqs = rows.map((_, i) => base + BigInt(i));
    await tx.$executeRaw`UPDATE webhook_events e SET stream_seq = v.seq, relayed_at = now()
      FROM unnest(${rows.map((r) => r.id)}::uuid[], ${seqs.map(String)}::bigint[]) AS v(id, seq) WHERE e.id = v.id`;

    const orgs = [...new Set(rows.map((r) => r.org_id))];
    const endpoints = await tx.webhookEndpoint.findMany({
      where: { org_id: { in: orgs } },
      select: { id: true, org_id: true, events: true, enabled: true },
    });
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
      for (const ep of endpoints) {
        if (ep.org_id !== r.org_id) continue;
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
