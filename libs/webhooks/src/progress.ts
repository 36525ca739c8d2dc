// Live events travel to every gateway replica over one Redis channel per deployment: the relay
// publishes each stored event once it has a stream position, and workers publish job progress
// (which is never stored). A replica holding event streams subscribes and filters per connection.
import type { api } from '@docfleet/contracts';

export const eventsChannel = (prefix: string) => `${prefix}:events`;

/** A message on the events channel. */
export type LiveMessage =
  | {
      kind: 'event';
      seq: string;
      /**
       * The stream position relayed just before this one (the relay draws positions in blocks,
       * one relay at a time). A subscriber that saw `prev_seq` last has seen every position up to
       * `seq`; otherwise (messages of two relays crossing, a position lost to a rolled-back relay,
       * a publisher without it) it reads from PostgreSQL by position.
       */
      prev_seq?: string;
      org_id: string;
      knowledge_base_id: string | null;
      file_id: string | null;
      event: api.WebhookEvent;
    }
  | { kind: 'progress'; org_id: string; progress: api.JobProgressEvent };

export interface Publisher {
  publish(channel: string, message: string): Promise<unknown>;
}

/** Advisory: a lost progress message is harmless (the next one or the terminal event follows). */
export function publishProgress(
  redis: Publisher | undefined,
  prefix: string,
  p: Omit<api.JobProgressEvent['data'], 'percent'> & { orgId: string; percent: number },
): void {
  if (!redis) return;
  const { orgId, ...data } = p;
  const msg: LiveMessage = {
    kind: 'progress',
    org_id: orgId,
    progress: { type: 'job.progress', org_id: orgId, data: { ...data, percent: Math.round(data.percent) } },
  };
  redis.publish(eventsChannel(prefix), JSON.stringify(msg)).catch(() => undefined);
}
