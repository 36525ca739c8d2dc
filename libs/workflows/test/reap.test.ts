// reapOperations against real PostgreSQL: abandoned attempts fail with a reason and queued
// workflows are refunded in the same transaction; attempts with a live queue entry stay.
import { createOrganization } from '@docfleet/auth';
import { debitCredits, grantCredits } from '@docfleet/billing';
import { createTestDb, type TestDb } from '@docfleet/testing';
import { attemptKey, attemptLost, reapOperations } from '../src';

let t: TestDb;
let orgId: string;
beforeAll(async () => {
  t = await createTestDb();
  orgId = (await createOrganization(t.db, 'reap')).id;
  await grantCredits(t.db, { orgId, amount: 10, idempotencyKey: 'g', reason: 'test' });
});
afterAll(() => t.drop());

async function chargedOp(type: string, key: string, status: string) {
  const op = await t.db.operation.create({
    data: { org_id: orgId, operation_type: type, status, permission: 'extract.run', idempotency_key: key },
  });
  await t.db.$transaction((tx) =>
    debitCredits(tx, { orgId, amount: 1, idempotencyKey: attemptKey(op), reason: 't', operationId: op.id }),
  );
  await t.db.$executeRaw`UPDATE operations SET updated_at = now() - interval '2 hours' WHERE id = ${op.id}::uuid`;
  return op;
}

it('fails abandoned attempts (refunding queued workflows, not synchronous ones) and leaves live or fresh ones', async () => {
  const lost = await chargedOp('extract_run', 'lost', 'queued');
  const dead = await chargedOp('split_run', 'dead', 'in_progress');
  const live = await chargedOp('extract_run', 'live', 'in_progress');
  const sync = await chargedOp('classify_run', 'sync', 'in_progress');
  const fresh = await t.db.operation.create({
    data: {
      org_id: orgId,
      operation_type: 'extract_run',
      status: 'queued',
      permission: 'extract.run',
      idempotency_key: 'fresh',
    },
  });
  const asked: string[] = [];
  const reaped = await reapOperations(t.db, {
    staleMs: 30 * 60_000,
    hasLiveJob: async (id) => (asked.push(id), id === live.id),
  });
  expect(reaped.sort()).toEqual([lost.id, dead.id, sync.id].sort());
  expect(asked).not.toContain(fresh.id);
  const rows = await t.db.operation.findMany({ where: { org_id: orgId } });
  const by = Object.fromEntries(rows.map((r) => [r.idempotency_key, r]));
  expect(by.lost).toMatchObject({
    status: 'failed',
    error: expect.stringMatching(/^abandoned: the queue entry was lost/),
  });
  expect(by.dead).toMatchObject({ status: 'failed', error: expect.stringMatching(/^abandoned: the worker stopped/) });
  expect(by.live!.status).toBe('in_progress');
  expect(by.fresh!.status).toBe('queued');
  const refunds = await t.db.ledgerEntry.findMany({ where: { org_id: orgId, kind: 'reversal' } });
  expect(refunds.map((r) => r.operation_id).sort()).toEqual([lost.id, dead.id].sort());
  const acc = await t.db.creditAccount.findUniqueOrThrow({ where: { org_id: orgId } });
  expect(acc.balance_credits).toBe(10 - 4 + 2);
  // Ended attempts are never touched again; the live one goes once its queue entry is gone.
  expect(await reapOperations(t.db, { staleMs: 30 * 60_000, hasLiveJob: async () => false })).toEqual([live.id]);
});

it('takes an attempt by its heartbeat: a worker that stopped beating is reaped in seconds, one still beating is not', async () => {
  const beating = await chargedOp('extract_run', 'beating', 'in_progress');
  const stopped = await chargedOp('extract_run', 'stopped', 'in_progress');
  // both started long ago; one worker beat 5 s ago, the other 60 s ago
  await t.db
    .$executeRaw`UPDATE operations SET started_at = now() - interval '1 hour', heartbeat_at = now() - interval '5 seconds' WHERE id = ${beating.id}::uuid`;
  await t.db
    .$executeRaw`UPDATE operations SET started_at = now() - interval '1 hour', heartbeat_at = now() - interval '60 seconds' WHERE id = ${stopped.id}::uuid`;
  const reaped = await reapOperations(t.db, { staleMs: 40_000, hasLiveJob: async () => false });
  expect(reaped).toEqual([stopped.id]);
  const row = await t.db.operation.findUniqueOrThrow({ where: { id: stopped.id } });
  expect(row).toMatchObject({
    status: 'failed',
    error: expect.stringMatching(/^abandoned: the worker stopped (59|60|61) seconds ago/),
  });
  expect(await t.db.ledgerEntry.count({ where: { operation_id: stopped.id, kind: 'reversal' } })).toBe(1);
  expect((await t.db.operation.findUniqueOrThrow({ where: { id: beating.id } })).status).toBe('in_progress');
});

it('attemptLost: only an in_progress attempt whose last beat (or start) is older than the limit', () => {
  const now = new Date('2026-01-01T00:01:00Z');
  const at = (s: number) => new Date(now.getTime() - s * 1000);
  const op = (status: string, heartbeat: number | null, started: number | null) => ({
    status,
    heartbeat_at: heartbeat === null ? null : at(heartbeat),
    started_at: started === null ? null : at(started),
    updated_at: at(3600),
  });
  expect(attemptLost(op('in_progress', 41, 3600), 40_000, now)).toBe(true);
  expect(attemptLost(op('in_progress', 39, 3600), 40_000, now)).toBe(false);
  expect(attemptLost(op('in_progress', null, 30), 40_000, now)).toBe(false);
  expect(attemptLost(op('in_progress', null, 50), 40_000, now)).toBe(true);
  expect(attemptLost(op('queued', null, null), 40_000, now)).toBe(false);
  expect(attemptLost(op('completed', 3600, 3600), 40_000, now)).toBe(false);
});
