// rawTransaction: statements on one pooled connection inside BEGIN … COMMIT, rolled back when the
// callback throws, and the connection handed back usable either way (a one-connection pool shows
// that a failed transaction did not leave its connection in an aborted state).
import { Prisma, createPrismaClient, rawTransaction, type PrismaClient } from '../src';
import { createTestDb, type TestDb } from '../../testing/src';

let t: TestDb;
let db: PrismaClient;
beforeAll(async () => {
  t = await createTestDb();
  db = createPrismaClient(t.url, { poolMax: 1 });
  await db.$executeRawUnsafe('CREATE TABLE raw_tx_probe (n int NOT NULL)');
});
afterAll(async () => {
  await db.$disconnect();
  await t.drop();
});

const count = async () => Number((await db.$queryRaw<{ c: bigint }[]>`SELECT count(*) AS c FROM raw_tx_probe`)[0]!.c);

describe('rawTransaction', () => {
  it('commits every statement of the callback together, with node-postgres values', async () => {
    const out = await rawTransaction(db, async (q) => {
      await q(Prisma.sql`INSERT INTO raw_tx_probe (n) VALUES (${1}), (${2})`);
      return q<{ s: string; c: number }>(Prisma.sql`SELECT sum(n)::int8 AS s, count(*)::int AS c FROM raw_tx_probe`);
    });
    // int8 comes back as text, int4 as a number: the caller converts what it needs.
    expect(out).toEqual([{ s: '3', c: 2 }]);
    expect(await count()).toBe(2);
  });

  it('rolls back when the callback throws, and the connection serves the next caller', async () => {
    await expect(
      rawTransaction(db, async (q) => {
        await q(Prisma.sql`INSERT INTO raw_tx_probe (n) VALUES (${10})`);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    await expect(
      rawTransaction(db, async (q) => {
        await q(Prisma.sql`INSERT INTO raw_tx_probe (n) VALUES (${11})`);
        await q(Prisma.sql`SELECT 1 / ${0}::int`); // a failing statement aborts the transaction
      }),
    ).rejects.toThrow(/division by zero/);
    expect(await count()).toBe(2);
    // The pool's only connection is back and not inside an aborted transaction.
    await rawTransaction(db, (q) => q(Prisma.sql`INSERT INTO raw_tx_probe (n) VALUES (${4})`));
    expect(await count()).toBe(3);
  });
});
