// Issue 22.5: search scored over the gateway's in-memory copy of a knowledge base's postings must
// return exactly what the SQL statement returns (same segments, order and scores) for common words,
// rare words, mixes and sentences, grouped or not, with filters and limits, for each organisation's
// own knowledge base only, and after files are trashed, deleted or re-indexed (a copy that is behind
// the index version never answers; it is reloaded).
import path from 'node:path';
import { queryRows } from '@docfleet/db';
import {
  MemorySearch,
  RANKING,
  normaliseSearchBody,
  queryText,
  textSearchSql,
  type Ranking,
  type SearchRow,
} from '@docfleet/search-index';
import {
  addManifest,
  addVersion,
  indexNow,
  seedAndIndex,
  seedRankingFiles,
  seg,
  memoryAfterGc,
  syntheticVocabulary,
  waitUntil,
  zipfText,
} from '@docfleet/testing';
import { memorySearchOf } from '../src/domain/search/search';
import { startGateway, type Gateway } from './harness';

let gw: Gateway;
let key: string;
let orgId: string;
let kbId: string;
let other: { key: string; orgId: string; kbId: string };
const files: Array<{ fileId: string; versionId: string }> = [];

// Words with Zipf-like frequencies: a few in most segments, most in few.
const VOCAB = syntheticVocabulary();
const text = zipfText(VOCAB, 11);

const QUERIES = [
  ...VOCAB.slice(0, 3),
  ...VOCAB.slice(150, 153),
  `${VOCAB[0]} ${VOCAB[1]} ${VOCAB[200]}`,
  `${VOCAB[2]} ${VOCAB[40]} ${VOCAB[90]} ${VOCAB[300]}`,
  `${VOCAB[5]} ${VOCAB[6]} ${VOCAB[7]} ${VOCAB[8]}`,
  `The ${VOCAB[1]} of ${VOCAB[20]} and ${VOCAB[60]} increases ${VOCAB[3]} in ${VOCAB[120]}.`,
  `${VOCAB[0]} ${VOCAB[399]}`,
  `part ${VOCAB[30]}`, // a file-name word: the file-context credit
  'nothingmatcheshere',
];

type Body = Record<string, unknown>;
const variants = (): Array<{ body: Body; r?: Ranking }> => [
  { body: {} },
  { body: { limit: 3 } },
  { body: { limit: 1 } },
  { body: { group_by: 'file' } },
  { body: { group_by: 'file', limit: 2 } },
  { body: { group_by: 'file', limit: 5 } }, // the best few candidates often hold fewer than 5 files
  { body: { file_ids: [files[0].fileId, files[3].fileId] } },
  { body: { table_only: true } },
  { body: { source_type: 'PDF', limit: 5 } },
  { body: { limit: 3 }, r: { ...RANKING, prefetch: 4 } }, // few candidates: too few may survive visibility
];

const hitsOf = (row: SearchRow | undefined) =>
  row ? (JSON.parse(row.hits) as Array<{ id: string; score: number }>).map((h) => [h.id, h.score]) : 'no row';

async function statement(sc: { kbId: string; orgId: string }, query: string, body: Body, r: Ranking) {
  const req = normaliseSearchBody({ query, ...body });
  const f = { fileIds: req.fileIds, folderId: req.folderId, sourceType: req.sourceType, tableOnly: req.tableOnly };
  const [row] = await queryRows<SearchRow>(
    gw.db,
    textSearchSql(sc, queryText(query), f, req.limit, req.groupByFile, { ...r, exitShare: 0 }),
  );
  return row;
}

/** Every query under every variant: the copy's hits equal the statement's; returns the outcomes. */
async function compareAll(sc: { kbId: string; orgId: string }) {
  const outcomes: Record<string, number> = { widened: 0 };
  for (const v of variants()) {
    const mem = new MemorySearch(gw.db, { maxBytes: 64 << 20, minSegments: 0, ranking: v.r ?? RANKING });
    await mem.refresh(sc.kbId, sc.orgId);
    expect(mem.copyOf(sc.kbId)).toBeDefined();
    for (const query of QUERIES) {
      const want = await statement(sc, query, v.body, v.r ?? RANKING);
      const got = await mem.search(sc, normaliseSearchBody({ query, ...v.body }));
      outcomes[got.outcome] = (outcomes[got.outcome] ?? 0) + 1;
      outcomes.widened += mem.widened;
      mem.widened = 0;
      expect(got.outcome === 'memory' || got.outcome === 'short').toBe(true);
      if (got.outcome === 'memory')
        expect({ query, body: v.body, hits: hitsOf(got.rows?.[0]) }).toEqual({
          query,
          body: v.body,
          hits: hitsOf(want),
        });
    }
  }
  return outcomes;
}

