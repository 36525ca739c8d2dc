// Waiting for queued work with a progress line on stderr (only when it changes).
import type { DocfleetClient, Job, Operation, QueuedResult } from '@docfleet/sdk';
import { PartialFailure, type Io } from './context';

export async function settleOperation<T>(
  client: DocfleetClient,
  io: Io,
  r: QueuedResult<T>,
  what: string,
): Promise<{ operationId?: string; output: T }> {
  if (r.status === 200) return { output: r.body };
  const id = r.body.operation_id;
  let last = '';
  const op: Operation<T> = await client.waitForOperation<T>(id, {
    onProgress: (o) => {
      const line = `${what}: ${o.status}${o.progress?.phase ? ` (${o.progress.phase} ${o.progress.done}/${o.progress.total})` : ''}`;
      if (line !== last) io.err((last = line));
    },
  });
  if (op.status !== 'completed' || op.output === null)
    throw new PartialFailure(`${what} ${op.status} (operation ${id})${op.error ? `: ${op.error}` : ''}`);
  return { operationId: id, output: op.output };
}

export async function settleJob(
  client: DocfleetClient,
  io: Io,
  fileId: string,
  jobId: string,
  what: string,
): Promise<Job> {
  let last = '';
  const job = await client.waitForJob(fileId, jobId, {
    onProgress: (j) => {
      const line = `${what}: ${j.status}${j.stage ? ` ${j.stage}` : ''} ${j.percent}%`;
      if (line !== last) io.err((last = line));
    },
  });
  if (job.status !== 'completed')
    throw new PartialFailure(`${what} ${job.status} (job ${jobId})${job.error ? `: ${job.error}` : ''}`);
  return job;
}
