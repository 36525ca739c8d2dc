import { randomUUID } from 'node:crypto';
import { reserveCredits } from '@docfleet/billing';
import { QueueClient, createRedis } from '@docfleet/queue';
import {
  createTestDb,
  freePort,
  startPrivateRedis,
  startServiceProcess,
  stopProcess,
  type PrivateRedis,
  type TestDb,
  seedFile,
  waitUntil,
} from '@docfleet/testing';

// Redis keeps nothing on disk in the quickstart: a restart must not leave the ledger's duties unscheduled.
let t: TestDb;
let redis: PrivateRedis;
const cleanups: Array<() => unknown> = [];
beforeAll(async () => {
  t = await createTestDb();
  redis = await startPrivateRedis();
});
afterAll(async () => {
  for (const f of cleanups.reverse()) await f();
  await redis.stop();
  await t.drop();
});

async function staleReservation() {
  const { orgId, kbId, fileId, versionId } = await seedFile(t.db, { credits: 10 });
  const job = await t.db.job.create({
    data: {
      org_id: orgId,
      knowledge_base_id: kbId,
      file_id: fileId,
      file_version_id: versionId,
      kind: 'parse',
      status: 'running',
      idempotency_key: randomUUID(),
    },
  });
  await t.db.$transaction((tx) => reserveCredits(tx, { orgId, amount: 4, jobId: job.id, fileId }));
  await t.db.$executeRaw`UPDATE jobs SET updated_at = now() - interval '45 minutes' WHERE id = ${job.id}::uuid`;
  return job.id;
}

it('re-creates its schedules after Redis restarts empty, and the reaper runs again', async () => {
  const port = await freePort();
  const prefix = `sched${port}`;
  const service = await startServiceProcess('billing', {
    readyUrl: `http://127.0.0.1:${port}/healthz`,
    env: {
      DATABASE_URL: t.url,
      REDIS_URL: redis.url,
      HEALTH_PORT: String(port),
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'warn',
      BILLING_REAP_EVERY_SECONDS: '1',
      BILLING_SCHEDULE_CHECK_SECONDS: '2',
    },
  });
  const { child } = service;
  cleanups.push(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });

  const schedulers = async () => {
    const conn = createRedis(redis.url);
    const queues = new QueueClient(conn, prefix);
    try {
      return (await queues.queue('billing').getJobSchedulers()).map((s) => s.key).sort();
    } catch {
      return [];
    } finally {
      await queues.close().catch(() => undefined);
      conn.disconnect();
    }
  };
  /** Waits until `ok` holds for what `f` reads; a timeout says what it last read and what the service logged. */
  const readUntil = <T extends object>(what: string, f: () => Promise<T>, ok: (v: T) => boolean, timeoutMs: number) => {
    let last: T | undefined;
    return waitUntil(
      what,
      async () => {
        last = await f();
        return ok(last) && last;
      },
      { timeoutMs, intervalMs: 250, detail: () => `still ${JSON.stringify(last)}\n${service.output()}` },
    );
  };
  const all = ['billing.reap', 'billing.reconcile', 'billing.rollover', 'billing.rollup'];
  await readUntil('schedules at start', schedulers, (n) => n.length === 4, 30_000);

  await redis.restart(); // an empty server on the same port: every schedule is gone
  const jobId = await staleReservation();
  const t0 = Date.now();
  expect(await readUntil('schedules after the restart', schedulers, (n) => n.length === 4, 60_000)).toEqual(all);
  const reservation = await readUntil(
    'the stale reservation',
    () => t.db.creditReservation.findUniqueOrThrow({ where: { job_id: jobId } }),
    (r) => r.status === 'failed',
    60_000,
  );
  expect(reservation.status).toBe('failed');
  expect(Date.now() - t0).toBeLessThan(60_000);
  expect(service.output()).toContain('billing schedules were missing from Redis and were re-created');
  expect(child.exitCode).toBeNull(); // it never exited
  expect((await stopProcess(service)).code).toBe(0);
}, 120_000);
