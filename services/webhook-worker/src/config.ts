import { baseEnv, intFromEnv, webhookPolicyEnv, z } from '@docfleet/config';

export const webhookWorkerEnv = baseEnv.extend({
  ...webhookPolicyEnv.shape,
  HEALTH_PORT: intFromEnv(9105),
  /** Deliveries out at once in this process (each waits on a receiver, not on the CPU); also the claim batch. */
  WEBHOOK_CONCURRENCY: intFromEnv(32, 1),
  /**
   * How long a delivery-time URL check (DNS answer, every address allowed) is reused for the same URL;
   * deliveries connect to the checked address, so rebinding cannot redirect them. 0: resolve every attempt.
   */
  WEBHOOK_URL_CHECK_CACHE_MS: intFromEnv(5_000, 0),
  /** A receiver that has not answered within this long is a failed attempt. */
  WEBHOOK_TIMEOUT_MS: intFromEnv(10_000, 100),
  /** Bytes of a receiver's answer read (the rest is dropped; only the status counts). */
  WEBHOOK_MAX_RESPONSE_BYTES: intFromEnv(64 * 1024, 0),
  /** Retry schedule: first wait, growth factor, longest wait, window, jitter (libs/webhooks schedule.ts). */
  WEBHOOK_RETRY_BASE_MS: intFromEnv(5_000, 0),
  WEBHOOK_RETRY_FACTOR: z.coerce.number().min(1).default(3),
  WEBHOOK_RETRY_MAX_DELAY_MS: intFromEnv(2 * 3600_000, 0),
  WEBHOOK_RETRY_WINDOW_MS: intFromEnv(24 * 3600_000, 0),
  WEBHOOK_RETRY_JITTER: z.coerce.number().min(0).max(1).default(0.2),
  /** An endpoint whose deliveries failed this long without a success is disabled (3 days). */
  WEBHOOK_DISABLE_AFTER_MS: intFromEnv(3 * 24 * 3600_000, 0),
  /** How often the outbox is read when no NOTIFY woke the relay. */
  WEBHOOK_RELAY_INTERVAL_MS: intFromEnv(1000, 10),
  /** How often each worker looks for due deliveries without a doorbell (a lost doorbell, a killed worker's lease run out). */
  WEBHOOK_SWEEP_INTERVAL_MS: intFromEnv(5000, 50),
  /** A doorbell whose worker died is handed to another after this long (BullMQ lock). */
  WEBHOOK_JOB_LOCK_MS: intFromEnv(30_000, 1000),
  /** Stored events (and their finished deliveries) older than this are deleted; at least 1 h (SSE resume). */
  WEBHOOK_EVENT_RETENTION_HOURS: intFromEnv(168, 1),
  /** How often expired events are pruned (bounded batches per run). */
  WEBHOOK_PRUNE_INTERVAL_MS: intFromEnv(600_000, 1000),
});
export type WebhookWorkerEnv = z.infer<typeof webhookWorkerEnv>;
