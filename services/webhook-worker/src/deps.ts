import type { Db } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
import type { QueueClient, Redis } from '@docfleet/queue';
import type { RetrySchedule, UrlPolicy } from '@docfleet/webhooks';

/** What the delivery loop needs, built once in main.ts. */
export interface DeliveryLoopDeps {
  db: Db;
  queues: QueueClient;
  logger: Logger;
  policy: UrlPolicy;
  /** An accepted URL check (its resolved, allowed addresses) is reused this long; 0: every attempt resolves. */
  urlCheckCacheMs?: number;
  schedule: RetrySchedule;
  timeoutMs: number;
  maxResponseBytes: number;
  disableAfterMs: number;
  /** Deliveries out at once in this process. */
  concurrency: number;
  /** Due deliveries are looked for this often without a doorbell (expired leases, lost doorbells). */
  pollMs: number;
  /** Observes each attempt (metrics). */
  onAttempt?: (a: { ok: boolean; ms: number; eventType: string }) => void;
}

/** What the outbox relay needs, built once in main.ts. */
export interface RelayDeps {
  db: Db;
  databaseUrl: string;
  queues: QueueClient;
  redis: Redis;
  prefix: string;
  logger: Logger;
  intervalMs: number;
  /** New deliveries were relayed: this process's delivery loop. */
  onDeliveries: (count: number) => void;
  /** One doorbell per this many new deliveries (the worker's concurrency). */
  doorbellEvery: number;
}
