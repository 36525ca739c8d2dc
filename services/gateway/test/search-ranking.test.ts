// Issue 22: one analyser for index and query, and BM25 ranking with per-knowledge-base statistics,
// through POST /v1/knowledge-bases/{kbId}/search.
import { normaliseSearchBody, searchStatement } from '@docfleet/search-index';
import { seedAndIndex, seg } from '@docfleet/testing';
import { startGateway, type Gateway } from './harness';

let gw: Gateway;
let key: string;
let orgId: string;
let kbId: string;

const search = (query: string, kb = kbId, limit = 10) =>
  gw.req('POST', `/v1/knowledge-bases/${kb}/search`, { key, body: { query, limit } });
const top = async (query: string, kb = kbId) =>
  ((await search(query, kb)).body.hits as Array<{ segmentId: string }>).map((h) => h.segmentId);

// Texts with the tokens that split differently under a naive tokenizer.
const TRICKY: Array<[string, string]> = [
  ['arp', 'The Arp2/3 complex nucleates branched actin; CK-666 inhibits Arp2/3 in fibroblasts.'],
  ['ver', 'Upgrade from v2.10.3 to 3.0-rc1 before 2023-01-15; see RFC-7231 §4.3.'],
  ['mail', 'Write to jane.doe@example.com or visit https://docs.example.com/api/v1/search-index?x=1.'],
  ['chem', 'Treatment with 5-fluorouracil and IL-6/STAT3 signalling in HER2+ cells (p<0.05).'],
  ['decimal', 'Net revenue rose 12.5% to $1,234,567.89 in FY2023 (Q4: 3.1M).'],
];

beforeAll(async () => {
  gw = await startGateway();
  ({ key, orgId } = await gw.createOrg());
  kbId = (await gw.createKnowledgeBase(key, 'Ranking')).id;
  await seedAndIndex(gw.deps, {
    orgId,
    kbId,
    filename: 'tricky.pdf',
    segments: TRICKY.map(([id, text]) => seg(id, text)),
  });
  // Background: "protein" and "increases" are everywhere, "fibrosis" is rare.
  const filler = Array.from({ length: 30 }, (_, i) =>
    seg(`common-${i}`, `Protein expression increases in tissue sample ${i}. The protein increases after treatment.`),
  );
  await seedAndIndex(gw.deps, { orgId, kbId, filename: 'background.pdf', segments: filler });
  await seedAndIndex(gw.deps, {
    orgId,
    kbId,
    filename: 'rare.pdf',
    segments: [
      seg('fibrosis', 'Fibrosis of the liver was measured.'),
      seg(
        'long-fibrosis',
        `Fibrosis was noted once. ${'Unrelated words about weather, maps, trains and cooking recipes. '.repeat(30)}`,
      ),
    ],
  });
});
afterAll(() => gw.close());

describe('one analyser for index and query', () => {
  it('every lexeme indexed for a text is produced again when that text is the query', async () => {
    for (const [id, text] of TRICKY) {
      // The segment's title and text as the query (the file name's words are indexed too, as a weak field).
      const [{ title }] = await gw.db.$queryRaw<{ title: string }[]>`
        SELECT title FROM evidence_index_segments WHERE knowledge_base_id = ${kbId}::uuid AND segment_id = ${id}`;
      const query = `${title} ${text}`;
      const rows = await gw.db.$queryRaw<{ missing: string[] }[]>`
        SELECT coalesce(array_agg(p.term) FILTER (WHERE p.term <> ALL (tsvector_to_array(search_lexemes(${query})))), '{}') AS missing
        FROM search_postings p JOIN evidence_index_segments s ON s.id = p.segment_row_id
        WHERE s.knowledge_base_id = ${kbId}::uuid AND s.segment_id = ${id}
          AND p.term <> ALL (tsvector_to_array(search_lexemes('tricky')))`;
      expect([id, rows[0].missing]).toEqual([id, []]);
      expect((await top(query))[0]).toBe(id);
    }
  });

  it('finds slashes, hyphens, dots and digits inside words whichever way they are typed', async () => {
    for (const [query, id] of [
      ['Arp2/3', 'arp'],
      ['arp2', 'arp'],
      ['CK-666', 'arp'],
      ['ck666', 'arp'],
      ['v2.10.3', 'ver'],
      ['RFC-7231', 'ver'],
      ['2023-01-15', 'ver'],
      ['jane.doe@example.com', 'mail'],
      ['docs.example.com', 'mail'],
      ['5-fluorouracil', 'chem'],
      ['IL-6/STAT3', 'chem'],
      ['HER2', 'chem'],
      ['1,234,567.89', 'decimal'],
      ['FY2023', 'decimal'],
    ]) {
      expect([query, (await top(query))[0]]).toEqual([query, id]);
    }
  });
});

