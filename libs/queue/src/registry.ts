import { z } from 'zod';

// WIRE CONTRACT: queue names and job names are read by running workers and by the autoscalers
// (KEDA watches `<prefix>:<queue>:wait`). Never rename one in place; add a new name instead.
export const QUEUES = ['parse', 'index', 'workflow', 'billing', 'webhook'] as const;
export type QueueName = (typeof QUEUES)[number];

const trace = z.record(z.string(), z.string()).optional();

/** A duty of the billing service: one run per tick, never retried (the next tick runs it again). */
function billingDuty<E extends string>(everySeconds: number, env: E) {
  return {
    queue: 'billing' as const,
    payload: z.object({ trace }),
    attempts: 1,
    backoffMs: 0,
    schedule: { everySeconds, env },
  };
}

/** Every job of the fleet: its queue, payload schema, attempts and backoff. Payloads carry ids. */
export const JOBS = {
  'parse.file': {
    queue: 'parse',
    payload: z.object({ jobId: z.string().uuid(), orgId: z.string().uuid(), trace }),
    attempts: 3,
    backoffMs: 2000,
  },
  /**
   * One page range of a sharded parse (issue 17): any parse worker takes it; the shard that
   * finishes last assembles the bundle (services/parse-worker/README.md, Sharded parses).
   */
  'parse.shard': {
    queue: 'parse',
    payload: z.object({
      jobId: z.string().uuid(),
      orgId: z.string().uuid(),
      shardNo: z.number().int().min(0),
      trace,
    }),
    attempts: 3,
    backoffMs: 1000,
  },
  'index.file-version': {
    queue: 'index',
    payload: z.object({
      orgId: z.string().uuid(),
      fileId: z.string().uuid(),
      fileVersionId: z.string().uuid(),
      manifestId: z.string().uuid(),
      /** The job's row in index_pending_updates (issue 13.6), cleared when the job is applied. */
      pendingId: z.string().optional(),
      trace,
    }),
    attempts: 5,
    backoffMs: 1000,
  },
  'index.remove-file': {
    queue: 'index',
    payload: z.object({
      orgId: z.string().uuid(),
      fileId: z.string().uuid(),
      /** The job's row in index_pending_updates (issue 13.6), cleared when the job is applied. */
      pendingId: z.string().optional(),
      trace,
    }),
    attempts: 5,
    backoffMs: 1000,
  },
  'extract.file': {
    queue: 'workflow',
    payload: z.object({ jobId: z.string().uuid(), orgId: z.string().uuid(), trace }),
    attempts: 3,
    backoffMs: 2000,
  },
  'operation.run': {
    queue: 'workflow',
    payload: z.object({
      operationId: z.string().uuid(),
      orgId: z.string().uuid(),
      attempt: z.number().int().min(1),
      trace,
    }),
    attempts: 2,
    backoffMs: 2000,
  },
  // A doorbell for the webhook workers (services/webhook-worker): "deliveries are due". The worker
  // that takes it claims due deliveries from PostgreSQL in batches until none is left; the rows, not
  // the jobs, are the work (a lost doorbell costs at most the worker's poll interval). The relay
  // rings one per WEBHOOK_CONCURRENCY new deliveries, so the waiting list still grows with the
  // backlog for KEDA; a failed attempt rings a delayed one at its retry time.
  'webhook.wake': {
    queue: 'webhook',
    payload: z.object({ reason: z.string().max(200).optional(), trace }),
    attempts: 1,
    backoffMs: 0,
  },
  // Before doorbells, one job per delivery attempt. Still consumed (as a doorbell) so jobs queued by
  // an older release are not left behind during a rollout; nothing enqueues it any more.
  'webhook.deliver': {
    queue: 'webhook',
    payload: z.object({ deliveryId: z.string().uuid(), trace }),
    attempts: 1,
    backoffMs: 0,
  },
  // The ledger's duties run on a schedule (services/billing keeps it in Redis): every `everySeconds`
  // unless the service's `env` variable says otherwise. With WORKER_LOST_SECONDS (40), the reaper
  // fails and refunds a dead worker's operation within a minute.
  'billing.reap': billingDuty(15, 'BILLING_REAP_EVERY_SECONDS'),
  'billing.rollover': billingDuty(3600, 'BILLING_ROLLOVER_EVERY_SECONDS'),
  'billing.rollup': billingDuty(300, 'BILLING_ROLLUP_EVERY_SECONDS'),
  'billing.reconcile': billingDuty(300, 'BILLING_RECONCILE_EVERY_SECONDS'),
} as const satisfies Record<string, JobDef>;

interface JobDef {
  queue: QueueName;
  payload: z.ZodType;
  attempts: number;
  backoffMs: number;
  /** A repeatable job: its default cadence and the variable that overrides it. */
  schedule?: { everySeconds: number; env: string };
}

export type JobName = keyof typeof JOBS;
export type JobPayload<N extends JobName> = z.infer<(typeof JOBS)[N]['payload']>;
export type JobsOfQueue<Q extends QueueName> = {
  [N in JobName]: (typeof JOBS)[N]['queue'] extends Q ? N : never;
}[JobName];

export function jobsOfQueue(queue: QueueName): JobName[] {
  return (Object.keys(JOBS) as JobName[]).filter((n) => JOBS[n].queue === queue);
}

type ScheduledJob = { [N in JobName]: (typeof JOBS)[N] extends { schedule: object } ? N : never }[JobName];
type ScheduleVar<Q extends QueueName> = {
  [N in ScheduledJob]: (typeof JOBS)[N]['queue'] extends Q ? (typeof JOBS)[N]['schedule']['env'] : never;
}[ScheduledJob];

function scheduledOf(queue: QueueName) {
  return jobsOfQueue(queue).flatMap((name) => {
    const def: JobDef = JOBS[name];
    return def.schedule ? [{ name, ...def.schedule }] : [];
  });
}

/** The configuration of a queue's schedules (zod, for the service's defineEnv): seconds, at least 1. */
export function scheduleEnv<Q extends QueueName>(queue: Q): Record<ScheduleVar<Q>, z.ZodDefault<z.ZodCoercedNumber>> {
  return Object.fromEntries(
    scheduledOf(queue).map((s) => [s.env, z.coerce.number().int().min(1).default(s.everySeconds)]),
  ) as Record<ScheduleVar<Q>, z.ZodDefault<z.ZodCoercedNumber>>;
}

/** A queue's repeatable jobs at the cadence `env` configures (parsed with scheduleEnv). */
export function schedulesOf(queue: QueueName, env: Record<string, unknown>): Array<{ name: JobName; everyMs: number }> {
  return scheduledOf(queue).map((s) => ({ name: s.name, everyMs: Number(env[s.env] ?? s.everySeconds) * 1000 }));
}
