import { baseEnv, intFromEnv, type z } from '@docfleet/config';
import { scheduleEnv } from '@docfleet/queue';

/** Environment of the billing service (on top of every service's variables). */
export const billingEnv = baseEnv.extend({
  HEALTH_PORT: intFromEnv(9104),
  /** BILLING_<DUTY>_EVERY_SECONDS: the cadence of each duty, declared in the queue registry beside it. */
  ...scheduleEnv('billing'),
  BILLING_SCHEDULE_CHECK_SECONDS: intFromEnv(30, 1),
  REAPER_RUNNING_STALE_MINUTES: intFromEnv(30, 1),
  REAPER_QUEUED_STALE_HOURS: intFromEnv(24, 1),
});
export type BillingEnv = z.infer<typeof billingEnv>;
