import { createOrganization } from '@docfleet/auth';
import { createTestDb, type TestDb } from '@docfleet/testing';
import { emitEvent, pruneWebhookEvents, relayBatch } from '../src';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(() => t.drop());

describe('webhook event retention', () => {
  it('deletes expired events with their finished deliveries and attempts, never one still owed', async () => {
    const org = await createOrganization(t.db, 'retention');
    await t.db.webhookEndpoint.create({
      data: { org_id: org.id, url: 'https://a.example/h', events: [], secret: 's' },
    });
    const emit = (key: string) =>
      t.db.$transaction((tx) => emitEvent(tx, { orgId: org.id, type: 'file.uploaded', resourceKey: key, data: {} }));
    const [oldDone, oldFailed, oldPending, young] = [
      await emit('a'),
      await emit('b'),
      await emit('c'),
      await emit('d'),
    ];
    const fresh = await emit('f'); // minutes old: inside the one-hour floor
    await relayBatch(t.db);
    const unrelayed = await emit('e'); // never relayed: kept whatever its age
    const age = async (id: string, hours: number) =>
      t.db
        .$executeRaw`UPDATE webhook_events SET created_at = now() - ${hours} * interval '1 hour' WHERE id = ${id}::uuid`;
    for (const id of [oldDone, oldFailed, oldPending, unrelayed]) await age(id, 200);
    await age(young, 2);
    const delivery = (eventId: string) => t.db.webhookDelivery.findFirstOrThrow({ where: { event_id: eventId } });
    for (const [id, status] of [
      [oldDone, 'succeeded'],
      [oldFailed, 'failed'],
      [young, 'succeeded'],
      [fresh, 'succeeded'],
    ] as const) {
      const d = await delivery(id);
      await t.db.webhookDelivery.update({
        where: { id: d.id },
        data: { status, attempts: 1, completed_at: new Date() },
      });
      await t.db.webhookDeliveryAttempt.create({ data: { delivery_id: d.id, attempt: 1, duration_ms: 3 } });
    }

    const first = await pruneWebhookEvents(t.db, { retentionHours: 168, batchSize: 1, maxBatches: 1 });
    expect(first.events).toBe(1); // bounded: one batch of one
    const out = await pruneWebhookEvents(t.db, { retentionHours: 168, batchSize: 1 });
    expect(first.events + out.events).toBe(2);
    const ids = async () => (await t.db.webhookEvent.findMany({ select: { id: true } })).map((e) => e.id).sort();
    expect(await ids()).toEqual([oldPending, unrelayed, young, fresh].sort());
    expect(await t.db.webhookDelivery.count({ where: { event_id: { in: [oldDone, oldFailed] } } })).toBe(0);
    expect(await t.db.webhookDeliveryAttempt.count()).toBe(2); // young's and fresh's
    expect((await delivery(oldPending)).status).toBe('pending');

    // A period under one hour counts as one hour: the 2-hour-old event goes, the fresh one stays.
    expect((await pruneWebhookEvents(t.db, { retentionHours: 0 })).events).toBe(1);
    expect(await ids()).toEqual([oldPending, unrelayed, fresh].sort());
  });
});
