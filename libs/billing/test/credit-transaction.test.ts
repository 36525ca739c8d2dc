// creditTransaction on a real PostgreSQL: one credit transaction per organisation at a time in a
// process, other organisations unaffected, a caller that cannot get its turn in time told 503, and
// a burst on a small pool ends with exactly the affordable charges.
import { randomUUID } from 'node:crypto';
import { createPrismaClient, type Db } from '@docfleet/db';
import { isApiError } from '@docfleet/errors';
import { createTestDb, type TestDb } from '../../testing/src';
import { creditTransaction, debitCredits, grantCredits, reconcile } from '../src';

let t: TestDb;
let db: Db;
beforeAll(async () => {
  t = await createTestDb();
  db = createPrismaClient(t.url, { poolMax: 3 });
});
afterAll(async () => {
  await db.$disconnect();
  await t.drop();
});

async function org(credits: number): Promise<string> {
  const o = await t.db.organization.create({ data: { name: `o-${randomUUID().slice(0, 8)}` } });
  if (credits)
    await grantCredits(t.db, { orgId: o.id, amount: credits, idempotencyKey: `grant:${o.id}`, reason: 'test' });
  return o.id;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('creditTransaction', () => {
  it('runs one transaction per organisation at a time, and other organisations beside it', async () => {
    const [a, b] = [await org(0), await org(0)];
    const inside = new Map<string, number>();
    const peak = new Map<string, number>();
    let overlapAcrossOrgs = false;
    const run = (orgId: string) =>
      creditTransaction(db, orgId, async (tx) => {
        inside.set(orgId, (inside.get(orgId) ?? 0) + 1);
        peak.set(orgId, Math.max(peak.get(orgId) ?? 0, inside.get(orgId)!));
        if ((inside.get(a) ?? 0) > 0 && (inside.get(b) ?? 0) > 0) overlapAcrossOrgs = true;
        await tx.$executeRaw`SELECT pg_sleep(0.02)`;
        inside.set(orgId, inside.get(orgId)! - 1);
      });
    await Promise.all(Array.from({ length: 20 }, (_, i) => run(i % 2 ? a : b)));
    expect(peak.get(a)).toBe(1);
    expect(peak.get(b)).toBe(1);
    expect(overlapAcrossOrgs).toBe(true);
  });

  it('answers 503 service_unavailable to a caller whose turn does not come in time, and keeps the order for the rest', async () => {
    const a = await org(0);
    let release!: () => void;
    let holding = true;
    const holder = creditTransaction(db, a, async () => {
      await new Promise<void>((r) => (release = r));
      holding = false;
    });
    await sleep(50);
    const impatient = await creditTransaction(db, a, async () => 'ran', { waitMs: 100 }).catch((e: unknown) => e);
    expect(isApiError(impatient) && [impatient.code, impatient.status]).toEqual(['service_unavailable', 503]);
    // a caller queued after the one that gave up still waits for the holder
    const after = creditTransaction(db, a, async () => holding);
    await sleep(100);
    release();
    await holder;
    expect(await after).toBe(false);
  });

  it('a burst of debits on a three-connection pool: exactly the affordable ones succeed, the rest get 402, the ledger balances', async () => {
    const a = await org(25);
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) =>
        creditTransaction(db, a, (tx) =>
          debitCredits(tx, { orgId: a, amount: 1, idempotencyKey: `burst:${i}`, reason: 'burst' }),
        ),
      ),
    );
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(25);
    expect(refused.map((e) => (isApiError(e) ? e.code : String(e)))).toEqual(Array(75).fill('insufficient_credits'));
    expect((await t.db.creditAccount.findUniqueOrThrow({ where: { org_id: a } })).balance_credits).toBe(0);
    expect((await reconcile(t.db)).filter((m) => m.org_id === a)).toEqual([]);
  });
});
