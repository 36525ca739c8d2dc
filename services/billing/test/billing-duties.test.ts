import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import {
  debitReserved,
  ledgerByDay,
  observeCredits,
  reconcile,
  refundDebit,
  reserveCredits,
  rollupUsage,
  rolloverPeriods,
  debitCredits,
} from '@docfleet/billing';
import { createCreditMetrics, sampleValue } from '@docfleet/runtime';
import { createLogger } from '@docfleet/logger';
import { Registry } from 'prom-client';
import { createTestDb, seedFile, waitUntil, type TestDb } from '@docfleet/testing';
import { attemptKey } from '@docfleet/workflows';
import { createBillingHandlers } from '../src/worker';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(() => t.drop());

async function fixture(credits = 20) {
  const { orgId, kbId, fileId, versionId } = await seedFile(t.db, { credits });
  const job = async (status: string, ageMs: number, reserve = 0, debit = 0) => {
    const j = await t.db.job.create({
      data: {
        org_id: orgId,
        knowledge_base_id: kbId,
        file_id: fileId,
        file_version_id: versionId,
        kind: 'parse',
        status,
        idempotency_key: randomUUID(),
      },
    });
    if (reserve) {
      const r = await t.db.$transaction((tx) => reserveCredits(tx, { orgId, amount: reserve, jobId: j.id, fileId }));
      for (let p = 1; p <= debit; p++)
        await t.db.$transaction((tx) =>
          debitReserved(tx, { reservationId: r.id, idempotencyKey: `parse:${j.id}:page:${p}`, reason: 'page' }),
        );
    }
    await t.db
      .$executeRaw`UPDATE jobs SET updated_at = now() - ${ageMs} * interval '1 millisecond' WHERE id = ${j.id}::uuid`;
    await t.db
      .$executeRaw`UPDATE credit_reservations SET created_at = now() - ${ageMs} * interval '1 millisecond' WHERE job_id = ${j.id}::uuid`;
    return j;
  };
  return { orgId, job };
}

const handlers = (registry = new Registry()) => ({
  registry,
  h: createBillingHandlers({
    db: t.db,
    logger: createLogger('billing-test', 'silent'),
    registry,
    config: { runningStaleMs: 30 * 60_000, queuedStaleMs: 24 * 3600_000 },
  }),
});
const balance = async (orgId: string) =>
  (await t.db.creditAccount.findUniqueOrThrow({ where: { org_id: orgId } })).balance_credits;

describe('reaper', () => {
  it('fails jobs that died, closes their reservations and reverses their page charges, in one go', async () => {
    const { orgId, job } = await fixture(20);
    const dead = await job('running', 45 * 60_000, 5, 2);
    const alive = await job('running', 60_000, 3, 1);
    const lostQueued = await job('queued', 30 * 3600_000, 4);
    const waiting = await job('queued', 2 * 3600_000, 2);
    expect(await balance(orgId)).toBe(17);
    const { h } = handlers();
    const out = (await h['billing.reap']({}, {} as never)) as { jobsFailed: string[] };
    expect(out.jobsFailed.sort()).toEqual([dead.id, lostQueued.id].sort());
    const d = await t.db.job.findUniqueOrThrow({ where: { id: dead.id } });
    expect(d).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^abandoned: the worker stopped reporting progress 4\d minutes ago/),
      error_code: 'abandoned',
    });
    const failedEvents = await t.db.jobEvent.findMany({ where: { job_id: dead.id, event_type: 'job.failed' } });
    expect(failedEvents).toHaveLength(1);
    expect(failedEvents[0]).toMatchObject({
      message: d.error,
      payload: { code: 'abandoned', traceback: d.error, reaped: true },
    });
    expect(await t.db.job.findUniqueOrThrow({ where: { id: lostQueued.id } })).toMatchObject({
      error: expect.stringMatching(/^abandoned: queued for/),
      error_code: 'abandoned',
    });
    expect(await t.db.creditReservation.findUniqueOrThrow({ where: { job_id: dead.id } })).toMatchObject({
      status: 'failed',
    });
    expect(await t.db.creditReservation.findUniqueOrThrow({ where: { job_id: lostQueued.id } })).toMatchObject({
      status: 'failed',
    });
    for (const j of [alive, waiting])
      expect((await t.db.job.findUniqueOrThrow({ where: { id: j.id } })).status).toBe(j.status);
    expect(await balance(orgId)).toBe(19); // the dead job's 2 pages refunded; the live job's page stays
    expect(await reconcile(t.db)).toEqual([]);
    // a second round finds nothing more
    expect(((await h['billing.reap']({}, {} as never)) as { jobsFailed: string[] }).jobsFailed).toEqual([]);
  });

  it('closes reservations left open behind terminal jobs', async () => {
    const { job } = await fixture(20);
    const done = await job('completed', 40 * 60_000, 3, 2);
    const cancelled = await job('cancelled', 40 * 60_000, 3, 0);
    const { h } = handlers();
    const out = (await h['billing.reap']({}, {} as never)) as { reservationsClosed: string[] };
    expect(out.reservationsClosed.length).toBeGreaterThanOrEqual(2);
    expect((await t.db.creditReservation.findUniqueOrThrow({ where: { job_id: done.id } })).status).toBe('committed');
    expect((await t.db.creditReservation.findUniqueOrThrow({ where: { job_id: cancelled.id } })).status).toBe(
      'cancelled',
    );
  });

  it('fails and refunds operations whose attempt has no live queue entry left, counting them', async () => {
    const { orgId } = await fixture(10);
    const op = await t.db.operation.create({
      data: {
        org_id: orgId,
        operation_type: 'split_run',
        status: 'in_progress',
        permission: 'extract.run',
        idempotency_key: randomUUID(),
      },
    });
    await t.db.$transaction((tx) =>
      debitCredits(tx, {
        orgId,
        amount: 1,
        idempotencyKey: attemptKey(op),
        reason: 'split',
        operationId: op.id,
      }),
    );
    await t.db.$executeRaw`UPDATE operations SET updated_at = now() - interval '45 minutes' WHERE id = ${op.id}::uuid`;
    const registry = new Registry();
    const asked: Array<[string, number]> = [];
    const h = createBillingHandlers({
      db: t.db,
      logger: createLogger('billing-test', 'silent'),
      registry,
      config: { runningStaleMs: 30 * 60_000, queuedStaleMs: 24 * 3600_000 },
      hasLiveOperationJob: async (id, attempt) => (asked.push([id, attempt]), false),
    });
    const out = (await h['billing.reap']({}, {} as never)) as { operationsFailed: string[] };
    expect(out.operationsFailed).toEqual([op.id]);
    expect(asked).toEqual([[op.id, 1]]);
    expect(await t.db.operation.findUniqueOrThrow({ where: { id: op.id } })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^abandoned/),
    });
    expect(await balance(orgId)).toBe(10);
    expect(await registry.getSingleMetricAsString('docfleet_billing_operations_reaped_total')).toMatch(/ 1$/m);
  });
});

