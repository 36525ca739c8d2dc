// The memory cap of the in-memory search copies (SEARCH_MEMORY_MB) counts each copy at its estimated
// size before loading it (estimateBytes). The estimate must follow what a loaded copy really retains:
// one that is several times too big keeps knowledge bases that would fit on the SQL path, one that is
// too small lets the copies outgrow the cap. Measured here on copies of two shapes loaded by the real
// loader from PostgreSQL: many terms with few postings each, and few terms with many postings.
import { Prisma, queryRows } from '@docfleet/db';
import { MemorySearch, estimateLoadedBytes, normaliseSearchBody } from '@docfleet/search-index';
import { retainedBytes, seedAndIndex, seg, syntheticVocabulary, zipfText } from '@docfleet/testing';
import { startGateway, type Gateway } from './harness';

let gw: Gateway;
let key: string;
let orgId: string;
beforeAll(async () => {
  gw = await startGateway();
  ({ key, orgId } = await gw.createOrg());
}, 60_000);
afterAll(() => gw.close());

const VOCAB = syntheticVocabulary();
const text = zipfText(VOCAB, 23);
/** A word of its own for n (a letter code: not stemmed away, not in VOCAB). */
const code = (n: number) => {
  let w = '';
  for (let k = 0; k < 4; k++, n = Math.floor(n / 26)) w += String.fromCharCode(97 + (n % 26));
  return `zq${w}`;
};

async function kbOf(name: string, files: number, segment: (f: number, i: number) => string) {
  const kbId = (await gw.createKnowledgeBase(key, name)).id;
  for (let f = 0; f < files; f++)
    await seedAndIndex(gw.deps, {
      orgId,
      kbId,
      filename: `${name}-${f}.pdf`,
      segments: Array.from({ length: 1000 }, (_, i) => seg(`${name}${f}-${i}`, segment(f, i))),
    });
  return kbId;
}

/** The copy's retained bytes, measured around loading it and one filtered search, and its estimate. */
async function measure(kbId: string) {
  const [st] = await queryRows<{ terms: number; postings: number; term_bytes: number; files: number }>(
    gw.db,
    Prisma.sql`SELECT count(*)::int AS terms, sum(df)::float8 AS postings, sum(octet_length(term))::float8 AS term_bytes,
      (SELECT file_count FROM evidence_index_state WHERE knowledge_base_id = ${kbId}::uuid) AS files
      FROM search_terms WHERE knowledge_base_id = ${kbId}::uuid`,
  );
  const mem = new MemorySearch(gw.db, { maxBytes: 1 << 30, minSegments: 0 });
  const before = retainedBytes();
  await mem.refresh(kbId, orgId);
  // A filtered search: the scoring arrays made at the first search, the filters' two as well.
  const got = await mem.search({ kbId, orgId }, normaliseSearchBody({ query: VOCAB[3], table_only: true }));
  const measured = retainedBytes() - before;
  const copy = mem.copyOf(kbId)!;
  expect(got.outcome).toBe('memory');
  const segments = copy.segIds.length;
  const estimate = estimateLoadedBytes({
    segments,
    postings: st!.postings,
    terms: st!.terms,
    termBytes: st!.term_bytes,
    files: st!.files,
  });
  const row = { segments, terms: st!.terms, postings: st!.postings, measured, estimate };
  if (process.env.SEARCH_BYTES_LOG) console.log(JSON.stringify({ ...row, ratio: estimate / measured }));
  return row;
}

it('estimates a loaded copy within 15 % of what it retains, for many terms or many postings', async () => {
  // Warm up (connection buffers, lexeme analyser, compiled code) on a small copy first.
  const warm = await kbOf('warm', 1, (f, i) => `${text(20)} ${code(900_000 + i)}`);
  await measure(warm);
  // 12,000 segments, each with 8 words of its own and 6 common ones: ~96,000 terms, ~1.7 postings each.
  const manyTerms = await kbOf('terms', 12, (f, i) => {
    const n = (f * 1000 + i) * 8;
    return `${text(6)} ${Array.from({ length: 8 }, (_, k) => code(n + k)).join(' ')}`;
  });
  // 12,000 segments of 60 common words: ~400 terms with about a thousand postings each.
  const manyPostings = await kbOf('postings', 12, () => text(60));
  const a = await measure(manyTerms);
  const b = await measure(manyPostings);
  expect(a.terms).toBeGreaterThan(90_000);
  expect(b.postings / b.terms).toBeGreaterThan(500);
  for (const m of [a, b])
    expect({ ...m, off: Math.abs(m.estimate / m.measured - 1) < 0.15 }).toMatchObject({ off: true });
}, 600_000);
