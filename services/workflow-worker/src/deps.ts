import type { Db } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
import type { ModelRegistry } from '@docfleet/models';
import type { QueueClient } from '@docfleet/queue';
import type { StorageDriver } from '@docfleet/storage';

/** What the jobs and runners need, built once in main.ts (or by a test that runs the worker in process). */
export interface WorkerDeps {
  db: Db;
  storage: StorageDriver;
  models: ModelRegistry;
  logger: Logger;
  /** For workflows that enqueue follow-up work (e.g. a parse before a bulk extraction). */
  queues?: QueueClient;
  /** How often a running attempt writes its heartbeat (WORKER_HEARTBEAT_SECONDS; default 10 s). */
  heartbeatMs?: number;
}
