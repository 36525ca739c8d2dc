// reapOperations against real PostgreSQL: abandoned attempts fail with a reason and queued
// workflows are refunded in the same transaction; attempts with a live queue entry stay.
import { createOrganization } from '@docfleet/auth';
import { debitCredits, grantCredits } from '@docfleet/billing';
import { createTestDb, type TestDb } from '@docfleet/testing';
import { attemptKey, reapOperations } from '../src';

let t: TestDb;
let orgId: string;
beforeAll(async () => {
  t = await createTestDb();
  orgId = (await createOrganization(t.db, 'reap')).id;
  await grantCredits(t.db, { orgId, amount: 10, idempotencyKey: 'g', reason: 'test' });
});
afterAll(() => t.drop());

async function chargedOp(type: string, key: string, status: string) {
  const op = await t.db.operation.create({ data: { org_id: orgId, operation_type: type, status, permission: 'extract.run', idempotency_key: key } });
  await t.db.$transaction((tx) => debitCredits(tx, { orgId, amount: 1, idempotencyKey: attemptKey(op), reason: 't', operationId: op.id }));
  await t.db.$executeRaw`UPDATE operations SET updated_at = now() - interval '2 hours' WHERE id = ${op.id}::uuid`;
  return op;
}

it('fails abandoned attempts (refunding queued workflows, not synchronous ones) and leaves live or fresh ones', async () => {
  const lost = await chargedOp('extract_run', 'lost', 'queued');
  const dead = await chargedOp('split_run', 'dead', 'in_progress');
  const live = await chargedOp('extract_run', 'live', 'in_progress');
  const sync = await chargedOp('classify_run', 'sync', 'in_progress');
  const fresh = await t.db.operation.create({ data: { org_id: orgId, operation_type: 'extract_run', status: 'queued', permission: 'extract.run', idempotency_key: 'fresh' } });
  const asked: string[] = [];
  const reaped = await reapOperations(t.db, { staleMs: 30 * 60_000, hasLiveJob: async (id) => (asked.push(id), id === live.id) });
  expect(reaped.sort()).toEqual([lost.id, dead.id, sync.id].sort());
  expect(asked).not.toContain(fresh.id);
  const rows = await t.db.operation.findMany({ where: { org_id: orgId } });
  const by = Object.fromEntries(rows.map((r) => [r.idempotency_key, r]));
  expect(by.lost).toMatchObject({ status: 'failed', error: expect.stringMatching(/^abandoned: the queue entry was lost/) });
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
