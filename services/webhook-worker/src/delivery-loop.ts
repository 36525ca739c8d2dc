// The delivery loop of one worker process: claim due deliveries from PostgreSQL in batches (one
// statement leases up to WEBHOOK_CONCURRENCY minus what is in flight, with endpoint and event),
// send them concurrently over keep-alive connections, and record the successes of everything that
// finished meanwhile in one statement. The queue carries only doorbells ("deliveries are due");
// what is due lives in the rows, so a lost doorbell costs at most the poll interval, and a worker
// killed mid-delivery leaves leases that run out and are claimed again (at-least-once, same id).
//
// Per attempt: the URL is checked again (DNS rebinding; an accepted answer is reused for
// WEBHOOK_URL_CHECK_CACHE_MS, and the POST goes to an address of that checked answer), the body signed, POSTed with the timeout
// and the response cap (send.ts). A failed attempt goes through recordAttempt (its retry time with
// backoff and jitter, the 3-day disable, all in one transaction) and rings a delayed doorbell at
// its retry time. Order per resource is the claim's: a later delivery of a resource is not claimable
// while an earlier one is pending, and becomes claimable when that one's end is committed.
import { webhookHeaders } from '@docfleet/sdk';
import {
  abandonDelivery,
  cachedUrlChecker,
  claimDue,
  eventBody,
  recordAttempt,
  recordSuccesses,
  signingSecrets,
  type AttemptResult,
  type Claimed,
} from '@docfleet/webhooks';
import type { DeliveryLoopDeps } from './deps';
import { send } from './send';

interface Finished {
  claim: Claimed;
  result: AttemptResult;
}

export class DeliveryLoop {
  private inflight = 0;
  private claiming = false;
  private wanted = false;
  private flushing = false;
  private stopped = false;
  private readonly finished: Finished[] = [];
  private idleWaiters: (() => void)[] = [];
  private readonly poll: NodeJS.Timeout;
  private readonly sending = new Set<Promise<void>>();
  private readonly checkUrl: ReturnType<typeof cachedUrlChecker>;

  constructor(private readonly deps: DeliveryLoopDeps) {
    this.checkUrl = cachedUrlChecker(deps.policy, { ttlMs: deps.urlCheckCacheMs ?? 0 });
    this.poll = setInterval(() => this.kick(), deps.pollMs);
    this.poll.unref();
  }

  /** Something may be due: claim until nothing is. */
  kick(): void {
    if (this.stopped) return;
    this.wanted = true;
    void this.claimLoop();
  }

  /** Kicks, and resolves once the loop found nothing more to claim and has nothing in flight. */
  drain(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const p = new Promise<void>((resolve) => this.idleWaiters.push(resolve));
    this.kick();
    return p;
  }

