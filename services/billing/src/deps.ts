import type { Db } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
import type { Registry } from 'prom-client';

export interface BillingDutyConfig {
  runningStaleMs: number;
  queuedStaleMs: number;
  /** An operation attempt without a heartbeat (or queued) this long, and no live queue entry, is reaped (WORKER_LOST_SECONDS). */
  operationLostMs?: number;
}

/**
 * What the duties need, built once in main.ts (or by a test that runs the handlers in process).
 * `hasLiveOperationJob` answers whether an operation attempt still has a live queue entry; with it
 * the reaper also ends (and refunds) operations whose attempt can no longer finish.
 */
export interface BillingDeps {
  db: Db;
  logger: Logger;
  /** Metrics go here so /metrics exposes them. */
  registry: Registry;
  config: BillingDutyConfig;
  hasLiveOperationJob?: (operationId: string, attempt: number) => Promise<boolean>;
}
