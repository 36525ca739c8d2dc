import { createOrganization } from '@docfleet/auth';
import { debitCredits, grantCredits } from '@docfleet/billing';
import { createTestDb, type TestDb } from '@docfleet/testing';
import { emitEvent, relayBatch, setCreditAlert } from '../src';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(() => t.drop());

describe('the outbox', () => {
  it('keeps an event only when its transaction commits; the relay numbers them and fans out', async () => {
    const org = await createOrganization(t.db, 'outbox');
    const all = await t.db.webhookEndpoint.create({
      data: { org_id: org.id, url: 'https://a.example/h', events: [], secret: 's' },
    });
    const some = await t.db.webhookEndpoint.create({
      data: { org_id: org.id, url: 'https://b.example/h', events: ['index.updated'], secret: 's' },
    });
    const off = await t.db.webhookEndpoint.create({
      data: { org_id: org.id, url: 'https://c.example/h', events: [], secret: 's', enabled: false },
    });
    await expect(
      t.db.$transaction(async (tx) => {
        await emitEvent(tx, { orgId: org.id, type: 'file.uploaded', resourceKey: 'file:x', data: {} });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await t.db.webhookEvent.count()).toBe(0);

    for (const type of ['file.uploaded', 'index.updated'] as const)
      await t.db.$transaction((tx) => emitEvent(tx, { orgId: org.id, type, resourceKey: 'kb:1', data: { type } }));
    const out = await relayBatch(t.db);
    expect(out.events.map((e) => (e.kind === 'event' ? e.event.type : ''))).toEqual(['file.uploaded', 'index.updated']);
    const seqs = out.events.map((e) => (e.kind === 'event' ? BigInt(e.seq) : 0n));
    expect(seqs[1]! - seqs[0]!).toBe(1n);
    const d = await t.db.webhookDelivery.findMany({ orderBy: { event_seq: 'asc' } });
    expect(d.map((x) => [x.endpoint_id, x.event_type])).toEqual(
      expect.arrayContaining([
        [all.id, 'file.uploaded'],
        [all.id, 'index.updated'],
        [some.id, 'index.updated'],
      ]),
    );
    expect(d).toHaveLength(3);
    expect((await relayBatch(t.db)).events).toEqual([]);

    // A test event goes to its own endpoint only, even a disabled one.
    await t.db.$transaction((tx) =>
      emitEvent(tx, {
        orgId: org.id,
        type: 'webhook.test',
        resourceKey: `webhook:${off.id}`,
        data: { webhook_id: off.id },
      }),
    );
    expect((await relayBatch(t.db)).deliveries).toBe(1);
    const tests = await t.db.webhookDelivery.findMany({ where: { event_type: 'webhook.test' } });
    expect(tests.map((x) => [x.endpoint_id, x.status, x.event_seq > seqs[1]!])).toEqual([[off.id, 'pending', true]]);
  });

  it('emits credits.low once per crossing of the threshold', async () => {
    const org = await createOrganization(t.db, 'credits');
    await grantCredits(t.db, { orgId: org.id, amount: 100, idempotencyKey: 'g1', reason: 'test' });
    await setCreditAlert(t.db, org.id, 50);
    const debit = (n: number, key: string) =>
      t.db.$transaction((tx) => debitCredits(tx, { orgId: org.id, amount: n, idempotencyKey: key, reason: 'test' }));
    const lows = () => t.db.webhookEvent.count({ where: { org_id: org.id, event_type: 'credits.low' } });
    await debit(40, 'd1'); // 60 left
    expect(await lows()).toBe(0);
    await debit(20, 'd2'); // 40: crossed
    await debit(5, 'd3'); // still under: no second event
    expect(await lows()).toBe(1);
    await grantCredits(t.db, { orgId: org.id, amount: 100, idempotencyKey: 'g2', reason: 'top up' }); // 135
    await debit(100, 'd4'); // 35: crossed again
    expect(await lows()).toBe(2);
  });
});
