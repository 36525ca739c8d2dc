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
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { request } from 'node:http';
import { BUNDLE, type Segment } from '../libs/contracts/src';
import { createOrgApiKey } from '../libs/auth/src';
import { createLogger } from '../libs/logger/src';
import { artifactPrefix } from '../libs/storage/src';
import { statementName, type Tx } from '../libs/db/src';
import {
  batches,
  indexFileVersion,
  insertRows,
  normaliseSearchBody,
  readSegmentRows,
  recountIndexState,
  searchStatement,
  type SearchRequest,
  type SearchScope,
} from '../libs/search-index/src';
import { percentile, round, startBenchGateway, type Row } from './lib';
import { nodeChildren, spawnGateway } from '../libs/testing/src';
import { runProbe, type ProbeItem, type ProbeResult } from './search-load';
import { loadBeir } from './eval/beir';
import { createFile, rng } from './search.bench';

export const name = 'search-bm25';

/** The corpus words the bench adds to segments and draws queries from (shared with search-memory-gc.ts). */
export function benchWords(sci: { docs: Array<{ text: string }> }): string[] {
  return [...new Set(sci.docs.flatMap((d) => d.text.toLowerCase().match(/\b[a-z]{4,14}\b/g) ?? []))];
}

/** `n` queries: every fourth a SciFact claim (a sentence), the others 1-3 corpus words (seeded). */
export function benchQueries(sci: { queries: Array<{ text: string }> }, words: string[], n: number): string[] {
  const questions = sci.queries.map((q) => q.text);
  const qrand = rng(99);
  return Array.from({ length: n }, (_, i) =>
    i % 4 === 3
      ? questions[Math.floor(qrand() * questions.length)]
      : Array.from({ length: 1 + Math.floor(qrand() * 3) }, () => words[Math.floor(qrand() * words.length)]).join(' '),
  );
}

const FILES = Number(process.env.BENCH_BM25_FILES ?? 20);
const SEGMENTS_PER_FILE = Number(process.env.BENCH_BM25_SEGMENTS_PER_FILE ?? 1000);
const REF = process.env.BENCH_BM25_REF ?? 'main';
// 'worker': every file through indexFileVersion (the worker's whole job, with its per-file statistics
// deltas); 'bulk': the worker's own row statement (insertRows: segments, tsvector, postings from
// search_lexemes) per file with the secondary indexes dropped, the indexes rebuilt after, and the
// statistics recounted once by the worker's recountIndexState. Default: bulk above 20,000 segments.
const LOAD = process.env.BENCH_BM25_LOAD ?? (FILES * SEGMENTS_PER_FILE > 20_000 ? 'bulk' : 'worker');
// A segment is a passage of at most this many words of an abstract (0: the whole abstract).
const PASSAGE_WORDS = Number(process.env.BENCH_BM25_PASSAGE_WORDS ?? 0);
// EXPLAIN (ANALYZE, BUFFERS) of both statements, alternately, on this many of the queries.
const EXPLAIN_QUERIES = Number(process.env.BENCH_BM25_EXPLAIN ?? 40);
// A database name: the knowledge base is built there once and kept; a later run with the same name
// and sizes reuses it (migrated to this tree's migrations) instead of loading it again. Unset: a fresh
// database, dropped at the end.
const KEEP_DB = process.env.BENCH_BM25_DB || undefined;
// Only build (or find) the knowledge base, measure nothing.
const LOAD_ONLY = process.env.BENCH_BM25_LOAD_ONLY === '1';
// Only the searches over HTTP (the statement-level cases, EXPLAIN and the prepared comparison skipped).
const HTTP_ONLY = process.env.BENCH_BM25_HTTP_ONLY === '1';
// SEARCH_MEMORY_MB of a second gateway on the same database (issue 22.5: search scored over an
// in-memory copy of the postings); the first one runs with 0, the SQL path, as the same-run baseline.
const MEMORY_MB = process.env.BENCH_BM25_MEMORY_MB ?? '512';
// GATEWAY_PROCESSES of a third gateway, in-memory path on, beside the one-process one (issue 22.5:
// several gateway processes sharing a port, each with its own copy); 1 or less: no third gateway.
const GATEWAY_PROCESSES = Number(process.env.BENCH_BM25_GATEWAY_PROCESSES ?? 2);
// Node options of the one-process in-memory gateway (BENCH_BM25_GATEWAY_NODE_ARGS, space-separated).
const NODE_ARGS = (process.env.BENCH_BM25_GATEWAY_NODE_ARGS ?? '').split(' ').filter(Boolean);
// How many times the 200 queries run at 32 callers over HTTP (a longer window: steadier CPU figures).
const REPEAT_32 = Number(process.env.BENCH_BM25_REPEAT ?? 4);
const QUERIES = 200;
const ROOT = path.resolve(__dirname, '..');
// Where the search statement's files live in a ref: libs/search-index now, the gateway's domain before.
const SEARCH_DIRS = ['libs/search-index/src', 'services/gateway/src/domain/search'];
const CORPUS = process.env.DOCFLEET_CORPUS ?? path.join(ROOT, '../shared/corpus');