  /** Stops claiming; attempts in flight finish and are recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.poll);
    while (this.sending.size || this.flushing || this.finished.length) {
      await Promise.all([...this.sending]);
      await this.flush();
    }
    this.wakeIdle();
  }

  private async claimLoop(): Promise<void> {
    if (this.claiming) return;
    this.claiming = true;
    try {
      while (this.wanted && !this.stopped) {
        const room = this.deps.concurrency - this.inflight;
        // Full: a finishing delivery asks again. Nearly full: wait for a bigger batch (one
        // statement per quarter of the window, not per delivery).
        if (room <= 0 || (this.inflight > 0 && room < Math.ceil(this.deps.concurrency / 4))) break;
        this.wanted = false;
        const batch = await claimDue(this.deps.db, room, this.deps.timeoutMs + 5000);
        for (const c of batch) this.start(c);
        if (batch.length === room) this.wanted = true; // there may be more
      }
    } catch (err) {
      this.deps.logger.warn({ err }, 'claiming webhook deliveries failed; retrying shortly');
      setTimeout(() => this.kick(), 1000).unref();
    } finally {
      this.claiming = false;
    }
    if (!this.inflight && !this.wanted) this.wakeIdle();
  }

  private wakeIdle() {
    const w = this.idleWaiters;
    this.idleWaiters = [];
    for (const f of w) f();
  }

  private start(c: Claimed): void {
    this.inflight++;
    const p = this.attempt(c)
      .then((result) => {
        if (result) this.finished.push({ claim: c, result });
        else this.inflight--; // handled on its own path (abandoned)
      })
      .catch((err) => {
        // Not recorded: the lease runs out and another attempt follows (at-least-once).
        this.inflight--;
        this.deps.logger.error({ err, delivery_id: c.delivery.id }, 'webhook attempt could not be recorded');
      })
      .finally(() => {
        this.sending.delete(p);
        void this.flush();
      });
    this.sending.add(p);
  }

  /** Sends one delivery; resolves with the attempt's result (recorded by flush) or null when ended here. */
  private async attempt({ delivery, endpoint, event }: Claimed): Promise<AttemptResult | null> {
    if (!endpoint.enabled && event.event_type !== 'webhook.test') {
      await abandonDelivery(this.deps.db, delivery, 'endpoint disabled');
      this.wanted = true; // its successor may go
      return null;
    }
    const body = JSON.stringify(eventBody(event));
    let result: AttemptResult;
    try {
      const target = await this.checkUrl(endpoint.url);
      const headers = webhookHeaders(signingSecrets(endpoint), event.id, body);
      result = await send(target, body, headers, {
        timeoutMs: this.deps.timeoutMs,
        maxResponseBytes: this.deps.maxResponseBytes,
      });
    } catch (err) {
      // The URL policy refused the address it resolves to now: a failed attempt like any other.
      result = { ok: false, statusCode: null, error: (err as Error).message.slice(0, 500), durationMs: 0 };
    }
    this.deps.onAttempt?.({ ok: result.ok, ms: result.durationMs, eventType: event.event_type });
    return result;
  }

  /** Records every finished attempt: the successes in one statement, failures one transaction each. */
  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.finished.length) {
        const done = this.finished.splice(0);
        const ok = done.filter((f) => f.result.ok);
        const failed = done.filter((f) => !f.result.ok);
        await Promise.all([
          ok.length
            ? recordSuccesses(
                this.deps.db,
                ok.map((f) => ({ delivery: f.claim.delivery, result: f.result })),
              ).catch((err) =>
                this.deps.logger.error(
                  { err, count: ok.length },
                  'webhook successes not recorded; they will be sent again',
                ),
              )
            : undefined,
          ...failed.map((f) =>
            this.recordFailure(f).catch((err) =>
              this.deps.logger.error(
                { err, delivery_id: f.claim.delivery.id },
                'webhook attempt not recorded; it will be sent again',
              ),
            ),
          ),
        ]);
        this.inflight -= done.length;
        this.wanted = true; // room, and successors of what ended
      }
    } finally {
      this.flushing = false;
    }
    void this.claimLoop();
  }

  private async recordFailure({ claim, result }: Finished): Promise<void> {
    const { delivery, endpoint } = claim;
    const end = await recordAttempt(this.deps.db, delivery, result, {
      schedule: this.deps.schedule,
      disableAfterMs: this.deps.disableAfterMs,
    });
    const attempt = delivery.attempts + 1;
    const log = this.deps.logger.child({
      delivery_id: delivery.id,
      webhook_id: endpoint.id,
      event_id: delivery.event_id,
    });
    if (end.status === 'pending' && end.nextAttemptAt) {
      log.info({ attempt, status_code: result.statusCode, error: result.error }, 'webhook attempt failed; will retry');
      // At the retry time: this process looks again, and a doorbell rings for any worker (should
      // this one be gone or busy); the poll is the fallback for both.
      const wait = Math.max(0, end.nextAttemptAt.getTime() - Date.now());
      setTimeout(() => this.kick(), wait).unref();
      await this.deps.queues.enqueue(
        'webhook.wake',
        { reason: 'retry' },
        { jobId: `whw-${delivery.id}-${attempt}`, delay: wait },
      );
      return;
    }
    if (end.status === 'failed') log.warn({ attempt, error: result.error }, 'webhook delivery given up');
    if (end.disabled) log.warn({ url: endpoint.url }, 'webhook endpoint disabled after failing for too long');
  }
}
