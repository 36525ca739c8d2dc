// BM25 search against the search of a git ref (default `main`), same run, same database (issue 22).
//
// One knowledge base of BENCH_BM25_FILES × BENCH_BM25_SEGMENTS_PER_FILE segments, each an abstract of the
// corpus's SciFact collection (g_retrieval/scifact, reused in turn) with a few of its words and a number
// added, so no two are equal; written through the index worker's code path, which now
// also writes the BM25 postings and statistics. The database keeps everything the older search
// reads (tsv and its GIN indexes), so the ref's search statement (its search-sql.ts, query-terms.ts
// and synonyms.ts, taken with `git show` into bench/out/) runs on the very same rows.
//
// Cases, each at 1 caller and at 32 (a closed loop of 32 callers over node-postgres, as many
// connections): the statement of the ref and of this tree for the same queries (1-3 corpus words,
// or one of the evaluation's questions), and a blank query with limit 1; then this tree's search
// over HTTP through the gateway, so the gateway's own cost shows beside the statement's.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { BUNDLE, type Segment } from '../libs/contracts/src';
import { createLogger } from '../libs/logger/src';
import { artifactPrefix } from '../libs/storage/src';
import { searchStatement } from '../services/gateway/src/domain/search/search';
import { normaliseSearchBody, type SearchRequest } from '../services/gateway/src/domain/search/search-request';
import type { SearchScope } from '../services/gateway/src/domain/search/search-sql';
import { indexFileVersion } from '../services/index-worker/src/jobs/index-file-version.handler';
import { percentile, round, startBenchGateway, type Row } from './lib';
import { runProbe, type ProbeItem, type ProbeResult } from './search-load';
import { loadBeir } from './eval/beir';
import { createFile, rng } from './search.bench';

export const name = 'search-bm25';

const FILES = Number(process.env.BENCH_BM25_FILES ?? 20);
const SEGMENTS_PER_FILE = Number(process.env.BENCH_BM25_SEGMENTS_PER_FILE ?? 1000);
const REF = process.env.BENCH_BM25_REF ?? 'main';
const QUERIES = 200;
const ROOT = path.resolve(__dirname, '..');
const SEARCH_DIR = 'services/gateway/src/domain/search';
const CORPUS = process.env.DOCFLEET_CORPUS ?? path.join(ROOT, '../shared/corpus');

type Statement = (sc: SearchScope, req: SearchRequest) => { text: string; values: unknown[] };

/** The ref's statement builder: its search files copied out of git, importing this tree's libs. */
async function refStatement(): Promise<Statement> {
  const dir = path.join(ROOT, 'bench/out/search-ref', REF.replace(/[^\w.-]/g, '_'));
  mkdirSync(dir, { recursive: true });
  for (const f of ['search-sql.ts', 'query-terms.ts', 'synonyms.ts']) {
    const src = execFileSync('git', ['show', `${REF}:${SEARCH_DIR}/${f}`], { cwd: ROOT, encoding: 'utf8' });
    writeFileSync(
      path.join(dir, f),
      src.replace(/from '@docfleet\/db'/g, `from ${JSON.stringify(path.join(ROOT, 'libs/db/src'))}`),
    );
  }
  const m = (await import(path.join(dir, 'search-sql.ts'))) as Record<string, (...a: unknown[]) => unknown>;
  const qt = (await import(path.join(dir, 'query-terms.ts'))) as { queryTerms(q: string): unknown[] };
  return (sc, req) => {
    const f = {
      fileIds: req.fileIds,
      folderId: req.folderId,
      years: req.years,
      sourceType: req.sourceType,
      tableOnly: req.tableOnly,
    };
    const st = (
      !req.query.trim()
        ? m.filterOnlySql(sc, f, req.limit)
        : qt.queryTerms(req.query).length
          ? m.textSearchSql(sc, qt.queryTerms(req.query), f, req.limit)
          : m.noHitsSql(sc, f)
    ) as { text: string; values: unknown[] };
    return { text: st.text, values: st.values };
  };
}

const summary = (r: ProbeResult, kind: 'sql' | 'http') => {
  const l = r.latencies[kind];
  return {
    n: l.length,
    p50: round(percentile(l, 50), 2),
    p95: round(percentile(l, 95), 2),
    p99: round(percentile(l, 99), 2),
    rps: round(l.length / r.seconds, 1),
  };
};