describe('BM25 with per-knowledge-base statistics', () => {
  it('weighs a rare word above common ones (IDF)', async () => {
    const hits = await top('protein fibrosis increases');
    expect(hits[0]).toBe('fibrosis');
  });

  it('prefers a short segment about the question to a long one mentioning it once (length normalisation)', async () => {
    const hits = await top('fibrosis');
    expect(hits.slice(0, 2)).toEqual(['fibrosis', 'long-fibrosis']);
  });

  it('keeps statistics per knowledge base: another one’s documents do not change this one’s scores', async () => {
    const before = (await search('protein fibrosis')).body.hits.map((h: { score: number }) => h.score);
    const other = (await gw.createKnowledgeBase(key, 'Other')).id as string;
    await seedAndIndex(gw.deps, {
      orgId,
      kbId: other,
      filename: 'other.pdf',
      segments: Array.from({ length: 20 }, (_, i) => seg(`o-${i}`, `Fibrosis fibrosis report ${i}.`)),
    });
    const after = (await search('protein fibrosis')).body.hits.map((h: { score: number }) => h.score);
    expect(after).toEqual(before);
    expect((await top('fibrosis', other))[0]).toMatch(/^o-/);
  });
});

describe('group_by file: the file-level order (issue 22.4)', () => {
  type Hit = { segmentId: string; docName: string; score: number };
  const hitsOf = async (body: Record<string, unknown>) =>
    (await gw.req('POST', `/v1/knowledge-bases/${kbId}/search`, { key, body })).body.hits as Hit[];

  it('keeps each file’s best segment, files in the order of that score, so one file does not crowd out others', async () => {
    const query = 'fibrosis Arp2/3';
    const all = await hitsOf({ query, limit: 80 });
    // Without grouping, tricky.pdf's segments (Arp2/3, and others with a "3") fill a limit of 2.
    expect((await hitsOf({ query, limit: 2 })).map((h) => h.docName)).toEqual(['tricky.pdf', 'tricky.pdf']);
    const firstOfEachFile = all.filter((h, i) => all.findIndex((x) => x.docName === h.docName) === i);
    const grouped = await hitsOf({ query, limit: 80, group_by: 'file' });
    expect(grouped).toEqual(firstOfEachFile);
    expect(new Set(grouped.map((h) => h.docName)).size).toBe(grouped.length);
    expect(grouped.slice(0, 2).map((h) => [h.docName, h.segmentId])).toEqual([
      ['tricky.pdf', 'arp'],
      ['rare.pdf', 'fibrosis'],
    ]);
    // With a filter (the statement's other path) too.
    const tricky = grouped.find((h) => h.docName === 'tricky.pdf') as Hit & { fileId: string };
    const filtered = await hitsOf({ query, limit: 80, group_by: 'file', file_ids: [tricky.fileId] });
    expect(filtered.map((h) => h.segmentId)).toEqual(['arp']);
    // The limit counts files, and the camelCase form is accepted too.
    expect(await hitsOf({ query, limit: 2, groupBy: 'file' })).toEqual(firstOfEachFile.slice(0, 2));
  });

  it('a blank query lists each file’s first segment in file name order', async () => {
    const grouped = await hitsOf({ query: '', limit: 10, group_by: 'file' });
    expect(grouped.map((h) => [h.docName, h.segmentId])).toEqual([
      ['background.pdf', 'common-0'],
      ['rare.pdf', 'fibrosis'],
      ['tricky.pdf', 'arp'],
    ]);
  });

  it('refuses another grouping', async () => {
    const res = await gw.req('POST', `/v1/knowledge-bases/${kbId}/search`, {
      key,
      body: { query: 'fibrosis', group_by: 'folder' },
    });
    expect([res.status, res.body.code]).toEqual([400, 'invalid_request_body']);
  });
});

describe('prepared statement (issue 22.5)', () => {
  // The gateway runs the search as a named prepared statement: after five custom plans per connection
  // PostgreSQL may keep a generic one. Whichever plan runs, the hits must be the same.
  const hitsUnder = (mode: 'force_generic_plan' | 'force_custom_plan', query: string) =>
    gw.db.$transaction(async (tx) => {
      await tx.$executeRawUnsafe(`SET LOCAL plan_cache_mode = ${mode}`);
      const [row] = await tx.$queryRaw<{ hits: string }[]>(
        searchStatement({ kbId, orgId }, normaliseSearchBody({ query, limit: 10 })),
      );
      return (JSON.parse(row.hits) as Array<{ segmentId: string; score: number }>).map((h) => [h.segmentId, h.score]);
    });

  it('gives the same hits with a generic plan as with a custom one, and over HTTP on every repetition', async () => {
    for (const query of ['fibrosis protein', 'protein increases', 'Arp2/3 CK-666', 'jane.doe@example.com weather']) {
      const custom = await hitsUnder('force_custom_plan', query);
      expect(custom.length).toBeGreaterThan(0);
      expect(await hitsUnder('force_generic_plan', query)).toEqual(custom);
      for (let i = 0; i < 7; i++) {
        const hits = (await search(query)).body.hits as Array<{ segmentId: string; score: number }>;
        expect(hits.map((h) => [h.segmentId, h.score])).toEqual(custom);
      }
    }
  });
});
