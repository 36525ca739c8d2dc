import type { Db } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
import type { StorageDriver } from '@docfleet/storage';

/** What the index jobs need, built once in main.ts (or by a test that runs the handlers in process). */
export interface IndexDeps {
  db: Db;
  storage: StorageDriver;
  logger: Logger;
  /** Rows per INSERT statement (one jsonb parameter each). */
  batchRows?: number;
  /** Interactive transaction time limit; a 20k-segment workbook takes seconds. */
  txTimeoutMs?: number;
}