describe('quota period roll-over', () => {
  it('resets monthly use when the period has ended', async () => {
    const { orgId } = await fixture(10);
    await t.db.$transaction((tx) => debitCredits(tx, { orgId, amount: 4, idempotencyKey: 'k', reason: 'r' }));
    await t.db.creditAccount.update({
      where: { org_id: orgId },
      data: { period_start: new Date(Date.UTC(2026, 9, 1)) },
    });
    const r = await rolloverPeriods(t.db, new Date(Date.UTC(2026, 10, 21)));
    expect(r.accountsRolled).toBeGreaterThanOrEqual(1);
    const acc = await t.db.creditAccount.findUniqueOrThrow({ where: { org_id: orgId } });
    expect(acc).toMatchObject({
      monthly_used_credits: 0,
      total_used_credits: 4,
      period_start: new Date(Date.UTC(2026, 10, 1)),
    });
  });
});

describe('daily roll-up', () => {
  it('serves finished days from usage_daily and today live, with the same figures', async () => {
    const { orgId } = await fixture(50);
    for (let i = 0; i < 3; i++)
      await t.db.$transaction((tx) => debitCredits(tx, { orgId, amount: 2, idempotencyKey: `d${i}`, reason: 'r' }));
    // the grant and first debit happened "yesterday"
    await t.db
      .$executeRaw`UPDATE ledger_entries SET created_at = now() - interval '1 day' WHERE org_id = ${orgId}::uuid AND idempotency_key IN (${`g:${orgId}`}, 'd0')`;
    const live = await ledgerByDay(t.db, orgId, { limit: 10 });
    expect(live.entries.map((e) => [e.debited_credits, e.granted_credits, e.entry_count])).toEqual([
      [4, 0, 2],
      [2, 50, 2],
    ]);
    await rollupUsage(t.db);
    const rows = await t.db.usageDaily.findMany({ where: { org_id: orgId }, orderBy: { day: 'asc' } });
    expect(rows.map((r) => [r.debited_credits, r.granted_credits])).toEqual([
      [2, 50],
      [4, 0],
    ]);
    // the roll-up of yesterday is final: tampering its source now would not change the answer
    await t.db
      .$executeRaw`UPDATE usage_daily SET entry_count = 99 WHERE org_id = ${orgId}::uuid AND day < current_date`;
    const after = await ledgerByDay(t.db, orgId, { limit: 10 });
    expect(after.entries[0]).toEqual(live.entries[0]);
    expect(after.entries[1].entry_count).toBe(99);
  });
});

describe('reconciliation', () => {
  it('finds a balance that disagrees with the ledger and exposes it as a metric', async () => {
    const { orgId } = await fixture(10);
    const { h, registry } = handlers();
    await h['billing.reconcile']({}, {} as never);
    expect(await registry.getSingleMetricAsString('docfleet_billing_reconciliation_mismatches')).toMatch(/ 0$/m);
    await t.db.creditAccount.update({ where: { org_id: orgId }, data: { balance_credits: 11 } });
    const out = (await h['billing.reconcile']({}, {} as never)) as { mismatches: number };
    expect(out.mismatches).toBe(1);
    expect(await reconcile(t.db)).toEqual([{ kind: 'balance', org_id: orgId, expected: 10, actual: 11 }]);
    expect(await registry.getSingleMetricAsString('docfleet_billing_reconciliation_mismatches')).toMatch(/ 1$/m);
    await t.db.creditAccount.update({ where: { org_id: orgId }, data: { balance_credits: 10 } });
  });
});

