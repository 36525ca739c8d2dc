// Job progress for the live event stream. The progress writes below report the row they moved to
// one sink per process; a worker's composition root points it at Redis (libs/webhooks
// publishProgress), so every gateway replica can serve a job's progress, whichever worker runs it.
// Advisory: nothing waits on it, and a process without a sink (tests, tools) reports nothing.
import type { Db, Tx } from '@docfleet/db';
import { publishProgress, type Publisher } from '@docfleet/webhooks';

export interface JobProgressRow {
  id: string;
  org_id: string;
  knowledge_base_id: string;
  file_id: string;
  kind: string;
  stage: string | null;
  percent: number;
  /** How the job ended (endedRow); absent while it runs. */
  status?: JobEnd;
}

/** The terminal statuses a job's last progress message carries. */
export type JobEnd = 'completed' | 'failed' | 'cancelled';

type Sink = (row: JobProgressRow) => void;
let sink: Sink | null = null;

/** Sets (or, with null, clears) where this process reports job progress. */
export function onJobProgress(s: Sink | null): void {
  sink = s;
}

export function reportJobProgress(rows: JobProgressRow[]): void {
  if (!sink) return;
  for (const r of rows) {
    try {
      sink(r);
    } catch {
      // A reporting failure never fails the job's write.
    }
  }
}

/**
 * A job that ended also goes out as progress, once its row has committed: a client waiting on the
 * event stream (libs/sdk waitForJob, on by default) then reads the terminal row at once, instead
 * of after its next poll or after the relay has positioned the stored `*.job.*` event. Call it
 * after the transaction that ended the job, with the row endedRow built inside it (null: nothing).
 */
export function reportJobEnded(ended: JobProgressRow | null): void {
  if (ended) reportJobProgress([ended]);
}

/**
 * A transaction that may end a job: `fn` calls `ended(row)` (endedRow) when it ends one, and that
 * row goes out (reportJobEnded) only once the transaction has committed.
 */
export async function endingTransaction<T>(
  db: Db,
  fn: (tx: Tx, ended: (row: JobProgressRow) => void) => Promise<T>,
): Promise<T> {
  let row: JobProgressRow | null = null;
  const out = await db.$transaction((tx) => fn(tx, (r) => (row = r)));
  reportJobEnded(row);
  return out;
}

/**
 * The progress row of a job that ends in this transaction (its locked row, with what changed). It
 * says how the job ended: a completed job is at 100 %, a failed or cancelled one keeps the percent
 * it reached, so a client can tell a job that failed at 40 % from one still running at 40 %.
 */
export function endedRow(
  job: Pick<JobProgressRow, 'id' | 'org_id' | 'knowledge_base_id' | 'file_id' | 'kind' | 'stage' | 'percent'>,
  status: JobEnd,
  change: { stage?: string | null } = {},
): JobProgressRow {
  return {
    id: job.id,
    org_id: job.org_id,
    knowledge_base_id: job.knowledge_base_id,
    file_id: job.file_id,
    kind: job.kind,
    stage: change.stage !== undefined ? change.stage : job.stage,
    percent: status === 'completed' ? 100 : job.percent,
    status,
  };
}

/** The sink every worker installs: each progress write goes out on the deployment's events channel. */
export function publishJobProgressTo(redis: Publisher, prefix: string): Sink {
  return (j) =>
    publishProgress(redis, prefix, {
      orgId: j.org_id,
      job_id: j.id,
      kind: j.kind === 'extract' ? 'extract' : 'parse',
      file_id: j.file_id,
      knowledge_base_id: j.knowledge_base_id,
      stage: j.stage,
      percent: j.percent,
      status: j.status ?? 'running',
    });
}