type Statement = (sc: SearchScope, req: SearchRequest) => { text: string; values: unknown[] };

/** The ref's statement builder: its search files copied out of git, importing this tree's libs. */
async function refStatement(): Promise<Statement> {
  const dir = path.join(ROOT, 'bench/out/search-ref', REF.replace(/[^\w.-]/g, '_'));
  mkdirSync(dir, { recursive: true });
  const show = (p: string) =>
    execFileSync('git', ['show', `${REF}:${p}`], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const searchDir = SEARCH_DIRS.find((d) => {
    try {
      show(`${d}/search-sql.ts`);
      return true;
    } catch {
      return false;
    }
  });
  if (!searchDir) throw new Error(`${REF} has no search-sql.ts in ${SEARCH_DIRS.join(' or ')}`);
  for (const f of ['search-sql.ts', 'query-terms.ts', 'synonyms.ts']) {
    const src = show(`${searchDir}/${f}`);
    writeFileSync(
      path.join(dir, f),
      src.replace(/from '@docfleet\/db'/g, `from ${JSON.stringify(path.join(ROOT, 'libs/db/src'))}`),
    );
  }
  const m = (await import(path.join(dir, 'search-sql.ts'))) as Record<string, (...a: unknown[]) => unknown>;
  // Refs from before BM25 export queryTerms (a word list); later ones queryText (the text for search_lexemes).
  const qt = (await import(path.join(dir, 'query-terms.ts'))) as {
    queryTerms?(q: string): unknown[];
    queryText?(q: string): unknown;
  };
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
        : qt.queryText
          ? m.textSearchSql(sc, qt.queryText(req.query), f, req.limit)
          : qt.queryTerms?.(req.query).length
            ? m.textSearchSql(sc, qt.queryTerms(req.query), f, req.limit)
            : m.noHitsSql(sc, f)
    ) as { text: string; values: unknown[] };
    return { text: st.text, values: st.values };
  };
}

interface Explained {
  ms: number;
  /** Planning time, which a prepared statement's generic plan would save. */
  planMs: number;
  /** Shared buffers hit + read by the whole statement (the root node's counts include its children and CTEs). */
  buffers: number;
  /** Rows returned by scans of each table (an index's rows counted under its table), × loops. */
  rows: Record<string, number>;
}

interface PlanNode {
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  Plans?: PlanNode[];
}

