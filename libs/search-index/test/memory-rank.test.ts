// Issue 22.5: a search ranked in the gateway rounds its scores as the statement does,
// `round(score::numeric, 6)::float8` in PostgreSQL, to the last bit: the API returns those scores and
// orders equal ones by file and position, so one rounding off by a unit in the sixth decimal would
// change the order of two hits.
import { createTestDb, rng, type TestDb } from '@docfleet/testing';
import { Prisma, queryRows } from '@docfleet/db';
import { pgRound6, rankHits, type RankedHit } from '../src/memory-rank';

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb();
});
afterAll(() => tdb?.drop());

async function pgRounded(xs: number[]): Promise<number[]> {
  const rows = await queryRows<{ v: number }>(
    tdb.db,
    Prisma.sql`SELECT round(x::numeric, 6)::float8 AS v FROM unnest(${xs}::float8[]) WITH ORDINALITY AS u(x, i) ORDER BY i`,
  );
  return rows.map((r) => r.v);
}

describe('pgRound6', () => {
  it('equals PostgreSQL’s round(x::numeric, 6)::float8 on scores, boosted scores, tiny values and exact ties', async () => {
    const rand = rng(5);
    const xs: number[] = [];
    // BM25-like scores and the same × the table boost, as the gateway computes them.
    for (let i = 0; i < 20_000; i++) {
      const v = rand() * 60;
      xs.push(v, v * 1.15);
    }
    // Near six-decimal boundaries: k/10^6 ± a few ulps, and halfway points.
    for (let i = 0; i < 5_000; i++) {
      const k = Math.floor(rand() * 60_000_000);
      const b = k / 1e6;
      xs.push(b, b + 5e-7, b + 4.9999999e-7, b + 5.0000001e-7, b + Number.EPSILON * b, b - Number.EPSILON * b);
    }
    // Values whose exact decimal expansion ends at the 16th significant digit with a 5 (%.15g rounds
    // them to even, JavaScript's toPrecision up), and other short binary fractions.
    for (let i = 0; i < 3_000; i++) {
      const j = 1 + Math.floor(rand() * 2 ** 20);
      xs.push(j / 2 ** 15, j / 2 ** 20, j / 2 ** 30, 1 + j / 2 ** 35, (2 * j + 1) / 2 ** 16);
      // Nine integer digits: the 15 significant digits end at the sixth decimal, so the tie decides it.
      xs.push((2 ** 34 + 2 * j + 1) / 128);
    }
    // Tiny and large values, zero, negatives.
    xs.push(0, 1e-7, 4.9e-7, 5e-7, 5.1e-7, 1e-6, 1.5e-6, 2.5e-6, 1e-300, 123456789.1234567, 1e15 + 0.5, 1e21, 3e25);
    xs.push(-0.1234565, -2.5e-6, -1 - 2 ** -15);
    const want = await pgRounded(xs);
    const diffs = xs.flatMap((x, i) => (Object.is(pgRound6(x), want[i]) ? [] : [[x, pgRound6(x), want[i]]]));
    expect(diffs.slice(0, 10)).toEqual([]);
    // The ties are real: rounding toPrecision(15)'s digits (ties up) instead would differ on some.
    const naive = (x: number) => Math.round(Number(x.toPrecision(15)) * 1e6) / 1e6;
    expect(xs.filter((x, i) => !Object.is(naive(x), want[i])).length).toBeGreaterThan(0);
  }, 60_000);
});

describe('rankHits', () => {
  const h = (seg: number, fileId: string, ordinal: number, score: number): RankedHit => ({
    seg,
    fileId,
    ordinal,
    score,
  });
  it('orders by score, then file, then position; grouped, each file’s best (earlier on ties) first', () => {
    const hits = [h(1, 'b', 3, 2), h(2, 'a', 9, 2), h(3, 'a', 1, 2), h(4, 'c', 0, 5), h(5, 'b', 1, 2), h(6, 'c', 2, 1)];
    expect(rankHits([...hits], 10, false).map((x) => x.seg)).toEqual([4, 3, 2, 5, 1, 6]);
    expect(rankHits([...hits], 3, false).map((x) => x.seg)).toEqual([4, 3, 2]);
    expect(rankHits([...hits], 10, true).map((x) => x.seg)).toEqual([4, 3, 5]);
    expect(rankHits([...hits], 2, true).map((x) => x.seg)).toEqual([4, 3]);
  });
});
