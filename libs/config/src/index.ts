import { availableParallelism } from 'node:os';
import { z } from 'zod';

export { z };

/**
 * Parses process.env once against a zod schema. Every problem is printed as one line naming the
 * variable, then the process exits 1: a service must never start on half-valid configuration.
 */
export function defineEnv<S extends z.ZodObject>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
  opts: { exit?: boolean } = {},
): Readonly<z.infer<S>> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `invalid configuration: ${i.path.join('.') || '(env)'}: ${i.message}`);
    if (opts.exit === false) throw new Error(lines.join('\n'));
    for (const l of lines) process.stderr.write(l + '\n');
    process.exit(1);
  }
  return Object.freeze(parsed.data);
}

const intFromEnv = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

/** Variables every service reads (the root README, "Configuration"). */
export const baseEnv = z.object({
  NODE_ENV: z.string().default('development'),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/docfleet'),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  DATA_DIR: z.string().min(1).default('./.data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DB_POOL_MAX: intFromEnv(10, 1),
  QUEUE_PREFIX: z.string().min(1).default('docfleet'),
  HEALTH_PORT: intFromEnv(0),
  /** A worker running a parse job or an operation writes its heartbeat_at this often. */
  WORKER_HEARTBEAT_SECONDS: intFromEnv(10, 1),
  /**
   * A running job or operation whose heartbeat is older than this has lost its worker: a waiting
   * synchronous request runs it again, the reapers retry or fail (and refund) it (issue 13.2).
   */
  WORKER_LOST_SECONDS: intFromEnv(40, 2),
});

const flag = z
  .enum(['true', 'false'])
  .default('false')
  .transform((v) => v === 'true');

/** Webhook URL policy (docs/webhooks.md): read by the gateway at create time and the worker at delivery. */
export const webhookPolicyEnv = z.object({
  /** Accept plain http webhook URLs (local development and tests only). */
  WEBHOOK_ALLOW_HTTP: flag,
  /** Accept hosts resolving to loopback, private, link-local or metadata addresses (tests, local development). */
  WEBHOOK_ALLOW_PRIVATE: flag,
});

export const gatewayEnv = baseEnv.extend({
  ...webhookPolicyEnv.shape,
  /** A replica holding event streams sends a comment line this often so proxies keep the connection. */
  EVENT_STREAM_HEARTBEAT_SECONDS: intFromEnv(15, 1),
  PORT: intFromEnv(8080),
  HOST: z.string().default('0.0.0.0'),
  MAX_UPLOAD_BYTES: intFromEnv(200 * 1024 * 1024, 1),
  MAX_BODY_BYTES: intFromEnv(1024 * 1024, 1),
  RATE_LIMIT_POINTS: intFromEnv(600, 1),
  RATE_LIMIT_WINDOW_SECONDS: intFromEnv(60, 1),
  SESSION_TTL_HOURS: intFromEnv(24 * 7, 1),
  MAX_PAGES: intFromEnv(10_000, 1),
  TRUST_PROXY: z.string().default('loopback'),
  /** API key rows are trusted this long in each gateway process; 0 reads the database on every request. */
  API_KEY_CACHE_TTL_SECONDS: z.coerce.number().min(0).max(300).default(5),
  /** Rate-limit tokens a gateway reserves from Redis at a time; 1 asks Redis on every request. */
  RATE_LIMIT_LOCAL_BATCH: intFromEnv(10, 1),
  /** Login attempts per account before each further one waits (exponential backoff; docs/operations.md). */
  LOGIN_FREE_FAILURES: intFromEnv(5, 1),
  /** Login attempts per client address (any account) before each further one waits. */
  LOGIN_IP_FREE_FAILURES: intFromEnv(20, 1),
  /** The first wait; each further failed attempt doubles it, up to LOGIN_BACKOFF_MAX_SECONDS. */
  LOGIN_BACKOFF_BASE_SECONDS: intFromEnv(1, 1),
  LOGIN_BACKOFF_MAX_SECONDS: intFromEnv(900, 1),
  /** Failures are forgotten this long after an account's or address's last attempt. */
  LOGIN_FAILURE_WINDOW_SECONDS: intFromEnv(3600, 1),
  /**
   * Search scored in the gateway over in-memory copies of knowledge bases' postings (issue 22.5): the
   * copies of one process together stay under this many MiB (least recently searched dropped first);
   * 0 turns it off (every search in SQL).
   */
  SEARCH_MEMORY_MB: intFromEnv(512),
  /** Knowledge bases with fewer indexed segments than this are searched in SQL only. */
  SEARCH_MEMORY_MIN_SEGMENTS: intFromEnv(0),
  /**
   * State statements of one knowledge base a gateway process sends at once for searches scored in
   * memory; a search arriving when that many are in flight shares the next one. 0: each search sends
   * its own (issue 22.5; docs/operations.md).
   */
  SEARCH_STATE_IN_FLIGHT: intFromEnv(2),
  /**
   * Gateway processes on this machine sharing PORT (node:cluster; docs/operations.md, "Gateway
   * processes"): a number, or `auto` for one per available core. Each keeps its own DB_POOL_MAX
   * connections and up to SEARCH_MEMORY_MB of search copies. Default 1: `pnpm start` also runs every
   * worker on the same cores, and Kubernetes scales gateways by replicas.
   */
  GATEWAY_PROCESSES: z
    .union([z.literal('auto'), z.coerce.number().int().min(1).max(64)])
    .default(1)
    .transform((v) => (v === 'auto' ? Math.max(1, availableParallelism()) : v)),
  /** The web console's build served at `/`: empty for services/console/dist, `off` to serve none. */
  CONSOLE_DIR: z.string().default(''),
});

export type BaseEnv = z.infer<typeof baseEnv>;
export type GatewayEnv = z.infer<typeof gatewayEnv>;
export { intFromEnv };
