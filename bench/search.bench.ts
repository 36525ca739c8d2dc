// Index and search at 200,000 segments (issue 4).
//
// Index: 200,000 synthetic segments built from corpus text, 10 knowledge bases × 20 files × 1,000
// segments, written through the index worker's own code path (segments.json in storage → one
// transaction per file version, batched multi-row INSERT building the weighted tsvector in SQL),
// two jobs at a time as INDEX_CONCURRENCY=2 runs them. Baseline in the same run: the same rows
// loaded with COPY (pg-copy-streams) into a staging table, then one INSERT … SELECT building the
// tsvector: the cheapest way PostgreSQL can take them.
//
// Search: the same queries through POST /v1/knowledge-bases/{kbId}/search and as the endpoint's
// own SQL (searchStatement) run directly with node-postgres, alternating query by query, from a
// worker thread. Then the raw SQL once more with only one of the two GIN indexes available (the other
// dropped inside a transaction that is rolled back), to show what each plan costs.
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Segment } from '../libs/contracts/src';
import { BUNDLE } from '../libs/contracts/src';
import { createLogger } from '../libs/logger/src';
import { artifactPrefix, fileVersionKey } from '../libs/storage/src';
import {
  indexFileVersion,
  normaliseSearchBody,
  searchStatement,
  segmentRows,
  type SegmentRow,
} from '../libs/search-index/src';
import { corpusDocuments, documentSegments } from './eval/corpus-segments';
import { machine, percentile, round, startBenchGateway, type Row } from './lib';
import { runProbe, type ProbeItem, type ProbeResult } from './search-load';

export const name = 'search';

const KBS = Number(process.env.BENCH_SEARCH_KBS ?? 10);
const FILES_PER_KB = 20;
const SEGMENTS_PER_FILE = Number(process.env.BENCH_SEARCH_SEGMENTS_PER_FILE ?? 1000);
const INDEX_CONCURRENCY = 2;
const QUERIES = 300;
const ROUNDS = 3;
const CORPUS = process.env.DOCFLEET_CORPUS ?? `${__dirname}/../../shared/corpus`;

/** Deterministic PRNG (mulberry32), so every run indexes and asks the same things. */
export function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function textPool() {
  const segments: Segment[] = [];
  for (const doc of await corpusDocuments(CORPUS))
    segments.push(...(await documentSegments(doc, { fileId: randomUUID() })));
  const words = [...new Set(segments.flatMap((s) => s.markdown.toLowerCase().match(/\b[a-z]{4,14}\b/g) ?? []))];
  const names = (await corpusDocuments(CORPUS)).map((d) => d.name.replace(/\.[a-z]+$/, ''));
  return { segments: segments.filter((s) => s.markdown.trim().length > 20), words, names };
}

type Pool = Awaited<ReturnType<typeof textPool>>;

/** One synthetic file: corpus segments, each varied by a few vocabulary words and a number. */
function syntheticSegments(pool: Pool, rand: () => number, n: number): Segment[] {
  const out: Segment[] = [];
  for (let i = 0; i < n; i++) {
    const base = pool.segments[Math.floor(rand() * pool.segments.length)];
    const extra = Array.from({ length: 6 }, () => pool.words[Math.floor(rand() * pool.words.length)]).join(' ');
    out.push({
      ...base,
      id: `p${1 + Math.floor(i / 20)}-${i.toString(16).padStart(8, '0')}`,
      markdown: `${base.markdown.slice(0, 2500)}\n\n${extra} ${Math.floor(rand() * 100000)} FY${2000 + Math.floor(rand() * 25)}`,
    });
  }
  return out;
}

export async function createFile(db: pg.Pool, orgId: string, kbId: string, filename: string) {
  const fileId = randomUUID();
  const versionId = randomUUID();
  await db.query(
    `INSERT INTO files (id, org_id, knowledge_base_id, filename, content_type) VALUES ($1, $2, $3, $4, 'application/pdf')`,
    [fileId, orgId, kbId, filename],
  );
  await db.query(
    `INSERT INTO file_versions (id, file_id, version_number, storage_path, sha256, byte_size, content_type, original_filename) VALUES ($1, $2, 1, $3, $4, 1, 'application/pdf', $5)`,
    [versionId, fileId, fileVersionKey(kbId, fileId, 1), 'x'.repeat(64), filename],
  );
  await db.query(`UPDATE files SET current_version_id = $1 WHERE id = $2`, [versionId, fileId]);
  return { fileId, versionId };
}

