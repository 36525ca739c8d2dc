// Retention of the outbox: stored events older than the retention period are deleted with their
// finished deliveries (and, by cascade, their attempts), in bounded batches so one run never holds
// long locks. An event with a pending delivery is kept whatever its age (it is still owed), and an
// event not yet relayed is kept (the relay has not numbered or fanned it out). The event stream
// promises Last-Event-ID resume over the last hour, so the period is never under one hour.
import type { Db } from '@docfleet/db';

export const MIN_EVENT_RETENTION_HOURS = 1;

export interface PruneOptions {
  retentionHours: number;
  /** Events deleted per statement. */
  batchSize?: number;
  /** Batches per run (the next run continues). */
  maxBatches?: number;
}

/** Deletes expired events and their finished deliveries; returns how many events went. */
export async function pruneWebhookEvents(db: Db, opts: PruneOptions): Promise<{ events: number; deliveries: number }> {
  const hours = Math.max(MIN_EVENT_RETENTION_HOURS, opts.retentionHours);
  const batch = opts.batchSize ?? 1000;
  const maxBatches = opts.maxBatches ?? 20;
  let events = 0;
  let deliveries = 0;
  for (let i = 0; i < maxBatches; i++) {
    // One statement: the doomed events are locked (SKIP LOCKED: a relay or another pruner holding
    // one leaves it to the next run), their finished deliveries and then the events deleted.
    const [row] = await db.$queryRaw<{ events: bigint; deliveries: bigint }[]>`
      WITH doomed AS (
        SELECT e.id FROM webhook_events e
        WHERE e.created_at < now() - ${hours} * interval '1 hour' AND e.stream_seq IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND d.status = 'pending')
        LIMIT ${batch} FOR UPDATE OF e SKIP LOCKED
      ), gone_d AS (
        DELETE FROM webhook_deliveries d USING doomed WHERE d.event_id = doomed.id AND d.status <> 'pending'
        RETURNING d.id
      ), gone_e AS (
        DELETE FROM webhook_events e USING doomed WHERE e.id = doomed.id RETURNING e.id
      )
      SELECT (SELECT count(*) FROM gone_e) AS events, (SELECT count(*) FROM gone_d) AS deliveries`;
    const n = Number(row?.events ?? 0);
    events += n;
    deliveries += Number(row?.deliveries ?? 0);
    if (n < batch) break;
  }
  return { events, deliveries };
}
