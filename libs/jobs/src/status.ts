// The status words of a `jobs` row and the moves between them. Stored words are richer than the
// wire's: a parse is 'started' at claim and 'in_progress' once pages are parsed, an extraction is
// 'running'; the API shows all three as 'running' (publicJobStatus).

export const JOB_STATUSES = [
  'queued',
  'started',
  'in_progress',
  'running',
  'completed',
  'failed',
  'cancelled',
] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export type PublicJobStatus = 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';

/** Held by a worker (the row has a lease and a heartbeat). */
export const RUNNING_JOB_STATUSES = ['started', 'in_progress', 'running'];
/** Not finished: waiting in the queue or held by a worker. */
export const ACTIVE_JOB_STATUSES = ['queued', ...RUNNING_JOB_STATUSES];
/** Finished; nothing moves a terminal row again. */
export const TERMINAL_JOB_STATUSES = ['completed', 'failed', 'cancelled'];
/** A new dispatch under the same derived key retries these (`…:retry-N`, retry_of_job_id). */
export const RETRYABLE_JOB_STATUSES = ['failed', 'cancelled'];

export const isTerminalJobStatus = (status: string) => TERMINAL_JOB_STATUSES.includes(status);

/**
 * The allowed moves. A worker claims a queued row (or re-claims its own running one after a
 * redelivery), a parse reports 'in_progress' once pages are parsed, a worker that must stop hands
 * the row back to 'queued', and any unfinished row can end. Terminal rows never move.
 */
export const JOB_TRANSITIONS: Record<JobStatus, readonly JobStatus[]> = {
  queued: ['started', 'running', 'completed', 'failed', 'cancelled'],
  started: ['started', 'in_progress', 'queued', 'completed', 'failed', 'cancelled'],
  in_progress: ['started', 'in_progress', 'queued', 'completed', 'failed', 'cancelled'],
  running: ['running', 'queued', 'completed', 'failed', 'cancelled'],
  completed: [],
  failed: [],
  cancelled: [],
};

export const canMoveJob = (from: string, to: string) =>
  (JOB_TRANSITIONS as Record<string, readonly string[]>)[from]?.includes(to) ?? false;

/** The word the API shows for a stored status. */
export function publicJobStatus(raw: string): PublicJobStatus {
  if (RUNNING_JOB_STATUSES.includes(raw)) return 'running';
  return raw as PublicJobStatus;
}
