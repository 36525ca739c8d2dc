// A synchronous run whose worker died (issue 13.2): the attempt is in_progress, its heartbeat is old
// and no queue entry can finish it. The request waiting on it ends that attempt worker_lost (not
// refunded) and runs a fresh one, not charged again, instead of waiting out its 15 minutes.
import { waitUntil } from '@docfleet/testing';
import { operationJobId } from '@docfleet/workflows';
import { corpus, startWorkflowFixture, type WorkflowFixture } from './stack';

let fx: WorkflowFixture;
beforeAll(async () => {
  fx = await startWorkflowFixture({
    kbName: 'Lost worker',
    file: corpus('f_forms_invoices/invoice2data/AzureInterior.pdf'),
  });
});
afterAll(() => fx.close());

it('a waiting classify request replaces an attempt whose worker stopped beating', async () => {
  const { s, c, orgId, fileId } = fx;
  await s.workflow!.close(0); // no worker takes the attempt: it stays queued until we "kill" it below
  const before = (await c.billing.credits()).credits.balance_credits;
  const started = Date.now();
  const pending = c.classify.run({ file_id: fileId, classes: ['invoice', 'letter'], idempotency_key: 'lost-1' });
  const op = await waitUntil(
    'the classify request to create its operation',
    () => s.gw.db.operation.findFirst({ where: { org_id: orgId, idempotency_key: 'lost-1' } }),
    { timeoutMs: 10_000, intervalMs: 25 },
  );
  // What a worker killed mid-run leaves: in_progress, a heartbeat an hour old, its queue entry gone.
  await (await s.gw.deps.queues.queue('workflow').getJob(operationJobId(op.id, 1)))?.remove();
  await s.gw.db
    .$executeRaw`UPDATE operations SET status = 'in_progress', started_at = now() - interval '1 hour', heartbeat_at = now() - interval '1 hour' WHERE id = ${op.id}::uuid`;
  s.startWorkflow();

  const r = await pending;
  expect(Date.now() - started).toBeLessThan(30_000);
  expect(r.credit).toMatchObject({ debited: true, idempotency_key: 'lost-1' });
  const end = await s.gw.db.operation.findUniqueOrThrow({ where: { id: op.id } });
  expect(end).toMatchObject({ status: 'completed', attempt: 2 });
  expect((await c.billing.credits()).credits.balance_credits).toBe(before - 1);
  expect(await s.gw.db.ledgerEntry.count({ where: { operation_id: op.id } })).toBe(1);
  // A retry with the same key replays the stored output, free.
  expect(
    (await c.classify.run({ file_id: fileId, classes: ['invoice', 'letter'], idempotency_key: 'lost-1' })).credit,
  ).toMatchObject({ debited: false, replayed: true });
});
