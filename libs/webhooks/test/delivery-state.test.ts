// The delivery loop's statements against a real database: a batch claim across endpoints and
// resources, successes recorded in one statement beside failures recorded one transaction each,
// leases, and order per resource.
import { createOrganization } from '@docfleet/auth';
import { createTestDb, type TestDb } from '@docfleet/testing';
import { claimDue, emitEvent, recordAttempt, recordSuccesses, relayBatch, type Claimed } from '../src';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(() => t.drop());

const schedule = { baseMs: 60_000, factor: 2, maxDelayMs: 3600_000, windowMs: 24 * 3600_000, jitter: 0 };
const ok = { ok: true, statusCode: 200, error: null, durationMs: 4 };
const failed = { ok: false, statusCode: 500, error: null, durationMs: 7 };

describe('claiming and recording a batch of deliveries', () => {
  it('records each attempt of a batch where one endpoint fails and another succeeds', async () => {
    const org = await createOrganization(t.db, 'batch');
    const good = await t.db.webhookEndpoint.create({
      data: { org_id: org.id, url: 'https://good.example/h', events: [], secret: 's' },
    });
    const bad = await t.db.webhookEndpoint.create({
      data: { org_id: org.id, url: 'https://bad.example/h', events: [], secret: 's' },
    });
    for (const key of ['file:1', 'file:2', 'file:3'])
      await t.db.$transaction((tx) =>
        emitEvent(tx, { orgId: org.id, type: 'file.uploaded', resourceKey: key, data: { key } }),
      );
    expect((await relayBatch(t.db)).deliveries).toBe(6);

    const batch = await claimDue(t.db, 10, 60_000);
    expect(batch).toHaveLength(6);
    for (const c of batch) {
      expect(typeof c.delivery.event_seq).toBe('bigint');
      expect(c.delivery.window_start_at).toBeInstanceOf(Date);
      expect(c.event.id).toBe(c.delivery.event_id);
      expect(c.endpoint.id).toBe(c.delivery.endpoint_id);
      expect(c.event.created_at).toBeInstanceOf(Date);
    }
    // Leased: a second claim (another worker) takes none of them.
    expect(await claimDue(t.db, 10, 60_000)).toEqual([]);

    const of = (ep: string) => batch.filter((c: Claimed) => c.endpoint.id === ep);
    await Promise.all([
      recordSuccesses(
        t.db,
        of(good.id).map((c) => ({ delivery: c.delivery, result: ok })),
      ),
      ...of(bad.id).map((c) => recordAttempt(t.db, c.delivery, failed, { schedule, disableAfterMs: 3 * 86400_000 })),
    ]);

    const rows = await t.db.webhookDelivery.findMany({ include: { attempt_rows: true } });
    expect(rows).toHaveLength(6);
    for (const d of rows) {
      expect(d.attempts).toBe(1);
      expect(d.locked_until).toBeNull();
      expect(d.attempt_rows).toHaveLength(1);
      if (d.endpoint_id === good.id) {
        expect(d).toMatchObject({ status: 'succeeded', last_status_code: 200, last_duration_ms: 4 });
        expect(d.completed_at).not.toBeNull();
        expect(d.attempt_rows[0]).toMatchObject({ attempt: 1, status_code: 200, error: null, duration_ms: 4 });
      } else {
        expect(d).toMatchObject({ status: 'pending', last_status_code: 500, completed_at: null });
        expect(d.next_attempt_at.getTime()).toBeGreaterThan(Date.now() + 30_000);
        expect(d.attempt_rows[0]).toMatchObject({ attempt: 1, status_code: 500, duration_ms: 7 });
      }
    }
    const eps = await t.db.webhookEndpoint.findMany({ where: { org_id: org.id } });
    expect(eps.find((e) => e.id === good.id)!.failing_since).toBeNull();
    expect(eps.find((e) => e.id === bad.id)!.failing_since).not.toBeNull();
    // The failed ones wait for their retry time: nothing is due now.
    expect(await claimDue(t.db, 10, 60_000)).toEqual([]);
  });

  it('claims one delivery per resource and endpoint at a time; the next once the first is recorded', async () => {
    const org = await createOrganization(t.db, 'order');
    const ep = await t.db.webhookEndpoint.create({
      data: { org_id: org.id, url: 'https://order.example/h', events: [], secret: 's' },
    });
    const emit = (key: string, n: number) =>
      t.db.$transaction((tx) => emitEvent(tx, { orgId: org.id, type: 'file.uploaded', resourceKey: key, data: { n } }));
    await emit('file:a', 1);
    await emit('file:a', 2);
    await emit('file:b', 1);
    await relayBatch(t.db);
    const mine = (cs: Claimed[]) => cs.filter((c) => c.endpoint.id === ep.id);
    const first = mine(await claimDue(t.db, 10, 60_000));
    expect(first.map((c) => [c.delivery.resource_key, (c.event.payload as { n: number }).n]).sort()).toEqual([
      ['file:a', 1],
      ['file:b', 1],
    ]);
    // file:a's second event waits while its first is pending, even with the first leased.
    expect(mine(await claimDue(t.db, 10, 60_000))).toEqual([]);
    await recordSuccesses(
      t.db,
      first.map((c) => ({ delivery: c.delivery, result: ok })),
    );
    const second = mine(await claimDue(t.db, 10, 60_000));
    expect(second.map((c) => [c.delivery.resource_key, (c.event.payload as { n: number }).n])).toEqual([['file:a', 2]]);
    expect(second[0]!.delivery.event_seq).toBeGreaterThan(first[0]!.delivery.event_seq);
  });
});
