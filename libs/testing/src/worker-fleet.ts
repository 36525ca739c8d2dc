// Several worker processes of one service against one gateway, for tests that kill and replace
// them (the sharded-parse fleet tests): spawn with a shared environment, find who holds a lease,
// read every worker's log (killed ones included), and kill what is left at the end.
import type { Db } from '@docfleet/db';
import { spawnWorker, type WorkerProcess, type WorkerTarget } from './service-process';

/** Neither exited nor killed by a signal. */
export const isAlive = (p: WorkerProcess): boolean => p.child.exitCode === null && p.child.signalCode === null;

export interface WorkerFleet {
  /** Every worker spawned, in order, killed ones included. */
  readonly workers: WorkerProcess[];
  /**
   * `count` more workers (default one: a replacement after a kill), started one after another, with
   * the fleet's environment and `env` over it.
   */
  spawn(count?: number, env?: Record<string, string>): Promise<WorkerProcess[]>;
  alive(): WorkerProcess[];
  /** The live worker whose lease owner (`host:pid`, as jobs and shards record it) is `owner`. */
  holding(owner: string | null | undefined): WorkerProcess | undefined;
  /** Lines of every worker's output that contain all of `needles`. */
  lines(...needles: string[]): string[];
  /** The last `chars` of each worker's output, headed by its pid: for a failure message. */
  tails(chars?: number): string;
  /** SIGKILL to every worker still running (afterAll). */
  killAll(): void;
}

/**
 * An empty fleet: `await fleet.spawn(n)` in beforeAll. It exists before its first worker starts, so an
 * afterAll `killAll()` also stops the workers of a beforeAll that timed out half-way.
 */
export function workerFleet(gw: WorkerTarget, env: Record<string, string> = {}, service = 'parse-worker'): WorkerFleet {
  const workers: WorkerProcess[] = [];
  return {
    workers,
    async spawn(count = 1, more = {}) {
      const started: WorkerProcess[] = [];
      for (let i = 0; i < count; i++) {
        const w = await spawnWorker(gw, { ...env, ...more }, service);
        workers.push(w);
        started.push(w);
      }
      return started;
    },
    alive: () => workers.filter(isAlive),
    holding: (owner) => workers.find((p) => isAlive(p) && !!owner?.endsWith(`:${p.child.pid}`)),
    lines: (...needles) =>
      workers.flatMap((w) => w.output().split('\n')).filter((l) => needles.every((n) => l.includes(n))),
    tails: (chars = 1200) => workers.map((w) => `pid ${w.child.pid}:\n${w.output().slice(-chars)}`).join('\n----\n'),
    killAll() {
      for (const p of workers) if (isAlive(p)) p.child.kill('SIGKILL');
    },
  };
}

/** A parse job's row and its shards (in shard order). */
export async function shardState(db: Db, jobId: string) {
  const job = await db.job.findUniqueOrThrow({ where: { id: jobId } });
  const shards = await db.parseShard.findMany({ where: { job_id: jobId }, orderBy: { shard_no: 'asc' } });
  return { job, shards };
}
export type ShardState = Awaited<ReturnType<typeof shardState>>;

/** One line of a job's and its shards' progress, then the workers' log tails: a failure message. */
export function describeShardState(st: ShardState, fleet: WorkerFleet): string {
  const shards = st.shards.map((x) => [x.shard_no, x.status, x.done_pages, x.attempts, x.worker]);
  return `job ${st.job.status} ${st.job.percent}% ${st.job.error}; shards ${JSON.stringify(shards)}\n${fleet.tails()}`;
}
