// Moves the outbox to deliveries as soon as an event commits: LISTEN on the outbox channel (the
// emitting transaction NOTIFYs at commit), with a poll every WEBHOOK_RELAY_INTERVAL_MS in case a
// notification was missed (a dropped connection). Relayed events go out on the Redis events
// channel for the event streams; each new delivery gets a queue job. A sweep queues due deliveries
// that have none (a Redis that lost its jobs, a job that died with its worker twice).
import type { Db } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
import type { QueueClient, Redis } from '@docfleet/queue';
import { OUTBOX_CHANNEL, dueDeliveries, eventsChannel, relayBatch } from '@docfleet/webhooks';
import { Client } from 'pg';

export interface RelayDeps {
  db: Db;
  databaseUrl: string;
  queues: QueueClient;
  redis: Redis;
  prefix: string;
  logger: Logger;
  intervalMs: number;
  sweepIntervalMs: number;
}

export async function startRelay(deps: RelayDeps): Promise<{ stop(): Promise<void>; kick(): void }> {
  let running: Promise<void> | null = null;
  let again = false;
  let stopped = false;

  const runOnce = async () => {
    for (;;) {
      const out = await relayBatch(deps.db);
      if (out.busy) {
        // Another process is relaying; it may have read before our event committed: look again soon.
        setTimeout(kick, 25).unref();
        return;
      }
      if (out.events.length) {
        const pipe = deps.redis.pipeline();
        for (const e of out.events) pipe.publish(eventsChannel(deps.prefix), JSON.stringify(e));
        await pipe.exec().catch((err) => deps.logger.warn({ err }, 'event stream publish failed'));
      }
      await Promise.all(
        out.deliveries.map((id) =>
          deps.queues.enqueue('webhook.deliver', { deliveryId: id }, { jobId: `whd-${id}-0` }),
        ),
      );
      if (!out.more) return;
    }
  };
  function kick() {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = runOnce()
      .catch((err) => deps.logger.error({ err }, 'webhook relay failed; the next poll retries'))
      .finally(() => {
        running = null;
        if (again) {
          again = false;
          kick();
        }
      });
  }

  let listener: Client | null = null;
  const listen = async () => {
    const c = new Client({ connectionString: deps.databaseUrl });
    c.on('notification', () => kick());
    c.on('error', (err) => {
      deps.logger.warn({ err }, 'outbox LISTEN connection lost; reconnecting');
      listener = null;
      c.end().catch(() => undefined);
      if (!stopped) setTimeout(() => void listen().catch(() => undefined), 1000).unref();
    });
    await c.connect();
    await c.query(`LISTEN ${OUTBOX_CHANNEL}`);
    listener = c;
    kick();
  };
  await listen().catch((err) => deps.logger.warn({ err }, 'outbox LISTEN failed; polling only'));

  const poll = setInterval(kick, deps.intervalMs);
  poll.unref();
  const sweep = setInterval(() => {
    void (async () => {
      const due = await dueDeliveries(deps.db, deps.sweepIntervalMs);
      const slot = Math.floor(Date.now() / deps.sweepIntervalMs);
      await Promise.all(
        due.map((d) =>
          deps.queues.enqueue('webhook.deliver', { deliveryId: d.id }, { jobId: `whd-${d.id}-${d.attempts}-s${slot}` }),
        ),
      );
      if (due.length) deps.logger.info({ count: due.length }, 'due webhook deliveries queued again');
    })().catch((err) => deps.logger.warn({ err }, 'webhook sweep failed'));
  }, deps.sweepIntervalMs);
  sweep.unref();

  return {
    kick,
    async stop() {
      stopped = true;
      clearInterval(poll);
      clearInterval(sweep);
      await running;
      await listener?.end().catch(() => undefined);
    },
  };
}