/** COPY text format: tab separated, backslash escapes. */
const copyField = (v: unknown) =>
  v === null
    ? '\\N'
    : String(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
const pgArray = (xs: Array<string | number>) =>
  `{${xs.map((x) => `"${String(x).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`).join(',')}}`;

/** Baseline load: COPY the rows into a staging table, then one INSERT … SELECT building the tsvector. */
async function copyBaseline(
  db: pg.Pool,
  o: { orgId: string; kbId: string; fileId: string; versionId: string; manifestId: string },
  rows: SegmentRow[],
) {
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    await client.query(`CREATE TEMP TABLE stage (segment_id text, ordinal int, title text, labels text, markdown text, source_type text, coordinates jsonb, is_table boolean,
      table_metadata jsonb, note_refs text[], years int[], quarters text[], neighbors jsonb) ON COMMIT DROP`);
    const t0 = process.hrtime.bigint();
    const lines = rows.map(
      (r) =>
        [
          r.segment_id,
          r.ordinal,
          r.title,
          r.labels,
          r.markdown,
          r.source_type,
          JSON.stringify(r.coordinates),
          r.is_table,
          JSON.stringify(r.table_metadata),
          pgArray(r.note_refs),
          pgArray(r.years),
          pgArray(r.quarters),
          JSON.stringify(r.neighbors),
        ]
          .map(copyField)
          .join('\t') + '\n',
    );
    await pipeline(Readable.from(lines), client.query(copyFrom('COPY stage FROM STDIN')));
    const t1 = process.hrtime.bigint();
    await client.query(
      `
      INSERT INTO evidence_index_segments (org_id, knowledge_base_id, file_id, file_version_id, artifact_manifest_id, segment_id, ordinal, title, markdown, source_type,
        coordinates, is_table, table_metadata, note_refs, years, quarters, neighbors, tsv)
      SELECT $1, $2, $3, $4, $5, r.segment_id, r.ordinal, r.title, r.markdown, r.source_type, r.coordinates, r.is_table, r.table_metadata, r.note_refs, r.years, r.quarters, r.neighbors,
        setweight(to_tsvector('english', r.title), 'A') || setweight(to_tsvector('english', r.labels), 'B') || setweight(to_tsvector('english', r.markdown), 'C')
          || setweight(to_tsvector('english', 'bench baseline'), 'D')
      FROM stage r`,
      [o.orgId, o.kbId, o.fileId, o.versionId, o.manifestId],
    );
    const t2 = process.hrtime.bigint();
    await client.query('COMMIT');
    const t3 = process.hrtime.bigint();
    return { copyMs: Number(t1 - t0) / 1e6, insertMs: Number(t2 - t1) / 1e6, totalMs: Number(t3 - t0) / 1e6 };
  } finally {
    client.release();
  }
}

/** The cost of the tsvector alone, on the same staged text (no table, no index). */
async function tsvectorOnlyMs(db: pg.Pool, rows: SegmentRow[]) {
  const t0 = process.hrtime.bigint();
  // sum(length(t)) and not count(*): PostgreSQL would skip computing a column nobody reads.
  await db.query(
    `SELECT sum(length(t)) FROM (SELECT setweight(to_tsvector('english', r.title), 'A') || setweight(to_tsvector('english', r.labels), 'B') || setweight(to_tsvector('english', r.markdown), 'C') AS t
    FROM jsonb_to_recordset($1::jsonb) AS r(title text, labels text, markdown text)) x`,
    [JSON.stringify(rows.map((r) => ({ title: r.title, labels: r.labels, markdown: r.markdown })))],
  );
  return Number(process.hrtime.bigint() - t0) / 1e6;
}

