import { baseEnv, intFromEnv } from '@docfleet/config';

export const indexWorkerEnv = baseEnv.extend({
  HEALTH_PORT: intFromEnv(9102),
  /** Jobs processed at once by this process (each holds one database connection while it writes). */
  INDEX_CONCURRENCY: intFromEnv(2, 1),
  /** Segments per INSERT statement. */
  INDEX_BATCH_ROWS: intFromEnv(500, 1),
  /** Time limit of one index transaction. */
  INDEX_TX_TIMEOUT_MS: intFromEnv(600_000, 1000),
  /** How often parses whose index job the queue lost (a Redis restarted empty) are queued again. */
  INDEX_SWEEP_INTERVAL_SECONDS: intFromEnv(30, 1),
});
