import type { Db } from '@docfleet/db';
import type { Logger } from '@docfleet/logger';
import type { QueueClient } from '@docfleet/queue';
import type { StorageDriver } from '@docfleet/storage';
import type { ParseWorkerEnv } from './config';
import type { ParseMetrics } from './parse-metrics';

/** What the handler needs, built once in main.ts (or by a test that runs the worker in process). */
export interface WorkerDeps {
  env: Pick<ParseWorkerEnv, 'MAX_PAGES'> &
    Partial<
      Pick<
        ParseWorkerEnv,
        | 'PARSE_PAGE_MAX_OPERATORS'
        | 'PARSE_PAGE_MAX_SECONDS'
        | 'PARSE_PAGE_MAX_MEGAPIXELS'
        | 'PARSE_PAGE_MAX_PIXELS'
        | 'PARSE_SHARD_PAGES'
        | 'PARSE_TEST_PAGE_DELAY_MS'
        | 'PARSE_OCR_HEADER_REREAD'
        | 'PARSE_OCR_BODY_REREAD'
        | 'PARSE_OCR_CELL_REREAD'
      >
    >;
  db: Db;
  storage: StorageDriver;
  /** Queues a parse's index job with its completion (completeParseJob). */
  queues: QueueClient;
  logger: Logger;
  /** Identifies this process in jobs.lease_owner. */
  workerId: string;
  /** Set when a SIGTERM's grace period ran out: the current job is handed back to the queue. */
  handBack: { requested: boolean };
  /** Page images (default true); false only for diagnostics and benchmarks (PARSE_PAGE_IMAGES). */
  pageImages?: boolean;
  /** Parse outcomes and pages for /metrics (main.ts; tests may leave it out). */
  metrics?: ParseMetrics;
  /** How often the job being parsed gets its heartbeat (WORKER_HEARTBEAT_SECONDS; default 10 s). */
  heartbeatMs?: number;
}
