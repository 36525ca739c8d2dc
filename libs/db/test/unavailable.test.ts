// isDatabaseUnavailable against the errors a real PostgreSQL and a real pool produce: a server that
// is not there, a pool too busy to start a transaction, a connection the server terminates — and
// not against the request's own faults (a unique violation, a syntax error).
import { Client } from 'pg';
import { createPrismaClient, isDatabaseUnavailable } from '../src';
import { createTestDb, freePort, type TestDb } from '../../testing/src';

let t: TestDb;
beforeAll(async () => {
  t = await createTestDb();
});
afterAll(() => t.drop());

const caught = async (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );

describe('isDatabaseUnavailable', () => {
  it('recognises a server that is not listening', async () => {
    const db = createPrismaClient(`postgresql://postgres@127.0.0.1:${await freePort()}/nothing`);
    try {
      expect(isDatabaseUnavailable(await caught(db.$queryRaw`SELECT 1`))).toBe(true);
    } finally {
      await db.$disconnect();
    }
  });

  it('recognises a transaction that cannot get a connection in time', async () => {
    const db = createPrismaClient(t.url, { poolMax: 1, txMaxWaitMs: 300 });
    try {
      await db.$queryRaw`SELECT 1`; // the pool's one connection is open
      let release!: () => void;
      let held!: Promise<unknown>;
      await new Promise<void>((ok) => {
        held = db.$transaction(async (tx) => {
          await tx.$queryRaw`SELECT 1`;
          ok();
          await new Promise<void>((r) => (release = r));
        });
      });
      const err = await caught(db.$transaction(async (tx) => tx.$queryRaw`SELECT 1`));
      release();
      await held;
      expect(isDatabaseUnavailable(err)).toBe(true);
    } finally {
      await db.$disconnect();
    }
  });

  it('recognises a connection the server terminates (what a restart does)', async () => {
    const db = createPrismaClient(t.url, { poolMax: 1 });
    const admin = new Client({ connectionString: t.url });
    await admin.connect();
    try {
      const [{ pid }] = await db.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
      const slow = caught(db.$queryRaw`SELECT pg_sleep(5)`);
      await new Promise((r) => setTimeout(r, 300));
      await admin.query('SELECT pg_terminate_backend($1)', [pid]);
      expect(isDatabaseUnavailable(await slow)).toBe(true);
      // and the pool serves the next query on a fresh connection
      expect(await db.$queryRaw`SELECT 1 AS one`).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await db.$disconnect();
    }
  });

  it("leaves the request's own faults alone", async () => {
    await t.db.$executeRawUnsafe('CREATE TABLE uniq_probe (k text PRIMARY KEY)');
    await t.db.$executeRawUnsafe("INSERT INTO uniq_probe VALUES ('a')");
    const dup = await caught(t.db.$executeRawUnsafe("INSERT INTO uniq_probe VALUES ('a')"));
    expect(isDatabaseUnavailable(dup)).toBe(false);
    expect(isDatabaseUnavailable(await caught(t.db.$queryRawUnsafe('SELEC 1')))).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
