// Moves the outbox to deliveries as soon as an event commits: LISTEN on the outbox channel (the
// emitting transaction NOTIFYs at commit), with a poll every WEBHOOK_RELAY_INTERVAL_MS in case a
// notification was missed (a dropped connection). Relayed events go out on the Redis events
// channel for the event streams. New deliveries wake this process's delivery loop at once and ring
// one doorbell per `doorbellEvery` of them on the queue, so other worker processes join in.
import { OUTBOX_CHANNEL, eventsChannel, relayBatch } from '@docfleet/webhooks';
import { Client } from 'pg';
import type { RelayDeps } from './deps';

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
      if (out.deliveries) {
        deps.onDeliveries(out.deliveries);
        const rings = Math.min(64, Math.ceil(out.deliveries / deps.doorbellEvery));
        // The batch's first event names its doorbells (an event is relayed once).
        const first = out.events[0];
        const tag = first?.kind === 'event' ? first.event.id : String(Date.now());
        await Promise.all(
          Array.from({ length: rings }, (_, i) =>
            deps.queues.enqueue('webhook.wake', { reason: 'relayed' }, { jobId: `whw-${tag}-r${i}` }),
          ),
        ).catch((err) => deps.logger.warn({ err }, 'doorbell not rung; the workers poll'));
      }
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

  return {
    kick,
    async stop() {
      stopped = true;
      clearInterval(poll);
      await running;
      await listener?.end().catch(() => undefined);
    },
  };
}