/** EXPLAIN (ANALYZE, BUFFERS) of one statement: execution time, buffers, rows per table scanned. */
async function explain(db: pg.Pool, st: { text: string; values: unknown[] }): Promise<Explained> {
  const r = await db.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${st.text}`, st.values);
  const top = (
    r.rows[0]['QUERY PLAN'] as Array<{ Plan: PlanNode; 'Execution Time': number; 'Planning Time': number }>
  )[0];
  const rows: Record<string, number> = {};
  const walk = (n: PlanNode) => {
    const rel =
      n['Relation Name'] ??
      (n['Index Name']?.startsWith('search_postings')
        ? 'search_postings'
        : n['Index Name']?.startsWith('evidence_index_segments')
          ? 'evidence_index_segments'
          : undefined);
    if (rel && (n['Relation Name'] || !/^Bitmap Index/.test(String((n as Record<string, unknown>)['Node Type']))))
      rows[rel] = (rows[rel] ?? 0) + (n['Actual Rows'] ?? 0) * (n['Actual Loops'] ?? 1);
    for (const c of n.Plans ?? []) walk(c);
  };
  walk(top.Plan);
  return {
    ms: top['Execution Time'],
    planMs: top['Planning Time'],
    buffers: (top.Plan['Shared Hit Blocks'] ?? 0) + (top.Plan['Shared Read Blocks'] ?? 0),
    rows,
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
  const gw = await startBenchGateway(
    { RATE_LIMIT_POINTS: '100000000', SEARCH_MEMORY_MB: '0' },
    { keepDatabase: KEEP_DB },
  );
  const db = new pg.Pool({ connectionString: gw.deps.env.DATABASE_URL, max: 4 });
  try {
    const kbName = `BM25 bench ${FILES}x${SEGMENTS_PER_FILE} w${PASSAGE_WORDS}`;
    const kept = KEEP_DB
      ? (
          await db.query<{ id: string; org_id: string }>(
            `SELECT kb.id, kb.org_id FROM knowledge_bases kb JOIN evidence_index_state st ON st.knowledge_base_id = kb.id
             WHERE kb.name = $1 AND st.segment_count = $2 ORDER BY kb.created_at DESC LIMIT 1`,
            [kbName, FILES * SEGMENTS_PER_FILE],
          )
        ).rows[0]
      : undefined;
    const { key, orgId } = kept
      ? { key: (await createOrgApiKey(gw.db, kept.org_id)).secret, orgId: kept.org_id }
      : await gw.createOrg();
    const kbId = kept ? kept.id : ((await gw.createKnowledgeBase(key, kbName)).id as string);
    const sci = await loadBeir(path.join(CORPUS, 'g_retrieval/scifact'));
    const words = benchWords(sci);
    const rand = rng(42);
    const segmentsOf = (n: number): Segment[] =>
      Array.from({ length: n }, (_, i) => {
        const d = sci.docs[Math.floor(rand() * sci.docs.length)];
        let body = d.text || d.title;
        if (PASSAGE_WORDS > 0) {
          const w = body.split(/\s+/);
          const start = Math.floor(rand() * Math.max(1, w.length - PASSAGE_WORDS));
          body = w.slice(start, start + PASSAGE_WORDS).join(' ');
        }
        const extra = Array.from({ length: 4 }, () => words[Math.floor(rand() * words.length)]).join(' ');
        return {
          id: `p${1 + Math.floor(i / 20)}-${i.toString(16).padStart(8, '0')}`,
          title: d.title,
          markdown: `${body} ${extra} ${Math.floor(rand() * 100000)}`,
          sourceType: 'pdf',
          coordinates: { pageNumber: 1 + Math.floor(i / 20), sourceType: 'pdf' },
        } as Segment;
      });
    const deps = { db: gw.db, storage: gw.deps.storage, logger: createLogger('bench', 'silent') };
    const t0 = Date.now();
    // Bulk load: the secondary indexes of the two big tables (not their keys) are built once afterwards.
    const dropped: Array<{ indexname: string; indexdef: string }> = [];
    if (LOAD === 'bulk' && !kept) {
      const r = await db.query<{ indexname: string; indexdef: string }>(
        `SELECT i.indexname, i.indexdef FROM pg_indexes i JOIN pg_class c ON c.relname = i.indexname JOIN pg_index x ON x.indexrelid = c.oid
         WHERE i.schemaname = 'public' AND i.tablename IN ('evidence_index_segments', 'search_postings') AND NOT x.indisprimary AND NOT x.indisunique`,
      );
      for (const ix of r.rows) {
        await db.query(`DROP INDEX "${ix.indexname}"`);
        dropped.push(ix);
      }
    }
    let nextFile = kept ? FILES : 0;
    if (kept) process.stderr.write(`reusing knowledge base ${kbId} of database ${KEEP_DB}\n`);
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
          if (LOAD === 'bulk') {
            const rows = await readSegmentRows(gw.deps.storage, prefix, 'application/pdf');
            const owner = {
              orgId,
              kbId,
              folderId: null,
              fileId: f.fileId,
              fileVersionId: f.versionId,
              manifestId,
              filename: `scifact-part-${j + 1}.pdf`,
            };
            for (const b of batches(rows, 500)) await insertRows(gw.db as unknown as Tx, owner, b);
            continue;
          }
          const out = await indexFileVersion(deps, { orgId, fileId: f.fileId, fileVersionId: f.versionId, manifestId });
          if (out.status !== 'indexed') throw new Error(`bench file not indexed: ${JSON.stringify(out)}`);
        }
      }),
    );
    if (LOAD === 'bulk' && !kept) {
      for (const ix of dropped) await db.query(ix.indexdef);
      await gw.db.$transaction((tx) => recountIndexState(tx, orgId, kbId), { timeout: 3_600_000 });
    }
    const indexSeconds = (Date.now() - t0) / 1000;
    process.stderr.write(`loaded ${FILES * SEGMENTS_PER_FILE} segments (${LOAD}) in ${round(indexSeconds, 1)} s\n`);
    if (!kept) await db.query('VACUUM ANALYZE');
    if (LOAD_ONLY) return [];

    // Every fourth query is a SciFact claim (a sentence), the others 1-3 of its words.
    const queries = benchQueries(sci, words, QUERIES);
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

    const cases: Array<{
      case: string;
      items: ProbeItem[];
      kind: 'sql' | 'http';
      c: number;
      baseline?: boolean;
      url?: string;
    }> = [];
    const rows: Row[] = [];
    const mgw = Number(MEMORY_MB) > 0 ? await memoryGateway(gw, kbId, key, bodies, rows) : undefined;
    const cgw =
      Number(MEMORY_MB) > 0 && GATEWAY_PROCESSES > 1
        ? await memoryGateway(gw, kbId, key, bodies, rows, GATEWAY_PROCESSES)
        : undefined;
    for (const c of HTTP_ONLY ? [] : [1, 32]) {
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
    for (const c of [1, 32]) {
      const n = c === 1 ? 1 : REPEAT_32;
      cases.push({
        case: `SQL path over HTTP (SEARCH_MEMORY_MB=0), queries, ${c} caller(s)`,
        items: times(http(bodies), n),
        kind: 'http',
        c,
      });
      if (mgw)
        cases.push({
          case: `in-memory path over HTTP (SEARCH_MEMORY_MB=${MEMORY_MB}), queries, ${c} caller(s)`,
          items: times(http(bodies), n),
          kind: 'http',
          c,
          url: mgw.url,
        });
      if (cgw)
        cases.push({
          case: `in-memory path over HTTP (SEARCH_MEMORY_MB=${MEMORY_MB}, GATEWAY_PROCESSES=${GATEWAY_PROCESSES}), queries, ${c} caller(s)`,
          items: times(http(bodies), n),
          kind: 'http',
          c,
          url: cgw.url,
        });
    }
    // Load-independent evidence first: both statements' plans, alternately, query by query.
    if (EXPLAIN_QUERIES > 0 && !HTTP_ONLY) {
      const ex: Record<'ref' | 'ours', Explained[]> = { ref: [], ours: [] };
      const ratios: number[] = [];
      for (const b of bodies.slice(0, EXPLAIN_QUERIES)) {
        const req = normaliseSearchBody(b);
        const a = await explain(db, ref(sc, req));
        const o = await explain(db, ours(sc, req));
        ex.ref.push(a);
        ex.ours.push(o);
        ratios.push(o.ms / Math.max(a.ms, 0.001));
      }
      for (const [who, list] of Object.entries(ex)) {
        const med = (f: (e: Explained) => number) => round(percentile(list.map(f), 50), 1);
        const tot = (f: (e: Explained) => number) => list.reduce((n, e) => n + f(e), 0);
        const row = {
          case: `EXPLAIN ANALYZE, ${who === 'ref' ? `${REF} statement` : 'BM25 statement'}, ${list.length} queries`,
          throughput: round(list.length / (tot((e) => e.ms) / 1000), 1),
          unit: 'searches/s (server execution time only)',
          p50_ms: med((e) => e.ms),
          p99_ms: round(
            percentile(
              list.map((e) => e.ms),
              99,
            ),
            1,
          ),
          samples: list.length,
          extra: {
            planning_ms_p50: round(
              percentile(
                list.map((e) => e.planMs),
                50,
              ),
              2,
            ),
            buffers_p50: med((e) => e.buffers),
            buffers_total: tot((e) => e.buffers),
            postings_rows_p50: med((e) => e.rows.search_postings ?? 0),
            segments_rows_p50: med((e) => e.rows.evidence_index_segments ?? 0),
            ours_over_ref_exec_p50: who === 'ours' ? round(percentile(ratios, 50), 2) : undefined,
          },
        };
        process.stderr.write(`${row.case}: ${JSON.stringify(row)}\n`);
        rows.push(row);
      }
    }
    // Prepared (the gateway's way since issue 22.5) against unnamed, alternately on one connection,
    // same statement text and values: the ratio holds whatever the machine's load; the hits must be equal.
    if (!HTTP_ONLY) {
      const c = await db.connect();
      try {
        const plain: number[] = [];
        const named: number[] = [];
        const ratios: number[] = [];
        let differ = 0;
        for (let round = 0; round < 2; round++)
          for (const b of bodies) {
            const st = ours(sc, normaliseSearchBody(b));
            let t = performance.now();
            const a = await c.query<{ hits: string }>(st.text, st.values);
            const ta = performance.now() - t;
            t = performance.now();
            const p = await c.query<{ hits: string }>({
              name: statementName(st.text),
              text: st.text,
              values: st.values,
            });
            const tp = performance.now() - t;
            if (a.rows[0]?.hits !== p.rows[0]?.hits) differ++;
            plain.push(ta);
            named.push(tp);
            ratios.push(tp / ta);
          }
        if (differ) throw new Error(`prepared and unprepared statements returned different hits for ${differ} queries`);
        for (const [label, l] of [
          ['BM25 statement unprepared, alternating, 1 connection', plain],
          ['BM25 statement prepared, alternating, 1 connection', named],
        ] as const) {
          const row: Row = {
            case: label,
            throughput: round(l.length / (l.reduce((x, y) => x + y, 0) / 1000), 1),
            unit: 'searches/s',
            p50_ms: round(percentile(l, 50), 2),
            p99_ms: round(percentile(l, 99), 2),
            samples: l.length,
            extra: {
              p95_ms: round(percentile(l, 95), 2),
              prepared_over_unprepared_p50: round(percentile(ratios, 50), 2),
            },
          };
          process.stderr.write(`${row.case}: ${JSON.stringify(row)}\n`);
          rows.push(row);
        }
      } finally {
        c.release();
      }
    }
    // CPU the gateway's processes spent per search (user + system, the probe's warm-up included):
    // what bounds a process's throughput whatever else the machine runs (timings here depend on load).
    const gatewayPids = (url: string) => {
      const g = [gw, mgw, cgw].find((x) => x?.url === url);
      return g ? [g.child.pid, ...nodeChildren(g.child.pid)] : [];
    };
    for (const k of cases) {
      const pids = k.kind === 'http' ? gatewayPids(k.url ?? gw.url) : [];
      const cpu0 = cpuMs(pids);
      // Also PostgreSQL's backends on this database and the client (this process, whose worker
      // thread runs the probe): a search's whole CPU on this machine, which bounds throughput on its
      // 2 cores whatever the load (issue 22.5).
      const pg0 = await backendCpu(db);
      const client0 = process.cpuUsage();
      const r = await runProbe({ ...probe(k.items), url: k.url ?? gw.url }, k.c);
      const clientUsage = process.cpuUsage(client0);
      const per = (ms: number) => round(ms / k.items.length, 2);
      const cpuPerSearch = pids.length ? per(cpuMs(pids) - cpu0) : undefined;
      const cpu = {
        gateway_cpu_ms_per_search: cpuPerSearch,
        postgres_cpu_ms_per_search: per((await backendCpu(db, pg0.at)).ms),
        client_cpu_ms_per_search: per((clientUsage.user + clientUsage.system) / 1000),
      };
      if (r.errors) throw new Error(`${k.case}: ${r.errors} errors, first: ${r.firstError}`);
      const s = summary(r, k.kind);
      process.stderr.write(`${k.case}: ${JSON.stringify({ ...s, ...cpu })}\n`);
      rows.push({
        case: k.case,
        baseline: k.baseline,
        throughput: s.rps,
        unit: 'searches/s',
        p50_ms: s.p50,
        p99_ms: s.p99,
        samples: s.n,
        extra: {
          p95_ms: s.p95,
          segments: FILES * SEGMENTS_PER_FILE,
          index_seconds: round(indexSeconds, 1),
          ...cpu,
          load_average: os.loadavg().map((x) => round(x, 1)),
        },
      });
    }
    if (mgw) {
      rows.push({
        case: 'in-memory gateway after the cases',
        throughput: 0,
        unit: 'MiB resident',
        p50_ms: 0,
        p99_ms: 0,
        samples: 0,
        extra: { rss_mib: rssMiB(mgw.child.pid), load_average: os.loadavg().map((x) => round(x, 1)) },
      });
      await mgw.close();
    }
    return rows;
  } finally {
    await db.end();
    await gw.close();
  }
}

type BenchGateway = Awaited<ReturnType<typeof startBenchGateway>>;

/** Resident memory of a process in MiB (Linux). */
/** One search on a connection of its own (the cluster hands out connections): the path it took. */
function searchPathOnNewConnection(url: string, kbId: string, key: string, body: unknown): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/knowledge-bases/${kbId}/search`,
      { method: 'POST', agent: false, headers: { 'x-api-key': key, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) return reject(new Error(`search: HTTP ${res.statusCode}`));
          resolve(/path;desc="([^"]*)"/.exec(String(res.headers['server-timing'] ?? ''))?.[1] ?? '');
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** CPU milliseconds (user + system) the processes used so far (/proc/<pid>/stat, 100 ticks a second). */
function cpuMs(pids: Array<number | undefined>): number {
  let ticks = 0;
  for (const pid of pids) {
    try {
      const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
      ticks += Number(rest[11]) + Number(rest[12]); // utime, stime (fields 14 and 15)
    } catch {
      // gone
    }
  }
  return ticks * 10;
}

/**
 * CPU milliseconds of PostgreSQL's client backends on the bench's database (/proc, same machine)
 * since `before` (a backend started meanwhile counts from zero; one that ended meanwhile is lost,
 * which the pools' idle timeouts make rare within a case).
 */
async function backendCpu(db: pg.Pool, before?: Map<number, number>): Promise<{ ms: number; at: Map<number, number> }> {
  const r = await db.query<{ pid: number }>(
    `SELECT pid FROM pg_stat_activity
     WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  );
  const at = new Map(r.rows.map((x) => [x.pid, cpuMs([x.pid])]));
  let ms = 0;
  if (before) for (const [pid, v] of at) ms += v - (before.get(pid) ?? 0);
  return { ms, at };
}

function rssMiB(pid: number | undefined): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? round(Number(m[1]) / 1024, 1) : undefined;
  } catch {
    return undefined;
  }
}

/** One search over HTTP with its Server-Timing parts (the path taken, milliseconds per part). */
async function timedSearch(url: string, kbId: string, key: string, body: unknown) {
  const t0 = performance.now();
  const r = await fetch(`${url}/v1/knowledge-bases/${kbId}/search`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await r.text();
  const ms = performance.now() - t0;
  if (r.status !== 200) throw new Error(`search: HTTP ${r.status}`);
  const parts: Record<string, number> = {};
  let path = '';
  for (const p of (r.headers.get('server-timing') ?? '').split(',')) {
    const name = p.trim().split(';')[0];
    const desc = /desc="([^"]*)"/.exec(p);
    const dur = /dur=([\d.]+)/.exec(p);
    if (desc && name === 'path') path = desc[1];
    if (dur) parts[name] = Number(dur[1]);
  }
  return { ms, path, parts };
}

/**
 * A second gateway on the same database with the in-memory path on: waits until its copy of the
 * knowledge base is loaded (the first search starts the load), then records the load time, its
 * memory, and where one caller's search time goes on both gateways (Server-Timing), query by query
 * alternately.
 */
async function memoryGateway(
  gw: BenchGateway,
  kbId: string,
  key: string,
  bodies: Array<Record<string, unknown>>,
  rows: Row[],
  processes = 1,
): Promise<BenchGateway> {
  const mgw = await spawnGateway({
    replicaOf: { db: gw.db, dataDir: gw.dataDir, queuePrefix: gw.queuePrefix, env: gw.env },
    env: {
      DB_POOL_MAX: '4',
      RATE_LIMIT_POINTS: '100000000',
      SEARCH_MEMORY_MB: MEMORY_MB,
      GATEWAY_PROCESSES: String(processes),
    },
    // Profiling the one-process gateway: e.g. `--cpu-prof --cpu-prof-dir=bench/out/prof` (written at its exit).
    ...(processes === 1 && NODE_ARGS.length
      ? { wrap: ([node, ...rest]: string[]) => [node!, ...NODE_ARGS, ...rest] }
      : {}),
  });
  // Several processes: each loads its own copy on the first search it gets; connections are handed
  // out in turn, so `processes` searches in a row on new connections reach every one.
  const pids = () => (processes > 1 ? nodeChildren(mgw.child.pid) : [mgw.child.pid]);
  const rss = () =>
    round(
      pids().reduce<number>((n, pid) => n + (rssMiB(pid) ?? 0), 0),
      1,
    );
  const rssBefore = rss();
  const t0 = performance.now();
  let inMemory = 0;
  while (inMemory < processes) {
    const path = await searchPathOnNewConnection(mgw.url, kbId, key, bodies[0]);
    inMemory = path === 'memory' ? inMemory + 1 : 0;
    if (performance.now() - t0 > 30 * 60_000) throw new Error(`no in-memory copy after 30 min: ${path}`);
    if (!inMemory) await new Promise((r) => setTimeout(r, 1000));
  }
  const loadSeconds = (performance.now() - t0) / 1000;
  const rssAfter = rss();
  process.stderr.write(
    `${processes} process(es): in-memory copy loaded in ${round(loadSeconds, 1)} s, RSS ${rssBefore} -> ${rssAfter} MiB\n`,
  );
  rows.push({
    case: `in-memory copy load (first search to first in-memory answer), GATEWAY_PROCESSES=${processes}`,
    throughput: 0,
    unit: 's',
    p50_ms: round(loadSeconds * 1000, 0),
    p99_ms: 0,
    samples: 1,
    extra: { rss_before_mib: rssBefore, rss_after_mib: rssAfter, load_average: os.loadavg().map((x) => round(x, 1)) },
  });
  if (processes > 1) return mgw;
  // Where the time goes, one caller, alternately on the two gateways (same queries, same load).
  const parts: Record<string, Record<string, number[]>> = { sql: {}, memory: {} };
  for (const b of bodies)
    for (const [who, url] of [
      ['sql', gw.url],
      ['memory', mgw.url],
    ] as const) {
      const t = await timedSearch(url, kbId, key, b);
      if (who === 'memory' && t.path !== 'memory') throw new Error(`in-memory gateway answered by ${t.path}`);
      const add = (k: string, v: number) => (parts[who][k] ??= []).push(v);
      add('http', t.ms);
      for (const [k, v] of Object.entries(t.parts)) add(k, v);
      add('outside handler', t.ms - Object.values(t.parts).reduce((x, y) => x + y, 0));
    }
  for (const [who, p] of Object.entries(parts)) {
    const row: Row = {
      case: `where the time goes, ${who === 'sql' ? 'SQL path' : 'in-memory path'}, 1 caller, alternating`,
      throughput: 0,
      unit: 'ms (p50 of each part)',
      p50_ms: round(percentile(p.http, 50), 2),
      p99_ms: round(percentile(p.http, 99), 2),
      samples: p.http.length,
      extra: Object.fromEntries(
        Object.entries(p).flatMap(([k, v]) => [
          [`${k}_p50`, round(percentile(v, 50), 3)],
          [`${k}_p95`, round(percentile(v, 95), 3)],
        ]),
      ),
    };
    process.stderr.write(`${row.case}: ${JSON.stringify(row)}\n`);
    rows.push(row);
  }
  return mgw;
}