// node-postgres as libs/db loads it (queryRows runs statements through its Pool).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const pgPool: { prototype: { query: (...a: unknown[]) => unknown } } = require(
  require.resolve('pg', { paths: [path.dirname(require.resolve('@docfleet/db'))] }),
).Pool;
const isStateStatement = (cfg: unknown) =>
  typeof cfg === 'object' &&
  /AS folder_ok[\s\S]*json_build_array\(f\.id, f\.current_version_id/.test(String((cfg as { text?: string }).text));

/**
 * Holds back PostgreSQL's answers to the first `max` state statements (candidateStateSql, sent and
 * read as usual) until release(); counts the statements sent and the held ones answered.
 */
function holdStateStatements(max: number) {
  const original = pgPool.prototype.query;
  let open!: () => void;
  const released = new Promise<void>((r) => (open = r));
  const gate = {
    sent: 0,
    answered: 0,
    release: () => open(),
    restore: () => {
      open();
      pgPool.prototype.query = original;
    },
    /** Waits, through waitUntil, for the searches to have reached the held statements as `what` says. */
    reached: (what: string, cond: () => boolean) =>
      waitUntil(what, cond, {
        timeoutMs: 20_000,
        intervalMs: 10,
        detail: () => `statements sent ${gate.sent}, answered ${gate.answered}`,
      }),
  };
  pgPool.prototype.query = function (this: unknown, ...args: unknown[]) {
    const answer = original.apply(this, args);
    if (!isStateStatement(args[0])) return answer;
    if (gate.sent++ >= max) return answer;
    return (answer as Promise<unknown>).then(async (x) => {
      gate.answered++;
      await released;
      return x;
    });
  };
  return gate;
}

/** Searches of the gateway's in-memory path that asked for a state statement (0 where not counted). */
const stateSearches = () =>
  (memorySearchOf(gw.deps) as { stateStatements?: { searches: number } }).stateStatements?.searches ?? 0;

beforeAll(async () => {
  gw = await startGateway();
  ({ key, orgId } = await gw.createOrg());
  kbId = (await gw.createKnowledgeBase(key, 'Memory search')).id;
  files.push(...(await seedRankingFiles(gw.deps, { orgId, kbId, text })));
  // Another organisation with the same words: its segments must never change this one's scores.
  const o = await gw.createOrg();
  const okb = (await gw.createKnowledgeBase(o.key, 'Other')).id;
  await seedAndIndex(gw.deps, {
    orgId: o.orgId,
    kbId: okb,
    filename: 'other.pdf',
    segments: Array.from({ length: 80 }, (_, i) => seg(`o-${i}`, text(20))),
  });
  other = { key: o.key, orgId: o.orgId, kbId: okb };
}, 120_000);
afterAll(() => gw.close());

describe('in-memory search', () => {
  it('returns the statement’s hits and scores for every query, filter, limit and grouping', async () => {
    const outcomes = await compareAll({ kbId, orgId });
    // The copy must actually answer most searches (else this compares the statement with itself).
    expect(outcomes.memory).toBeGreaterThan(QUERIES.length * 7);
    // Both the best-few and the full candidate sets answered some searches.
    expect(outcomes.widened).toBeGreaterThan(0);
    expect(outcomes.widened).toBeLessThan(outcomes.memory / 2);
    // Another organisation's copy answers for its own knowledge base, and never for this one.
    await compareAll(other);
    const mem = new MemorySearch(gw.db, { maxBytes: 64 << 20, minSegments: 0 });
    await mem.refresh(kbId, orgId);
    const stranger = await mem.search({ kbId, orgId: other.orgId }, normaliseSearchBody({ query: VOCAB[0] }));
    expect(stranger.outcome).toBe('no-copy');
    await mem.refresh(kbId, other.orgId);
    const again = await mem.search({ kbId, orgId: other.orgId }, normaliseSearchBody({ query: VOCAB[0] }));
    expect(again.rows ?? []).toEqual([]);
    // Nor does that drop the organisation's own copy, or keep it from loading.
    expect(mem.copyOf(kbId)?.orgId).toBe(orgId);
    const fresh = new MemorySearch(gw.db, { maxBytes: 64 << 20, minSegments: 0 });
    expect((await fresh.search({ kbId, orgId: other.orgId }, normaliseSearchBody({ query: VOCAB[0] }))).outcome).toBe(
      'no-copy',
    );
    await fresh.refresh(kbId, other.orgId);
    expect(fresh.copyOf(kbId)).toBeUndefined();
    expect((await fresh.search({ kbId, orgId: other.orgId }, normaliseSearchBody({ query: VOCAB[0] }))).outcome).toBe(
      'skipped',
    );
    await fresh.refresh(kbId, orgId);
    expect((await fresh.search({ kbId, orgId }, normaliseSearchBody({ query: VOCAB[0] }))).outcome).toBe('memory');
  }, 180_000);

  it('keeps a copy of 8,000 segments and ~35,000 terms in little heap (few objects for the GC to walk)', async () => {
    // Each segment: common words and four words of its own (a letter code, not stemmed away).
    const code = (n: number) => {
      let w = '';
      for (let k = 0; k < 4; k++, n = Math.floor(n / 26)) w += String.fromCharCode(97 + (n % 26));
      return `zq${w}`;
    };
    const heapKb = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Heap' } })).body.knowledge_base
      .id as string;
    for (let f = 0; f < 8; f++)
      await seedAndIndex(gw.deps, {
        orgId,
        kbId: heapKb,
        filename: `heap-${f}.pdf`,
        segments: Array.from({ length: 1000 }, (_, i) => {
          const n = (f * 1000 + i) * 4;
          return seg(`h${f}-${i}`, `${text(12)} ${code(n)} ${code(n + 1)} ${code(n + 2)} ${code(n + 3)}`);
        }),
      });
    const used = () => memoryAfterGc().heapUsed;
    const mem = new MemorySearch(gw.db, { maxBytes: 256 << 20, minSegments: 0 });
    const before = used();
    const abBefore = process.memoryUsage().arrayBuffers;
    await mem.refresh(heapKb, orgId);
    const copy = mem.copyOf(heapKb);
    const retained = used() - before;
    if (process.env.SEARCH_HEAP_LOG)
      console.log(
        'heap retained MiB',
        retained / 2 ** 20,
        'array buffers MiB',
        (process.memoryUsage().arrayBuffers - abBefore) / 2 ** 20,
      );
    expect(copy?.terms.size).toBeGreaterThan(32_000);
    expect(copy?.segIds.length).toBe(8000);
    // JS heap the GC walks (typed arrays' contents are outside it): the Map of term objects with three
    // typed arrays each and the uuid strings took ~23 MiB; the packed stores well under 1 MiB.
    expect(retained).toBeLessThan(10 << 20);
    const got = await mem.search({ kbId: heapKb, orgId }, normaliseSearchBody({ query: code(4321) }));
    expect(got.outcome).toBe('memory');
    expect(hitsOf(got.rows?.[0])).toEqual(hitsOf(await statement({ kbId: heapKb, orgId }, code(4321), {}, RANKING)));
  }, 300_000);

  it('leaves out (MaxScore) what cannot enter the best on a knowledge base of several scoring blocks, with the statement’s hits', async () => {
    // 3,000 segments (the scoring loop works on blocks of 1,024), claims of 5–12 words: once the best
    // 100 are kept, the common words' postings only add to segments a rarer word holds.
    const big = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Blocks' } })).body.knowledge_base
      .id as string;
    for (let f = 0; f < 3; f++)
      await seedAndIndex(gw.deps, {
        orgId,
        kbId: big,
        filename: `blocks-${f}.pdf`,
        segments: Array.from({ length: 1000 }, (_, i) => seg(`b${f}-${i}`, text(6 + (i % 7) * 3))),
      });
    const mem = new MemorySearch(gw.db, { maxBytes: 64 << 20, minSegments: 0 });
    await mem.refresh(big, orgId);
    const claims = Array.from({ length: 16 }, (_, k) =>
      Array.from({ length: 5 + (k % 8) }, (_, j) => VOCAB[(k * 37 + j * j * 11 + j) % 400]).join(' '),
    );
    let memory = 0;
    for (const query of claims)
      for (const body of [{}, { limit: 3 }, { group_by: 'file' }, { limit: 30 }] as Body[]) {
        const got = await mem.search({ kbId: big, orgId }, normaliseSearchBody({ query, ...body }));
        if (got.outcome !== 'memory') continue;
        memory++;
        expect({ query, body, hits: hitsOf(got.rows?.[0]) }).toEqual({
          query,
          body,
          hits: hitsOf(await statement({ kbId: big, orgId }, query, body, RANKING)),
        });
      }
    expect(memory).toBeGreaterThanOrEqual(claims.length * 3);
    expect(mem.skippedPostings).toBeGreaterThan(300);
  }, 240_000);

  it('orders equal scores as the statement does (file, position), whatever candidates it sends first', async () => {
    // 40 equal segments: equal scores, ordered by position; the best few by score are not the first few.
    const tie = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Ties' } })).body.knowledge_base
      .id as string;
    const env = gw.deps;
    const segments = Array.from({ length: 40 }, (_, i) => seg(`tie-${i}`, 'tieword alpha beta'));
    await seedAndIndex(env, { orgId, kbId: tie, filename: 'ties.pdf', segments });
    const mem = new MemorySearch(gw.db, { maxBytes: 64 << 20, minSegments: 0 });
    await mem.refresh(tie, orgId);
    for (const limit of [1, 3, 5, 8]) {
      const got = await mem.search({ kbId: tie, orgId }, normaliseSearchBody({ query: 'tieword', limit }));
      expect(got.outcome).toBe('memory');
      expect(hitsOf(got.rows?.[0])).toEqual(
        hitsOf(await statement({ kbId: tie, orgId }, 'tieword', { limit }, RANKING)),
      );
    }
    expect(mem.widened).toBeGreaterThan(0);
  }, 60_000);

  it('answers over HTTP from the copy once loaded, the statement’s response; SEARCH_MEMORY_MB=0 turns it off', async () => {
    const body = { query: `${VOCAB[2]} ${VOCAB[40]} ${VOCAB[90]}`, limit: 5 };
    const mem = memorySearchOf(gw.deps);
    expect(mem.enabled).toBe(true);
    const before = mem.stats.memory;
    const first = await gw.req('POST', `/v1/knowledge-bases/${kbId}/search`, { key, body }); // starts the load
    await mem.refresh(kbId, orgId);
    const a = await gw.req('POST', `/v1/knowledge-bases/${kbId}/search`, { key, body });
    expect(mem.stats.memory).toBe(before + 1);
    expect(a.status).toBe(200);
    expect(a.body).toEqual(first.body); // the first one came from the statement
    const want = await statement({ kbId, orgId }, body.query, { limit: 5 }, RANKING);
    expect(a.body.hits).toEqual(JSON.parse(want.hits));
    expect(a.body.index_version).toBe(String(want.version));
    expect(a.body.hits.length).toBe(5);
    // Not the caller's knowledge base: 404, as from the statement.
    const c = await gw.req('POST', `/v1/knowledge-bases/${kbId}/search`, { key: other.key, body });
    expect(c.status).toBe(404);
    const off = await startGateway({ SEARCH_MEMORY_MB: '0' });
    try {
      expect(memorySearchOf(off.deps).enabled).toBe(false);
    } finally {
      await off.close();
    }
  }, 120_000);

  it('takes visibility, folders and file names from the files as they are now, with the index version unchanged', async () => {
    // The copy ranks in the process and keeps each segment's part of its hit: what a file's row says
    // now (name, folder, trashed, current version) must show at once, as from the statement.
    const kb = (await gw.createKnowledgeBase(key, 'Memory search, files change')).id;
    const fs = await seedRankingFiles(gw.deps, { orgId, kbId: kb, text });
    const sc = { kbId: kb, orgId };
    const mem = new MemorySearch(gw.db, { maxBytes: 64 << 20, minSegments: 0 });
    await mem.refresh(kb, orgId);
    const version = mem.copyOf(kb)?.version;
    const query = `${VOCAB[0]} ${VOCAB[1]} ${VOCAB[200]}`;
    type Hit = { fileId: string; docName: string; score: number };
    const same = async (body: Body): Promise<{ hits: Hit[]; folderOk: boolean }> => {
      const got = await mem.search(sc, normaliseSearchBody({ query, ...body }));
      expect(got.outcome).toBe('memory');
      const want = await statement(sc, query, body, RANKING);
      const row = got.rows![0];
      expect({ body, hits: JSON.parse(row.hits), folder_ok: row.folder_ok, pending: row.pending }).toEqual({
        body,
        hits: JSON.parse(want.hits),
        folder_ok: want.folder_ok,
        pending: want.pending,
      });
      expect(String(row.version)).toBe(version);
      return { hits: JSON.parse(row.hits) as Hit[], folderOk: row.folder_ok };
    };
    const files = (hits: Hit[]) => new Set(hits.map((h) => h.fileId));
    const first = (await same({ limit: 40 })).hits; // the hits' fragments are now cached
    expect(files(first).size).toBeGreaterThan(2);
    // Renamed (no API does it, any writer may): the new name, from the cached fragments too.
    const renamed = first[0].fileId;
    await gw.db.$executeRaw`UPDATE files SET filename = 'renamed "after" indexing.pdf' WHERE id = ${renamed}::uuid`;
    const afterRename = (await same({ limit: 40 })).hits.filter((h) => h.fileId === renamed);
    expect(afterRename.length).toBeGreaterThan(0);
    expect(afterRename.every((h) => h.docName === 'renamed "after" indexing.pdf')).toBe(true);
    // Moved into a folder: the folder filter follows the file; an unknown folder is not found.
    const folder = await gw.req('POST', `/v1/knowledge-bases/${kb}/folders`, { key, body: { name: 'moved' } });
    expect(folder.status).toBe(201);
    const folderId = folder.body.folder.id as string;
    const moved = [...files(first)][1];
    expect((await gw.req('PATCH', `/v1/files/${moved}/move`, { key, body: { folder_id: folderId } })).status).toBe(200);
    const inFolder = (await same({ limit: 10, folder_id: folderId })).hits;
    expect(inFolder.length).toBeGreaterThan(0);
    expect([...files(inFolder)]).toEqual([moved]);
    await same({ limit: 10, group_by: 'file', folder_id: folderId });
    expect((await same({ limit: 10, folder_id: fs[0].versionId })).folderOk).toBe(false);
    // Trashed: gone; restored: back.
    const trashed = [...files(first)][2];
    expect((await gw.req('DELETE', `/v1/files/${trashed}`, { key })).status).toBe(200);
    expect(files((await same({ limit: 40 })).hits).has(trashed)).toBe(false);
    expect((await gw.req('POST', `/v1/files/${trashed}/restore`, { key })).status).toBe(200);
    expect(files((await same({ limit: 40 })).hits).has(trashed)).toBe(true);
    // A new current version not indexed yet: the old version's segments are no longer shown.
    await addVersion(gw.deps, { kbId: kb, fileId: renamed });
    expect(files((await same({ limit: 40 })).hits).has(renamed)).toBe(false);
    await same({ limit: 5, group_by: 'file' });
    await same({ limit: 40, table_only: true });
    expect(mem.copyOf(kb)?.version).toBe(version);
  }, 120_000);

  it('shares the state statement among searches of one knowledge base that arrive together, each answered as alone', async () => {
    const kb = (await gw.createKnowledgeBase(key, 'Memory search, shared state')).id;
    await seedRankingFiles(gw.deps, { orgId, kbId: kb, text });
    await memorySearchOf(gw.deps).refresh(kb, orgId);
    const queries = Array.from({ length: 32 }, (_, i) => `${VOCAB[i % 9]} ${VOCAB[20 + ((i * 7) % 200)]}`);
    const search = (query: string) =>
      gw.req('POST', `/v1/knowledge-bases/${kb}/search`, { key, body: { query, limit: 5 } });
    // Alone, one at a time: the answers to compare with.
    const alone = [];
    for (const q of queries) alone.push((await search(q)).body);
    expect(alone.every((b) => b.hits.length > 0)).toBe(true);
    // Together: the first statements are answered by PostgreSQL but their answers held back until
    // all 32 searches have asked for theirs; those asking meanwhile share the next statement.
    const gate = holdStateStatements(Infinity);
    try {
      const base = stateSearches();
      const all = queries.map((q) => search(q));
      await gate.reached('all 32 searches to ask for state', () => gate.sent >= 32 || stateSearches() - base >= 32);
      gate.release();
      const together = (await Promise.all(all)).map((r) => r.body);
      expect(together).toEqual(alone);
      // At most two in flight (stateInFlight's default), then one for everything that arrived meanwhile.
      expect(gate.sent).toBeLessThanOrEqual(3);
    } finally {
      gate.restore();
    }
    // SEARCH_STATE_IN_FLIGHT=0: one statement per search, as before.
    const own = new MemorySearch(gw.db, { maxBytes: 64 << 20, minSegments: 0, stateInFlight: 0 });
    await own.refresh(kb, orgId);
    const counted = holdStateStatements(0);
    try {
      await Promise.all(
        queries.map((query) => own.search({ kbId: kb, orgId }, normaliseSearchBody({ query, limit: 5 }))),
      );
      expect(counted.sent).toBe(32);
      expect(own.stateStatements).toEqual({ sent: 32, searches: 32 });
    } finally {
      counted.restore();
    }
  }, 120_000);

  it('never answers a search with a state read before it started: a trash while statements are in flight shows', async () => {
    const kb = (await gw.createKnowledgeBase(key, 'Memory search, shared state, trash')).id;
    await seedRankingFiles(gw.deps, { orgId, kbId: kb, text });
    await memorySearchOf(gw.deps).refresh(kb, orgId);
    const body = { query: `${VOCAB[0]} ${VOCAB[1]} ${VOCAB[200]}`, limit: 40 };
    const search = () => gw.req('POST', `/v1/knowledge-bases/${kb}/search`, { key, body });
    const fileIds = (r: { body: { hits: Array<{ fileId: string }> } }) => new Set(r.body.hits.map((h) => h.fileId));
    const target = [...fileIds(await search())][0];
    for (let round = 0; round < 3; round++) {
      // Two statements read (before the trash) and held: as many as may be in flight.
      const gate = holdStateStatements(2);
      try {
        const base = stateSearches();
        const before = [search(), search()];
        await gate.reached('two state statements answered and held', () => gate.answered >= 2);
        expect((await gw.req('DELETE', `/v1/files/${target}`, { key })).status).toBe(200);
        // Started after the trash completed: it must not take the held answers.
        const after = search();
        await gate.reached(
          'the search after the trash to ask for state',
          () => stateSearches() - base >= 3 || gate.sent >= 3,
        );
        gate.release();
        for (const r of await Promise.all(before)) expect(fileIds(r).has(target)).toBe(true);
        expect(fileIds(await after).has(target)).toBe(false);
      } finally {
        gate.restore();
      }
      expect((await gw.req('POST', `/v1/files/${target}/restore`, { key })).status).toBe(200);
      expect(fileIds(await search()).has(target)).toBe(true);
    }
  }, 120_000);

  it('never answers from a copy behind the index version; after trash, delete and re-index it is reloaded and equal again', async () => {
    const env = gw.deps;
    const mem = new MemorySearch(gw.db, { maxBytes: 64 << 20, minSegments: 0 });
    await mem.refresh(kbId, orgId);
    const v0 = mem.copyOf(kbId)?.version;
    // Trashing a file does not change the index version: the statement hides the file's segments.
    expect((await gw.req('DELETE', `/v1/files/${files[1].fileId}`, { key })).status).toBe(200);
    const req = normaliseSearchBody({ query: `${VOCAB[0]} ${VOCAB[1]} ${VOCAB[200]}`, limit: 50 });
    const trashed = await mem.search({ kbId, orgId }, req);
    if (trashed.outcome === 'memory') {
      expect(hitsOf(trashed.rows?.[0])).toEqual(
        hitsOf(await statement({ kbId, orgId }, req.query, { limit: 50 }, RANKING)),
      );
      expect(trashed.rows?.[0].hits).not.toContain(files[1].fileId);
    }
    // A permanent delete and a new version do change it.
    expect((await gw.req('DELETE', `/v1/files/${files[4].fileId}`, { key })).status).toBe(200);
    const del = await gw.req('DELETE', `/v1/files/${files[4].fileId}/permanent?confirm_permanent=true`, { key });
    expect(del.status).toBeLessThan(300);
    const f = files[2];
    const versionId = await addVersion(env, { kbId, fileId: f.fileId });
    const segments = Array.from({ length: 40 }, (_, i) => seg(`v2-${i}`, text(15)));
    const manifestId = await addManifest(env, { orgId, kbId, fileId: f.fileId, versionId }, segments);
    expect((await indexNow(env, { orgId, fileId: f.fileId, versionId, manifestId })).status).toBe('indexed');
    files[2] = { fileId: f.fileId, versionId };
    const behind = await mem.search({ kbId, orgId }, req);
    expect(behind.outcome).toBe('stale');
    expect(behind.rows).toBeUndefined();
    // The next search does not try the stale copy; it waits for the reload.
    expect(['loading', 'stale']).toContain((await mem.search({ kbId, orgId }, req)).outcome);
    await mem.refresh(kbId, orgId);
    expect(mem.copyOf(kbId)?.version).not.toBe(v0);
    const outcomes = await compareAll({ kbId, orgId });
    expect(outcomes.memory).toBeGreaterThan(QUERIES.length * 5);
  }, 180_000);
});
