// One delivery attempt: take the delivery (lease), check the URL again (DNS rebinding), sign, POST,
// record the attempt and what follows (next attempt, give up, disable the endpoint), then queue
// what comes next: the retry, or the next delivery of the same resource.
import type { Db } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
import type { QueueClient } from '@docfleet/queue';
import { webhookHeaders } from '@docfleet/sdk';
import {
  abandonDelivery,
  checkWebhookUrl,
  claimDelivery,
  eventBody,
  recordAttempt,
  signingSecrets,
  type RetrySchedule,
  type UrlPolicy,
} from '@docfleet/webhooks';
import { send } from './send';

export interface DeliverDeps {
  db: Db;
  queues: QueueClient;
  logger: Logger;
  policy: UrlPolicy;
  schedule: RetrySchedule;
  timeoutMs: number;
  maxResponseBytes: number;
  disableAfterMs: number;
  /** Observes each attempt (metrics, the bench). */
  onAttempt?: (a: { ok: boolean; ms: number; eventType: string }) => void;
}

export type DeliverOutcome = 'succeeded' | 'retry' | 'failed' | 'not-due' | 'blocked' | 'busy' | 'done' | 'abandoned';

export async function deliverOnce(deps: DeliverDeps, deliveryId: string): Promise<DeliverOutcome> {
  // The lease outlives one attempt: a live worker never loses it, a dead one's runs out soon.
  const claim = await claimDelivery(deps.db, deliveryId, deps.timeoutMs + 5000);
  if (claim.kind === 'not-due') {
    await deps.queues.enqueue(
      'webhook.deliver',
      { deliveryId },
      { jobId: `whd-${deliveryId}-due${claim.at.getTime()}`, delay: Math.max(0, claim.at.getTime() - Date.now()) },
    );
    return 'not-due';
  }
  if (claim.kind !== 'claimed') return claim.kind;
  const { delivery, endpoint, event } = claim;
  const log = deps.logger.child({ delivery_id: delivery.id, webhook_id: endpoint.id, event_id: event.id });

  if (!endpoint.enabled && event.event_type !== 'webhook.test') {
    const end = await abandonDelivery(deps.db, delivery, 'endpoint disabled');
    await queueNext(deps, end.successor, delivery.id, delivery.attempts + 1);
    return 'abandoned';
  }

  const body = JSON.stringify(eventBody(event));
  let result;
  try {
    const target = await checkWebhookUrl(endpoint.url, deps.policy);
    const headers = webhookHeaders(signingSecrets(endpoint), event.id, body);
    result = await send(target, body, headers, { timeoutMs: deps.timeoutMs, maxResponseBytes: deps.maxResponseBytes });
  } catch (err) {
    // The URL policy refused the address it resolves to now: a failed attempt like any other.
    result = { ok: false, statusCode: null, error: (err as Error).message.slice(0, 500), durationMs: 0 };
  }
  deps.onAttempt?.({ ok: result.ok, ms: result.durationMs, eventType: event.event_type });
  const end = await recordAttempt(deps.db, delivery, result, {
    schedule: deps.schedule,
    disableAfterMs: deps.disableAfterMs,
  });
  const attempt = delivery.attempts + 1;
  if (end.status === 'pending' && end.nextAttemptAt) {
    log.info({ attempt, status_code: result.statusCode, error: result.error }, 'webhook attempt failed; will retry');
    await deps.queues.enqueue(
      'webhook.deliver',
      { deliveryId },
      { jobId: `whd-${deliveryId}-${attempt}`, delay: Math.max(0, end.nextAttemptAt.getTime() - Date.now()) },
    );
    return 'retry';
  }
  if (end.status === 'failed') log.warn({ attempt, error: result.error }, 'webhook delivery given up');
  if (end.disabled) log.warn({ url: endpoint.url }, 'webhook endpoint disabled after failing for too long');
  await queueNext(deps, end.successor, delivery.id, attempt);
  return end.status === 'succeeded' ? 'succeeded' : 'failed';
}

/** The next delivery of the same resource was waiting for this one: it may go now. */
async function queueNext(deps: DeliverDeps, successor: string | null, after: string, attempt: number) {
  if (!successor) return;
  await deps.queues.enqueue(
    'webhook.deliver',
    { deliveryId: successor },
    { jobId: `whd-${successor}-after-${after}-${attempt}` },
  );
}
