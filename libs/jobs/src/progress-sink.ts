// Job progress for the live event stream. The progress writes below report the row they moved to
// one sink per process; a worker's composition root points it at Redis (libs/webhooks
// publishProgress), so every gateway replica can serve a job's progress, whichever worker runs it.
// Advisory: nothing waits on it, and a process without a sink (tests, tools) reports nothing.
import { publishProgress, type Publisher } from '@docfleet/webhooks';

export interface JobProgressRow {
  id: string;
  org_id: string;
  knowledge_base_id: string;
  file_id: string;
  kind: string;
  stage: string | null;
  percent: number;
}

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
    });
}
