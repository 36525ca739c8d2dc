// When a failed delivery is tried again: exponential backoff with jitter, for a window (24 h),
// after which the delivery is given up. Every number comes from the environment so tests can run
// the schedule in seconds (docs/webhooks.md).
export interface RetrySchedule {
  /** First retry after about this long. */
  baseMs: number;
  /** Each later wait is this many times the previous one... */
  factor: number;
  /** ...up to this long. */
  maxDelayMs: number;
  /** A delivery is retried while its first attempt is younger than this. */
  windowMs: number;
  /** Each wait is scaled by a random factor in [1 - jitter, 1 + jitter]. */
  jitter: number;
}

export const DEFAULT_SCHEDULE: RetrySchedule = {
  baseMs: 5_000,
  factor: 3,
  maxDelayMs: 2 * 3600_000,
  windowMs: 24 * 3600_000,
  jitter: 0.2,
};

/** The wait before attempt `attempt + 1`, after `attempt` (≥ 1) attempts failed. */
export function retryDelayMs(s: RetrySchedule, attempt: number, random = Math.random): number {
  const raw = Math.min(s.maxDelayMs, s.baseMs * s.factor ** Math.max(0, attempt - 1));
  return Math.max(0, Math.round(raw * (1 + s.jitter * (2 * random() - 1))));
}

/** The next attempt's time, or null when the window is over (the delivery is given up). */
export function nextAttemptAt(s: RetrySchedule, firstAttemptAt: Date, attempt: number, now = new Date()): Date | null {
  const next = new Date(now.getTime() + retryDelayMs(s, attempt));
  return next.getTime() - firstAttemptAt.getTime() > s.windowMs ? null : next;
}
