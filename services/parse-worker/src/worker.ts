import { createWorker, type Job as QueueJob, type WorkerOptions } from '@docfleet/queue';
import type { WorkerDeps } from './deps';
import { handleParseFile } from './jobs/parse-file.handler';
import { resumeLostShards } from './lost-shards';
import { KILLED_MESSAGE, reapOnce } from './reaper';
import { handleParseShard } from './jobs/parse-shard.handler';

export interface ParseWorkerOptions {
  connection: WorkerOptions['connection'];
  prefix: string;
  /** Job duration and counts (libs/runtime createJobMetrics). */
  jobMetrics?: WorkerOptions['metrics'];
  concurrency?: number;
  lockMs?: number;
  stalledIntervalMs?: number;
  maxStalledCount?: number;
  /** 0 disables the reaper (tests run it by hand). */
  reapIntervalMs?: number;
  /** A running job whose heartbeat is this old has lost its worker (WORKER_LOST_SECONDS; default 40 s). */
  lostMs?: number;
  /** How often shards of dead workers are looked for (lost-shards.ts); 0 or absent disables it. */
  lostShardCheckMs?: number;
  /** A running shard whose row has not moved this long may have lost its worker (default 3 s). */
  lostShardQuietMs?: number;
}

export interface RunningParseWorker {
  worker: ReturnType<typeof createWorker>;
  /** Stops taking jobs; the current one finishes, or after graceMs is handed back to the queue. */
  close(graceMs?: number): Promise<void>;
}

/** The parse worker: consumes queue 'parse' (job 'parse.file'), plus the reaper. */
export function startParseWorker(deps: WorkerDeps, o: ParseWorkerOptions): RunningParseWorker {
  const lockMs = o.lockMs ?? 60_000;
  const worker = createWorker(
    'parse',
    {
      'parse.file': async (payload, job: QueueJob) => {
        const out = await handleParseFile(deps, payload, job);
        deps.metrics?.jobFinished(out.outcome);
        return out;
      },
      'parse.shard': async (payload, job: QueueJob) => {
        const out = await handleParseShard(deps, payload, job);
        // A shard ending the job (completed by assembly, failed, cancelled) counts as the job's outcome.
        if (['completed', 'failed', 'cancelled'].includes(out.outcome)) deps.metrics?.jobFinished(out.outcome);
        return out;
      },
    },
    {
      connection: o.connection,
      prefix: o.prefix,
      concurrency: o.concurrency ?? 1,
      lockDurationMs: lockMs,
      stalledIntervalMs: o.stalledIntervalMs,
      maxStalledCount: o.maxStalledCount,
      metrics: o.jobMetrics,
      // The lost-shard check reads it back (job.processedBy) to tell a dead worker's entry from a live one's.
      name: deps.workerId,
    },
  );
  worker.on('error', (err) => deps.logger.error({ err }, 'parse worker error'));
  worker.on('stalled', (jobId) =>
    deps.logger.warn({ job_id: jobId }, 'a parse job lost its worker; it is redelivered'),
  );

  let reaper: NodeJS.Timeout | undefined;
  if (o.reapIntervalMs) {
    const queue = deps.queues.queue('parse');
    const staleMs = o.lostMs ?? 40_000;
    const tick = () => reapOnce(deps, queue, staleMs).catch((err) => deps.logger.warn({ err }, 'parse reaper failed'));
    void tick();
    reaper = setInterval(tick, o.reapIntervalMs);
    reaper.unref();
  }
  let lostCheck: NodeJS.Timeout | undefined;
  if (o.lostShardCheckMs) {
    const queue = deps.queues.queue('parse');
    const opts = {
      quietMs: o.lostShardQuietMs ?? 3000,
      maxLost: o.maxStalledCount ?? 3,
      killedMessage: KILLED_MESSAGE,
    };
    let busy = false;
    lostCheck = setInterval(() => {
      if (busy) return;
      busy = true;
      resumeLostShards(deps, queue, opts)
        .catch((err) => deps.logger.warn({ err }, 'lost-shard check failed'))
        .finally(() => (busy = false));
    }, o.lostShardCheckMs);
    lostCheck.unref();
  }

  return {
    worker,
    async close(graceMs = 25_000) {
      if (reaper) clearInterval(reaper);
      if (lostCheck) clearInterval(lostCheck);
      const handBackTimer = setTimeout(() => {
        deps.handBack.requested = true;
      }, graceMs);
      try {
        await worker.close();
      } finally {
        clearTimeout(handBackTimer);
      }
    },
  };
}