describe('credit counters', () => {
  it('count debit and reversal rows as they are written, and nothing for an idempotent repeat', async () => {
    // Sums over every organisation: the reaper below also closes what earlier tests left behind.
    const ledger = async (kind: string) =>
      Math.abs(
        (await t.db.ledgerEntry.aggregate({ where: { kind }, _sum: { amount_credits: true } }))._sum.amount_credits ??
          0,
      );
    const before = { debited: await ledger('debit'), refunded: await ledger('reversal') };
    const registry = new Registry();
    const stop = observeCredits(createCreditMetrics(registry));
    try {
      const { orgId, job } = await fixture(20);
      await job('running', 45 * 60_000, 5, 3); // 3 page debits
      await t.db.$transaction((tx) =>
        debitCredits(tx, { orgId, amount: 4, idempotencyKey: `op:${orgId}`, reason: 'workflow' }),
      );
      await t.db.$transaction((tx) =>
        debitCredits(tx, { orgId, amount: 4, idempotencyKey: `op:${orgId}`, reason: 'workflow' }),
      ); // repeat: no row
      await t.db.$transaction((tx) =>
        refundDebit(tx, { orgId, originalKey: `op:${orgId}`, reason: 'workflow failed' }),
      );
      await handlers().h['billing.reap']({}, {} as never); // the dead job's 3 page debits reversed
      const text = await registry.metrics();
      const counted = {
        debited: sampleValue(text, 'docfleet_credits_debited_total'),
        refunded: sampleValue(text, 'docfleet_credits_refunded_total'),
      };
      expect(counted).toEqual({
        debited: (await ledger('debit')) - before.debited,
        refunded: (await ledger('reversal')) - before.refunded,
      });
      expect(counted.debited).toBe(7); // 3 pages + 4
      expect(counted.refunded).toBeGreaterThanOrEqual(7); // 4 + 3 pages (+ whatever the reaper found from earlier tests)
    } finally {
      stop();
    }
  });
});

const afterAllCleanups: Array<() => void> = [];
afterAll(() => afterAllCleanups.forEach((f) => f()));

describe('the billing service process', () => {
  it('schedules its duties on its own queue, serves health and metrics, and stops on SIGTERM', async () => {
    const { job } = await fixture(10);
    await job('running', 45 * 60_000, 3, 2); // died after 2 pages: the service's reaper refunds them
    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/billing/src/main.ts'], {
      cwd: path.resolve(__dirname, '../../..'),
      env: {
        ...process.env,
        DOCFLEET_SUPERVISOR_PID: String(process.pid),
        DATABASE_URL: t.url,
        HEALTH_PORT: String(port),
        QUEUE_PREFIX: `bill${port}`,
        LOG_LEVEL: 'silent',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    // Never leave the service running if an assertion below throws.
    const cleanup = () => {
      if (child.exitCode === null) child.kill('SIGKILL');
    };
    afterAllCleanups.push(cleanup);
    let metrics = '';
    let lastError = '';
    const REPORTED = 'docfleet_billing_duty_runs_total{duty="reconcile",outcome="ok"';
    // A deadline, not a count of tries: on a loaded machine tsx alone takes tens of seconds to start.
    await waitUntil(
      'the billing service to report a reconcile run and two refunds on /metrics',
      async () => {
        try {
          metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
        } catch (e) {
          lastError = String(e); // starting
          return false;
        }
        return metrics.includes(REPORTED) && sampleValue(metrics, 'docfleet_credits_refunded_total') >= 2;
      },
      {
        timeoutMs: 60_000,
        intervalMs: 200,
        detail: () =>
          `last /metrics: ${
            metrics
              ? metrics
                  .split('\n')
                  .filter((l) => /billing_duty|credits_refunded/.test(l))
                  .join('\n')
              : lastError
          }\nstderr: ${err}`,
      },
    );
    expect(err).toBe('');
    expect(metrics).toContain('docfleet_billing_reconciliation_mismatches');
    // createWorker's job metrics and the credit counters (the reaper's reversals) are exposed too
    expect(
      sampleValue(metrics, 'docfleet_jobs_completed_total', {
        queue: 'billing',
        job: 'billing.reconcile',
        service: 'billing',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      sampleValue(metrics, 'docfleet_job_duration_seconds_count', {
        queue: 'billing',
        job: 'billing.reap',
        outcome: 'completed',
      }),
    ).toBeGreaterThanOrEqual(1);
    expect(sampleValue(metrics, 'docfleet_credits_refunded_total')).toBe(2);
    expect(sampleValue(metrics, 'docfleet_credits_debited_total')).toBe(0);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    expect(await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()).toEqual({ status: 'ok' });
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', resolve);
      child.kill('SIGTERM');
    });
    expect(code).toBe(0);
  }, 120_000);
});
