import { debitCredits, finalizeReservation, debitReserved, refundDebit, reserveCredits } from '@docfleet/billing';
import { randomUUID } from 'node:crypto';
import { startGateway, type Gateway } from './harness';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

describe('credits and ledger', () => {
  it('reports the credits object and ledger entries', async () => {
    const { key, orgId } = await gw.createOrg({ credits: 50, quota: 40 });
    await gw.db.$transaction((tx) =>
      debitCredits(tx, { orgId, amount: 3, idempotencyKey: 'op:1:attempt-1', reason: 'extract run' }),
    );
    const credits = await gw.req('GET', '/v1/billing/credits', { key });
    expect(credits.status).toBe(200);
    expect(credits.body).toEqual({
      credits: {
        balance_credits: 47,
        reserved_credits: 0,
        total_used_credits: 3,
        monthly_used_credits: 3,
        monthly_quota_credits: 40,
      },
      subscription: null,
    });
    const ledger = await gw.req('GET', '/v1/billing/ledger', { key });
    expect(ledger.body.entries.map((e: any) => [e.kind, e.amount_credits, e.balance_after])).toEqual([
      ['debit', -3, 47],
      ['grant', 50, 50],
    ]);
    expect(ledger.body.entries[0]).toMatchObject({
      idempotency_key: 'op:1:attempt-1',
      reason: 'extract run',
      file_id: null,
      job_id: null,
      operation_id: null,
    });
    const page = await gw.req('GET', '/v1/billing/ledger?limit=1', { key });
    expect(page.body.entries).toHaveLength(1);
    const next = await gw.req('GET', `/v1/billing/ledger?limit=1&cursor=${page.body.next_cursor}`, { key });
    expect(next.body.entries[0].kind).toBe('grant');
    expect(next.body.next_cursor).toBeNull();
    const day = await gw.req('GET', '/v1/billing/ledger?group_by=day', { key });
    expect(day.body.entries).toEqual([
      {
        day: new Date().toISOString().slice(0, 10),
        debited_credits: 3,
        refunded_credits: 0,
        granted_credits: 50,
        adjusted_credits: 0,
        net_used_credits: 3,
        entry_count: 2,
      },
    ]);
  });

  it('shows the ledger to API keys and admin sessions only; every role sees the balance', async () => {
    const { key, orgId } = await gw.createOrg({ credits: 20 });
    // a charge on a knowledge base none of the people below has a grant on
    const kb = await gw.db.knowledgeBase.create({ data: { org_id: orgId, name: 'private' } });
    const file = await gw.db.file.create({
      data: { org_id: orgId, knowledge_base_id: kb.id, filename: 'secret.pdf', content_type: 'application/pdf' },
    });
    await gw.db.$transaction((tx) =>
      debitCredits(tx, { orgId, amount: 2, idempotencyKey: `op:${file.id}`, reason: 'extract run', fileId: file.id }),
    );
    const admin = await gw.createSession(orgId, 'admin');
    for (const who of [{ key }, { headers: admin.headers }]) {
      const entries = (await gw.req('GET', '/v1/billing/ledger', who)).body.entries;
      expect(entries.map((e: any) => e.file_id)).toContain(file.id);
      expect((await gw.req('GET', '/v1/billing/ledger?group_by=day', who)).status).toBe(200);
    }
    for (const role of ['member', 'viewer'] as const) {
      const s = await gw.createSession(orgId, role);
      for (const q of ['', '?group_by=day']) {
        const r = await gw.req('GET', `/v1/billing/ledger${q}`, { headers: s.headers });
        expect({ status: r.status, code: r.body.code, request_id: typeof r.body.request_id }).toEqual({
          status: 403,
          code: 'permission_required',
          request_id: 'string',
        });
        expect(JSON.stringify(r.body)).not.toContain(file.id);
      }
      const credits = await gw.req('GET', '/v1/billing/credits', { headers: s.headers });
      expect(credits.status).toBe(200);
      expect(credits.body.credits.balance_credits).toBe(18);
    }
  });

  it('debits once per idempotency key and refunds as a reversal', async () => {
    const { orgId } = await gw.createOrg({ credits: 5 });
    const first = await gw.db.$transaction((tx) =>
      debitCredits(tx, { orgId, amount: 1, idempotencyKey: 'k1', reason: 'r' }),
    );
    const again = await gw.db.$transaction((tx) =>
      debitCredits(tx, { orgId, amount: 1, idempotencyKey: 'k1', reason: 'r' }),
    );
    expect([first.debited, again.debited]).toEqual([true, false]);
    const refund = await gw.db.$transaction((tx) => refundDebit(tx, { orgId, originalKey: 'k1', reason: 'failed' }));
    expect(refund.entry).toMatchObject({
      kind: 'reversal',
      amount_credits: 1,
      idempotency_key: 'k1:refund',
      balance_after: 5,
    });
  });

  it('refuses charges beyond balance or quota with 402 codes', async () => {
    const { orgId } = await gw.createOrg({ credits: 2, quota: 10 });
    await expect(
      gw.db.$transaction((tx) => debitCredits(tx, { orgId, amount: 3, idempotencyKey: 'x', reason: 'r' })),
    ).rejects.toMatchObject({ code: 'insufficient_credits', status: 402 });
    const q = await gw.createOrg({ credits: 100, quota: 4 });
    await expect(
      gw.db.$transaction((tx) => debitCredits(tx, { orgId: q.orgId, amount: 5, idempotencyKey: 'y', reason: 'r' })),
    ).rejects.toMatchObject({ code: 'monthly_quota_exceeded' });
  });

  it('never over-reserves under concurrency', async () => {
    const { orgId, key } = await gw.createOrg({ credits: 100 });
    const attempts = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        gw.db.$transaction((tx) => reserveCredits(tx, { orgId, amount: 10, jobId: randomUUID() })),
      ),
    );
    const ok = attempts.filter((a) => a.status === 'fulfilled').length;
    expect(ok).toBe(10);
    for (const a of attempts)
      if (a.status === 'rejected') expect((a.reason as { code: string }).code).toBe('insufficient_credits');
    const credits = await gw.req('GET', '/v1/billing/credits', { key });
    expect(credits.body.credits).toMatchObject({ balance_credits: 100, reserved_credits: 100 });
  });

  it('debits pages against a reservation and closes it per the state table', async () => {
    const { orgId } = await gw.createOrg({ credits: 10 });
    const job = randomUUID();
    const res = await gw.db.$transaction((tx) => reserveCredits(tx, { orgId, amount: 2, jobId: job }));
    for (const n of [1, 2, 2])
      await gw.db.$transaction((tx) =>
        debitReserved(tx, { reservationId: res.id, idempotencyKey: `parse:${job}:page:${n}`, reason: 'page' }),
      );
    await expect(
      gw.db.$transaction((tx) =>
        debitReserved(tx, { reservationId: res.id, idempotencyKey: `parse:${job}:page:3`, reason: 'page' }),
      ),
    ).rejects.toMatchObject({ code: 'reserved_credits_exhausted' });
    const done = await gw.db.$transaction((tx) => finalizeReservation(tx, { jobId: job, outcome: 'completed' }));
    expect(done).toMatchObject({ status: 'committed', debited_credits: 2 });
    const acc = await gw.db.creditAccount.findUniqueOrThrow({ where: { org_id: orgId } });
    expect(acc.balance_credits).toBe(8);

    const j2 = randomUUID();
    await gw.db.$transaction((tx) => reserveCredits(tx, { orgId, amount: 3, jobId: j2 }));
    expect(
      await gw.db.$transaction((tx) => finalizeReservation(tx, { jobId: j2, outcome: 'completed' })),
    ).toMatchObject({ status: 'released' });

    const j3 = randomUUID();
    const r3 = await gw.db.$transaction((tx) => reserveCredits(tx, { orgId, amount: 3, jobId: j3 }));
    await gw.db.$transaction((tx) =>
      debitReserved(tx, { reservationId: r3.id, idempotencyKey: `parse:${j3}:page:1`, reason: 'page' }),
    );
    expect(await gw.db.$transaction((tx) => finalizeReservation(tx, { jobId: j3, outcome: 'failed' }))).toMatchObject({
      status: 'failed',
    });
    expect((await gw.db.creditAccount.findUniqueOrThrow({ where: { org_id: orgId } })).balance_credits).toBe(8);

    const sum = await gw.db.ledgerEntry.aggregate({ where: { org_id: orgId }, _sum: { amount_credits: true } });
    expect(sum._sum.amount_credits).toBe(8);
  });
});