interface Sample {
  latencies: number[];
  seconds: number;
}
/** Throughput here is completed requests of this kind per second of the mixed run it was part of. */
const stats = (r: Sample) => ({
  n: r.latencies.length,
  p50: round(percentile(r.latencies, 50)),
  p95: round(percentile(r.latencies, 95)),
  p99: round(percentile(r.latencies, 99)),
  rps: round(r.latencies.length / r.seconds, 1),
});

export async function run(): Promise<Row[]> {
  const gw = await startBenchGateway({ RATE_LIMIT_POINTS: '10000000' });
  const db = new pg.Pool({ connectionString: gw.deps.env.DATABASE_URL, max: 4 });
  try {
    const { key, orgId } = await gw.createOrg();
    const kbIds: string[] = [];
    for (let k = 0; k < KBS; k++) kbIds.push((await gw.createKnowledgeBase(key, `Bench ${k + 1}`)).id);
    const pool = await textPool();
    const rand = rng(42);

    // ---- baseline load (COPY + INSERT … SELECT), on a scratch knowledge base, before and after the main load
    const scratchKb = (await gw.createKnowledgeBase(key, 'Bench scratch')).id as string;
    const baselineRows = segmentRows(syntheticSegments(pool, rng(7), 20_000));
    const baseline = async () => {
      const f = await createFile(db, orgId, scratchKb, `baseline-${randomUUID()}.pdf`);
      const out = await copyBaseline(db, { orgId, kbId: scratchKb, ...f, manifestId: randomUUID() }, baselineRows);
      await db.query('DELETE FROM files WHERE id = $1', [f.fileId]);
      return out;
    };
    const baseBefore = await baseline();
    const tsvMs = await tsvectorOnlyMs(db, baselineRows);

    // ---- the index worker's code path
    const deps = { db: gw.db, storage: gw.deps.storage, logger: createLogger('bench', 'silent') };
    const jobs: Array<() => Promise<number>> = [];
    for (const kbId of kbIds) {
      for (let j = 0; j < FILES_PER_KB; j++) {
        jobs.push(async () => {
          // File names from the corpus: their words are indexed (weight D) like any document's.
          const f = await createFile(
            db,
            orgId,
            kbId,
            `${pool.names[(j * 7 + kbIds.indexOf(kbId)) % pool.names.length]}-${j + 1}.pdf`,
          );
          const manifestId = randomUUID();
          const prefix = artifactPrefix(kbId, f.fileId, manifestId);
          await gw.deps.storage.put(
            `${prefix}/${BUNDLE.segments_json}`,
            JSON.stringify(syntheticSegments(pool, rand, SEGMENTS_PER_FILE)),
          );
          await db.query(
            `INSERT INTO artifact_manifests (id, org_id, file_id, file_version_id, artifact_type, storage_prefix) VALUES ($1, $2, $3, $4, 'parse', $5)`,
            [manifestId, orgId, f.fileId, f.versionId, prefix],
          );
          const t0 = process.hrtime.bigint();
          const out = await indexFileVersion(deps, { orgId, fileId: f.fileId, fileVersionId: f.versionId, manifestId });
          if (out.status !== 'indexed') throw new Error(`bench file not indexed: ${JSON.stringify(out)}`);
          return Number(process.hrtime.bigint() - t0) / 1e6;
        });
      }
    }
    const jobMs: number[] = [];
    const l0 = process.hrtime.bigint();
    let nextJob = 0;
    await Promise.all(
      Array.from({ length: INDEX_CONCURRENCY }, async () => {
        while (nextJob < jobs.length) jobMs.push(await jobs[nextJob++]());
      }),
    );
    const loadSeconds = Number(process.hrtime.bigint() - l0) / 1e9;
    const total = KBS * FILES_PER_KB * SEGMENTS_PER_FILE;
    const baseAfter = await baseline();
    await db.query('VACUUM ANALYZE evidence_index_segments');
    await db.query('VACUUM ANALYZE files');
    const tableBytes = (await db.query(`SELECT pg_total_relation_size('evidence_index_segments')::bigint AS b`)).rows[0]
      .b;

    // ---- queries: 1-3 corpus words, and the evaluation's questions, each against one knowledge base
    const questions = (await import('./eval/search-questions.json')).questions.map((q: { q: string }) => q.q);
    const qrand = rng(99);
    const asks = Array.from({ length: QUERIES }, (_, i) => {
      const query =
        i % 4 === 3
          ? questions[Math.floor(qrand() * questions.length)]
          : Array.from(
              { length: 1 + Math.floor(qrand() * 3) },
              () => pool.words[Math.floor(qrand() * pool.words.length)],
            ).join(' ');
      return { kbId: kbIds[Math.floor(qrand() * kbIds.length)], query };
    });
    const statements = asks.map((a) => {
      const st = searchStatement({ kbId: a.kbId, orgId }, normaliseSearchBody({ query: a.query }));
      return { text: st.text, values: st.values as unknown[] };
    });
    // SQL and HTTP alternate item by item (which goes first alternates too), so both see the same load.
    const items: ProbeItem[] = asks.flatMap((a, i) => {
      const pair: ProbeItem[] = [
        { kind: 'sql', ...statements[i] },
        { kind: 'http', path: `/v1/knowledge-bases/${a.kbId}/search`, body: { query: a.query } },
      ];
      return i % 2 ? pair.reverse() : pair;
    });
    const probe = { url: gw.url, key, databaseUrl: gw.deps.env.DATABASE_URL, items };
    const hitCounts: number[] = [];
    for (const s of statements.slice(0, 50))
      hitCounts.push(JSON.parse((await db.query(s.text, s.values)).rows[0].hits).length);

    const runs: Record<'c1' | 'c4', ProbeResult[]> = { c1: [], c4: [] };
    for (let r = 0; r < ROUNDS; r++) {
      runs.c1.push(await runProbe(probe, 1));
      runs.c4.push(await runProbe(probe, 4));
    }
    // The gateway's fixed cost per search: a query with no searchable word still authenticates,
    // rate-limits and runs the statement's envelope (knowledge base, index state), but ranks nothing.
    const fixed = await runProbe(
      {
        ...probe,
        items: asks.map((a) => ({
          kind: 'http' as const,
          path: `/v1/knowledge-bases/${a.kbId}/search`,
          body: { query: 'the' },
        })),
      },
      1,
    );
    for (const [k, v] of Object.entries({ ...runs, fixed: [fixed] }))
      for (const x of v) if (x.errors) throw new Error(`${k}: ${x.errors} errors, first: ${x.firstError}`);
    const of = (rs: ProbeResult[], kind: 'sql' | 'http'): Sample => ({
      latencies: rs.flatMap((r) => r.latencies[kind]),
      seconds: rs.reduce((t, r) => t + r.seconds, 0),
    });
    const m = {
      sql1: of(runs.c1, 'sql'),
      http1: of(runs.c1, 'http'),
      sql4: of(runs.c4, 'sql'),
      http4: of(runs.c4, 'http'),
    };

    // ---- the two plans: only the single-column GIN index, or only the composite (kb, tsv) one
    const planCase = async (drop: string) => {
      const client = await db.connect();
      try {
        await client.query('BEGIN');
        if (drop) await client.query(`DROP INDEX ${drop}`);
        const lat: number[] = [];
        for (const s of statements.slice(10)) {
          const t0 = process.hrtime.bigint();
          await client.query(s.text, s.values);
          lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        const plan = (
          await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${statements[0].text}`, statements[0].values)
        ).rows.map((x) => x['QUERY PLAN'] as string);
        await client.query('ROLLBACK');
        return { latencies: lat, seconds: lat.reduce((a, b) => a + b, 0) / 1000, plan };
      } finally {
        client.release();
      }
    };
    const chosen = await planCase('');
    const ginOnly = await planCase('evidence_index_segments_knowledge_base_id_tsv_idx');
    const compositeOnly = await planCase('evidence_index_segments_tsv_idx');

    const s = {
      sql1: stats(m.sql1),
      http1: stats(m.http1),
      sql4: stats(m.sql4),
      http4: stats(m.http4),
      fixed: stats({ latencies: fixed.latencies.http, seconds: fixed.seconds }),
      chosen: stats(chosen),
      ginOnly: stats(ginOnly),
      compositeOnly: stats(compositeOnly),
    };
    const extra = {
      segments: total,
      knowledge_bases: KBS,
      files: KBS * FILES_PER_KB,
      table_bytes: Number(tableBytes),
      load_seconds: round(loadSeconds),
      job_ms_p50: round(percentile(jobMs, 50)),
      job_ms_p95: round(percentile(jobMs, 95)),
      baseline_before: baseBefore,
      baseline_after: baseAfter,
      tsvector_only_ms_20k: round(tsvMs),
      queries: QUERIES,
      rounds: ROUNDS,
      hits_median_first_50: percentile(hitCounts, 50),
      latency: s,
      plan_chosen: chosen.plan,
      plan_gin_only: ginOnly.plan,
      plan_composite_only: compositeOnly.plan,
      machine: machine(),
    };
    const workerRate = total / loadSeconds;
    const baseRate = (b: { totalMs: number }) => 20_000 / (b.totalMs / 1000);
    const baseRateMean = (baseRate(baseBefore) + baseRate(baseAfter)) / 2;
    const row = (c: string, key: keyof typeof s, note: string, base: number, isBase = false): Row => ({
      case: c,
      baseline: isBase || undefined,
      throughput: s[key].rps,
      unit: 'req/s',
      p50_ms: s[key].p50,
      p99_ms: s[key].p99,
      slowdown: round(s[key].p95 / base),
      samples: s[key].n,
      note: `p95 ${s[key].p95} ms; ${note}`,
    });
    process.stdout.write(
      `index: ${total} segments in ${round(loadSeconds)} s (${Math.round(workerRate)}/s); COPY baseline ${Math.round(baseRate(baseBefore))}/s before, ${Math.round(baseRate(baseAfter))}/s after; tsvector alone for 20k rows ${round(tsvMs)} ms\n`,
    );
    process.stdout.write(
      `search p95: API ${s.http1.p95} ms vs SQL ${s.sql1.p95} ms (ratio ${round(s.http1.p95 / s.sql1.p95)}); plans: chosen p95 ${s.chosen.p95}, GIN(tsv) only ${s.ginOnly.p95}, composite only ${s.compositeOnly.p95} ms\n`,
    );
    return [
      {
        case: 'index: COPY + INSERT…SELECT building tsvector',
        baseline: true,
        throughput: round(baseRateMean),
        unit: 'segments/s',
        slowdown: 1,
        samples: 2,
        note: `20k rows, before and after the load: ${Math.round(baseRate(baseBefore))} / ${Math.round(baseRate(baseAfter))}/s`,
        extra,
      },
      {
        case: `index worker: segments.json → rows, ${INDEX_CONCURRENCY} jobs at a time`,
        throughput: round(workerRate),
        unit: 'segments/s',
        slowdown: round(baseRateMean / workerRate),
        samples: jobMs.length,
        note: `${total} segments, ${KBS} KBs; job p50 ${round(percentile(jobMs, 50))} ms`,
      },
      row('search SQL direct (node-postgres), 1 caller', 'sql1', 'slowdown = p95 / this p95', s.sql1.p95, true),
      row(
        'POST …/search over HTTP, 1 caller',
        'http1',
        'auth + rate limit + the same SQL via Prisma + JSON',
        s.sql1.p95,
      ),
      row('POST …/search, no searchable word ("the")', 'fixed', 'the per-request cost outside the ranking', s.sql1.p95),
      row('search SQL direct, 4 callers (mixed with HTTP)', 'sql4', 'req/s: this kind in the mixed run', s.sql1.p95),
      row('POST …/search over HTTP, 4 callers (mixed with SQL)', 'http4', '', s.sql1.p95),
      row('search SQL, plan as chosen (sequential)', 'chosen', 'both GIN indexes present', s.sql1.p95),
      row(
        'search SQL, only GIN(tsv): kb filtered after',
        'ginOnly',
        'composite index dropped in a rolled-back tx',
        s.sql1.p95,
      ),
      row(
        'search SQL, only GIN(knowledge_base_id, tsv)',
        'compositeOnly',
        'tsv-only index dropped in a rolled-back tx',
        s.sql1.p95,
      ),
    ];
  } finally {
    await db.end().catch(() => undefined);
    await gw.close();
  }
}