export async function run(): Promise<Row[]> {
  const gw = await startBenchGateway({ RATE_LIMIT_POINTS: '100000000' });
  const db = new pg.Pool({ connectionString: gw.deps.env.DATABASE_URL, max: 4 });
  try {
    const { key, orgId } = await gw.createOrg();
    const kbId = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'BM25 bench' } })).body
      .knowledge_base.id as string;
    const sci = await loadBeir(path.join(CORPUS, 'g_retrieval/scifact'));
    const words = [...new Set(sci.docs.flatMap((d) => d.text.toLowerCase().match(/\b[a-z]{4,14}\b/g) ?? []))];
    const rand = rng(42);
    const segmentsOf = (n: number): Segment[] =>
      Array.from({ length: n }, (_, i) => {
        const d = sci.docs[Math.floor(rand() * sci.docs.length)];
        const extra = Array.from({ length: 4 }, () => words[Math.floor(rand() * words.length)]).join(' ');
        return {
          id: `p${1 + Math.floor(i / 20)}-${i.toString(16).padStart(8, '0')}`,
          title: d.title,
          markdown: `${d.text || d.title} ${extra} ${Math.floor(rand() * 100000)}`,
          sourceType: 'pdf',
          coordinates: { pageNumber: 1 + Math.floor(i / 20), sourceType: 'pdf' },
        } as Segment;
      });
    const deps = { db: gw.db, storage: gw.deps.storage, logger: createLogger('bench', 'silent') };
    const t0 = Date.now();
    let nextFile = 0;
    await Promise.all(
      Array.from({ length: 2 }, async () => {
        while (nextFile < FILES) {
          const j = nextFile++;
          const f = await createFile(db, orgId, kbId, `scifact-part-${j + 1}.pdf`);
          const manifestId = randomUUID();
          const prefix = artifactPrefix(kbId, f.fileId, manifestId);
          await gw.deps.storage.put(`${prefix}/${BUNDLE.segments_json}`, JSON.stringify(segmentsOf(SEGMENTS_PER_FILE)));
          await db.query(
            `INSERT INTO artifact_manifests (id, org_id, file_id, file_version_id, artifact_type, storage_prefix) VALUES ($1, $2, $3, $4, 'parse', $5)`,
            [manifestId, orgId, f.fileId, f.versionId, prefix],
          );
          const out = await indexFileVersion(deps, { orgId, fileId: f.fileId, fileVersionId: f.versionId, manifestId });
          if (out.status !== 'indexed') throw new Error(`bench file not indexed: ${JSON.stringify(out)}`);
        }
      }),
    );
    const indexSeconds = (Date.now() - t0) / 1000;
    await db.query('VACUUM ANALYZE');

    // Every fourth query is a SciFact claim (a sentence), the others 1-3 of its words.
    const questions = sci.queries.map((q) => q.text);
    const qrand = rng(99);
    const queries = Array.from({ length: QUERIES }, (_, i) =>
      i % 4 === 3
        ? questions[Math.floor(qrand() * questions.length)]
        : Array.from({ length: 1 + Math.floor(qrand() * 3) }, () => words[Math.floor(qrand() * words.length)]).join(
            ' ',
          ),
    );
    const sc = { kbId, orgId };
    const ref = await refStatement();
    const ours: Statement = (s, r) => {
      const st = searchStatement(s, r);
      return { text: st.text, values: st.values as unknown[] };
    };
    const sqlItems = (st: Statement, body: Record<string, unknown>[]): ProbeItem[] =>
      body.map((b) => ({ kind: 'sql', ...st(sc, normaliseSearchBody(b)) }));
    const bodies = queries.map((query) => ({ query, limit: 10 }));
    const blank = Array.from({ length: QUERIES }, () => ({ query: '', limit: 1 }));
    const probe = (items: ProbeItem[]) => ({ url: gw.url, key, databaseUrl: gw.deps.env.DATABASE_URL, items });
    const http = (b: Record<string, unknown>[]): ProbeItem[] =>
      b.map((body) => ({ kind: 'http', path: `/v1/knowledge-bases/${kbId}/search`, body }));
    // Enough items that 32 callers run for a while: the list repeated.
    const times = <T>(xs: T[], n: number) => Array.from({ length: n }, () => xs).flat();

    const cases: Array<{ case: string; items: ProbeItem[]; kind: 'sql' | 'http'; c: number; baseline?: boolean }> = [];
    for (const c of [1, 32]) {
      const n = c === 1 ? 1 : 4;
      cases.push(
        {
          case: `${REF} statement, queries, ${c} caller(s)`,
          items: times(sqlItems(ref, bodies), n),
          kind: 'sql',
          c,
          baseline: c === 1,
        },
        { case: `BM25 statement, queries, ${c} caller(s)`, items: times(sqlItems(ours, bodies), n), kind: 'sql', c },
        {
          case: `${REF} statement, blank limit 1, ${c} caller(s)`,
          items: times(sqlItems(ref, blank), n),
          kind: 'sql',
          c,
        },
        {
          case: `BM25 statement, blank limit 1, ${c} caller(s)`,
          items: times(sqlItems(ours, blank), n),
          kind: 'sql',
          c,
        },
        { case: `BM25 over HTTP, queries, ${c} caller(s)`, items: times(http(bodies), n), kind: 'http', c },
        { case: `BM25 over HTTP, blank limit 1, ${c} caller(s)`, items: times(http(blank), n), kind: 'http', c },
      );
    }
    const rows: Row[] = [];
    for (const k of cases) {
      const r = await runProbe(probe(k.items), k.c);
      if (r.errors) throw new Error(`${k.case}: ${r.errors} errors, first: ${r.firstError}`);
      const s = summary(r, k.kind);
      process.stderr.write(`${k.case}: ${JSON.stringify(s)}\n`);
      rows.push({
        case: k.case,
        baseline: k.baseline,
        throughput: s.rps,
        unit: 'searches/s',
        p50_ms: s.p50,
        p99_ms: s.p99,
        samples: s.n,
        extra: { p95_ms: s.p95, segments: FILES * SEGMENTS_PER_FILE, index_seconds: round(indexSeconds, 1) },
      });
    }
    return rows;
  } finally {
    await db.end();
    await gw.close();
  }
}
