// Issue 22.5: the in-memory scoring loop (scoreCandidates) walks the postings block by block of
// segment numbers, keeps a block's sums in a small reused array, picks the best with an inline heap
// and, without filters, leaves out (MaxScore) the segments that only terms too weak to bring them
// into the best hold.
// Here, on a copy of 50,000 segments (several blocks), with terms from a handful of postings to a
// fifth of the segments, equal scores (repeated segments) and table segments, it must give exactly
// what the formula computed naively gives: the same candidates, in the same order, with the same
// scores to the last bit, for limits, file and table filters.
import { rng } from '@docfleet/testing';
import {
  PackedStrings,
  RANKING,
  TermStore,
  normaliseSearchBody,
  scoreCandidates,
  type KbCopy,
  type Ranking,
} from '../src';

const SEGMENTS = 50_000;
const FILES = 7;

function makeCopy(): KbCopy {
  const rand = rng(7);
  const segIds = Array.from(
    { length: SEGMENTS },
    (_, i) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`,
  );
  const segFile = Int32Array.from({ length: SEGMENTS }, (_, i) => Math.floor((i * FILES) / SEGMENTS));
  const segDl = Float64Array.from({ length: SEGMENTS }, () => 5 + Math.floor(rand() * 80));
  const segTable = Uint8Array.from({ length: SEGMENTS }, () => (rand() < 0.05 ? 1 : 0));
  const fileIds = Array.from(
    { length: FILES },
    (_, f) => `10000000-0000-4000-8000-${f.toString(16).padStart(12, '0')}`,
  );
  // Built as the loader builds it (memory-search.ts): terms with their df, then each one's postings.
  const terms = new TermStore();
  // Term i is in a share of the segments from ~0.01% to 20%; every tenth segment repeats the one
  // before it (same terms, frequencies and length: equal scores, ordered by segment number).
  for (let i = 0; i < 40; i++) {
    const share = 0.0001 * Math.pow(2000, i / 39);
    const segs: number[] = [];
    const tfs: number[] = [];
    for (let s = 0; s < SEGMENTS; s++) {
      if (s % 10 === 9 && segs[segs.length - 1] === s - 1) {
        segs.push(s);
        tfs.push(tfs[tfs.length - 1]);
        continue;
      }
      if (s % 10 !== 9 && rand() < share) {
        segs.push(s);
        tfs.push(1 + Math.floor(rand() * 3) + (rand() < 0.3 ? 0.5 : 0));
      }
    }
    for (let s = 9; s < SEGMENTS; s += 10) segDl[s] = segDl[s - 1];
    const files = [...new Set(segs.map((s) => segFile[s]))];
    terms.setPostings(terms.add(`t${i}`, segs.length), segs, tfs, files);
  }
  const total = segDl.reduce((a, b) => a + b, 0);
  return {
    kbId: 'kb',
    orgId: 'org',
    version: '1',
    n: SEGMENTS,
    avgdl: total / SEGMENTS,
    segIds: new PackedStrings(segIds),
    segFile,
    segDl,
    segTable,
    segVersion: new Int32Array(SEGMENTS),
    segOrdinal: Int32Array.from({ length: SEGMENTS }, (_, s) => s),
    versionIds: ['v'],
    fragments: new Map(),
    fileIds,
    fileIndex: new Map(fileIds.map((id, f) => [id, f])),
    terms: terms.finish(),
    postings: 0,
    bytes: 0,
    loadMs: 0,
    stale: false,
  };
}

/** The formula, segment by segment and term by term, with a full sort: what scoreCandidates must equal. */
function naive(
  c: KbCopy,
  lex: Array<{ term: string; w: number }>,
  body: { limit: number; fileIds?: string[]; tableOnly?: boolean },
  r: Ranking,
) {
  const qa = lex
    .map(({ term, w }) => ({ t: c.terms.get(term), w }))
    .filter((x) => x.t && x.w > 0)
    .map(({ t, w }) => ({
      t: t!,
      idf: w * Math.log(1 + (c.n - t!.df + 0.5) / (t!.df + 0.5)),
      rare: t!.df <= r.commonShare * c.n,
    }));
  const qt = qa.some((x) => x.rare) ? qa.filter((x) => x.rare) : qa;
  const s1 = new Map<number, number>();
  const si = new Map<number, number>();
  const fileIdf = new Map<number, number>();
  for (const { t, idf } of qt) {
    t.segs.forEach((s, j) => {
      const tf = t.tfs[j];
      const norm = r.k1 * (1 - r.b + (r.b * c.segDl[s]) / c.avgdl);
      s1.set(s, (s1.get(s) ?? 0) + (idf * tf * (r.k1 + 1)) / (tf + norm));
      si.set(s, (si.get(s) ?? 0) + idf);
    });
    for (const f of t.files) fileIdf.set(f, (fileIdf.get(f) ?? 0) + idf);
  }
  const filtered = Boolean(body.fileIds || body.tableOnly);
  const boost = (s: number) => (c.segTable[s] ? r.tableBoost : 1);
  const all = [...s1.keys()]
    .map((s) => ({ s, v: s1.get(s)! + r.fileContext * (fileIdf.get(c.segFile[s])! - si.get(s)!) }))
    .filter(({ s }) => !body.fileIds || body.fileIds.includes(c.fileIds[c.segFile[s]]))
    .filter(({ s }) => !body.tableOnly || c.segTable[s]);
  const key = (x: { s: number; v: number }) => (filtered ? x.v * boost(x.s) : x.v);
  const byRank = (key: (x: { s: number; v: number }) => number) => (a: { s: number; v: number }, b: typeof a) =>
    key(b) - key(a) || a.s - b.s;
  const sorted = all.slice().sort(byRank(key));
  const prefetch = Math.max(r.prefetch, 4 * body.limit);
  let chosen = sorted.slice(0, prefetch);
  if (filtered && chosen.length === prefetch) {
    const last = key(chosen[prefetch - 1]);
    chosen = chosen.concat(sorted.slice(prefetch).filter((x) => key(x) >= last - 2e-6));
  }
  const few = 2 * body.limit + 10;
  const boosted = (x: { s: number; v: number }) => x.v * boost(x.s);
  const first = chosen.length > few ? chosen.slice().sort(byRank(boosted)) : undefined;
  return {
    full: chosen.map((x) => [c.segIds.at(x.s), x.v]),
    first: first?.slice(0, few).map((x) => [c.segIds.at(x.s), x.v]),
    excludedMax: first ? boosted(first[few]) : undefined,
    more: all.length > chosen.length,
  };
}

describe('scoreCandidates over several blocks of segments', () => {
  const c = makeCopy();
  const queries = [
    ['t0'],
    ['t39'],
    ['t20', 't21'],
    ['t2', 't15', 't30', 't38'],
    ['t1', 't5', 't9', 't13', 't17', 't22', 't26', 't31', 't35', 't39'],
    ['t36', 't37', 't38', 't39'], // common words only
    ['t10', 'absent'],
    // Claims: several words from rare to common, where MaxScore leaves the common ones' other segments out.
    ...Array.from({ length: 12 }, (_, k) => {
      const rand = rng(100 + k);
      return [...new Set(Array.from({ length: 5 + (k % 8) }, () => `t${Math.floor(rand() * 40)}`))];
    }),
  ];
  const bodies: Array<{ limit: number; fileIds?: string[]; tableOnly?: boolean }> = [
    { limit: 10 },
    { limit: 3 },
    { limit: 50 },
    { limit: 10, fileIds: [c.fileIds[1], c.fileIds[5]] },
    { limit: 5, tableOnly: true },
  ];
  const rankings: Ranking[] = [RANKING, { ...RANKING, k1: 0.9, b: 0.4, commonShare: 0.1 }];
  it.each(rankings.map((r, i) => [i, r] as const))('equals the formula computed naively (ranking %i)', (_i, r) => {
    let compared = 0;
    let skipped = 0;
    for (const q of queries)
      for (const body of bodies) {
        const lex = q.map((term, i) => ({ term, w: i === 1 ? r.synonymWeight : 1 }));
        const got = scoreCandidates(
          c,
          lex,
          normaliseSearchBody({
            query: q.join(' '),
            limit: body.limit,
            file_ids: body.fileIds,
            table_only: body.tableOnly,
          }),
          r,
        );
        const want = naive(c, lex, body, r);
        const full = got.tiers[got.tiers.length - 1];
        expect({ q, body, full: full.ids.map((id, i) => [id, full.scores[i]]) }).toEqual({ q, body, full: want.full });
        expect(full.excludedMax).toBe(-Infinity);
        expect(got.more).toBe(want.more);
        if (want.first) {
          expect(got.tiers).toHaveLength(2);
          expect(got.tiers[0].ids.map((id, i) => [id, got.tiers[0].scores[i]])).toEqual(want.first);
          expect(got.tiers[0].excludedMax).toBe(want.excludedMax);
        } else expect(got.tiers).toHaveLength(1);
        compared += full.ids.length;
        skipped += got.skipped;
      }
    // The queries reach past one block and the scratch state is clean between searches.
    expect(compared).toBeGreaterThan(1000);
    expect(c.scratch?.local.every((x) => x === 0)).toBe(true);
    expect(c.scratch?.cand.every((x) => x === 0)).toBe(true);
    // MaxScore left postings out (and the results above are still the naive ones).
    expect(skipped).toBeGreaterThan(10_000);
  });
});
