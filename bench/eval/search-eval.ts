// `pnpm eval:search [corpusDir] [--only questions|beir] [--max-queries N] [--direct] [--verbose]`: search quality.
//
// 1. The corpus's own questions: every corpus document is uploaded through the real gateway into
//    one knowledge base and parsed and indexed; then each question of search-questions.json is asked
//    through POST /v1/knowledge-bases/{kbId}/search (limit 10). MRR@10 and recall@10.
// 2. Every BEIR-layout collection under <corpus>/g_retrieval/ (beir.ts): each document becomes one
//    file whose one segment (title, text) is indexed with the indexer the index worker runs
//    (libs/search-index indexFileVersion: segments.json in storage, one transaction per file); each
//    query goes through the HTTP endpoint (limit 80) and the hits' files, first occurrence first, are the ranking.
//    nDCG@10, MRR@10, recall@10 and @80, and p50/p95 latency over HTTP. --max-queries N asks only N of
//    a collection's judged queries, evenly spaced in file order (every document is still indexed), for
//    a loaded machine; both docfleet and FTS5 answer the same N.
// Both parts also run SQLite FTS5 bm25() (porter) over the same texts in the same run
// (fts5-baseline.py), the baseline every figure is reported beside. Writes bench/out/search-eval.json.
//
// Parsing: through the real fleet (the parse worker and the index worker as processes,
// fleet-parse.ts) when services/parse-worker is present, or with --direct the parsing libraries
// directly (libs/pdf, libs/sheets; corpus-segments.ts) with segments written through the indexer.
import { createHash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { BUNDLE } from '../../libs/contracts/src';
import { createLogger } from '../../libs/logger/src';
import { artifactPrefix, fileVersionKey } from '../../libs/storage/src';
import { indexFileVersion } from '../../libs/search-index/src';
import { percentile, round, startBenchGateway } from '../lib';
import {
  beirCollections,
  fts5Runs,
  loadBeir,
  meanScores,
  sampleQueries,
  scoreRun,
  type BeirCollection,
  type QueryScore,
} from './beir';
import { corpusDocuments, documentSegments, type CorpusDoc } from './corpus-segments';
import { fleetParse } from './fleet-parse';

interface Question {
  q: string;
  files: string[];
  snippet: string;
}
type Gateway = Awaited<ReturnType<typeof startBenchGateway>>;

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
const ROOT = path.resolve(__dirname, '../..');

async function directParse(
  gw: Gateway,
  orgId: string,
  kbId: string,
  uploaded: Array<{ doc: CorpusDoc; fileId: string; versionId: string }>,
) {
  const deps = { db: gw.db, storage: gw.deps.storage, logger: createLogger('eval', 'silent') };
  for (const { doc, fileId, versionId } of uploaded) {
    const manifestId = randomUUID();
    const prefix = artifactPrefix(kbId, fileId, manifestId);
    const segments = await documentSegments(doc, { fileId, manifestId });
    await gw.deps.storage.put(`${prefix}/${BUNDLE.segments_json}`, JSON.stringify(segments));
    await gw.db.artifactManifest.create({
      data: {
        id: manifestId,
        org_id: orgId,
        file_id: fileId,
        file_version_id: versionId,
        artifact_type: 'parse',
        storage_prefix: prefix,
        manifest: { segment_count: segments.length },
        links: {},
      },
    });
    const out = await indexFileVersion(deps, { orgId, fileId, fileVersionId: versionId, manifestId });
    if (out.status !== 'indexed') throw new Error(`${doc.name}: ${JSON.stringify(out)}`);
  }
}

const pctl = (xs: number[]) => ({ p50_ms: round(percentile(xs, 50), 1), p95_ms: round(percentile(xs, 95), 1) });

interface Hit {
  fileId: string;
  docName: string;
  markdown: string;
  segmentId: string;
  score: number;
  title: string;
}

/** The corpus's own questions (search-questions.json) through the real fleet or --direct, beside FTS5 over the same segments. */
async function questionsEval(gw: Gateway, corpus: string, mode: 'fleet' | 'direct', verbose: boolean) {
  const { questions } = JSON.parse(await readFile(path.join(__dirname, 'search-questions.json'), 'utf8')) as {
    questions: Question[];
  };
  const t0 = Date.now();
  const { key, orgId } = await gw.createOrg({ credits: 100_000 });
  const kbId = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Corpus' } })).body.knowledge_base
    .id as string;
  const docs = await corpusDocuments(corpus);
  const uploaded = [];
  for (const doc of docs) {
    const r = await gw.upload(key, { knowledge_base_id: kbId }, { name: doc.name, data: await readFile(doc.path) });
    if (r.status !== 201) throw new Error(`upload ${doc.name}: ${r.status} ${JSON.stringify(r.body)}`);
    uploaded.push({ doc, fileId: r.body.file.id as string, versionId: r.body.file.current_version.id as string });
  }
  process.stderr.write(`uploaded ${uploaded.length} documents; parsing (${mode})\n`);
  if (mode === 'fleet')
    await fleetParse(
      gw,
      key,
      uploaded.map((u) => u.fileId),
      (s) => process.stderr.write(`${s}\n`),
    );
  else await directParse(gw, orgId, kbId, uploaded);
  const indexedMs = Date.now() - t0;
  // As autovacuum would by now: the planner's statistics of the freshly written tables.
  await gw.db.$executeRawUnsafe('ANALYZE');

  // FTS5 over the very segments docfleet indexed (title, markdown), ranked by segment.
  const segs = await gw.db.$queryRawUnsafe<Array<{ id: string; filename: string; title: string; markdown: string }>>(
    `SELECT s.id::text, f.filename, s.title, s.markdown FROM evidence_index_segments s JOIN files f ON f.id = s.file_id WHERE s.knowledge_base_id = $1::uuid`,
    kbId,
  );
  const byId = new Map(segs.map((s) => [s.id, s]));
  const fts = await fts5Runs(
    segs.map((s) => ({ id: s.id, title: s.title, text: s.markdown })),
    questions.map((q, i) => ({ id: String(i), text: q.q })),
    10,
  );

  const rankOf = (q: Question, hits: Array<{ docName: string; markdown: string }>) => {
    const idx = hits.findIndex((h) => q.files.includes(h.docName) && norm(h.markdown).includes(norm(q.snippet)));
    return idx >= 0 ? idx + 1 : null;
  };
  const results = [];
  const searchMs: number[] = [];
  const ours = { rr: 0, found: 0 };
  const base = { rr: 0, found: 0 };
  for (const [i, q] of questions.entries()) {
    const s0 = performance.now();
    const r = await gw.req('POST', `/v1/knowledge-bases/${kbId}/search`, { key, body: { query: q.q, limit: 10 } });
    searchMs.push(performance.now() - s0);
    if (r.status !== 200) throw new Error(`search ${q.q}: ${r.status} ${JSON.stringify(r.body)}`);
    const hits = r.body.hits as Hit[];
    const rank = rankOf(q, hits);
    const ftsRank = rankOf(
      q,
      (fts.runs[String(i)] ?? []).map((id) => ({ docName: byId.get(id)!.filename, markdown: byId.get(id)!.markdown })),
    );
    if (rank) {
      ours.rr += 1 / rank;
      ours.found++;
    }
    if (ftsRank) {
      base.rr += 1 / ftsRank;
      base.found++;
    }
    results.push({
      q: q.q,
      rank,
      fts5_rank: ftsRank,
      top: hits.slice(0, 3).map((h) => `${h.docName}#${h.segmentId} ${h.score}`),
    });
    if (verbose || !rank || rank > 3) {
      process.stdout.write(
        `${rank ? `rank ${rank}` : 'miss  '} (fts5 ${ftsRank ?? 'miss'})  ${q.q}\n${hits
          .slice(0, 3)
          .map((h) => `        ${h.score.toFixed(4)} ${h.docName} ${norm(h.markdown).slice(0, 90)}`)
          .join('\n')}\n`,
      );
    }
  }
  const n = questions.length;
  return {
    documents: uploaded.length,
    segments: segs.length,
    questions: n,
    mode,
    index_ready_s: round(indexedMs / 1000, 1),
    docfleet: { mrr10: round(ours.rr / n, 3), recall10: round(ours.found / n, 3), ...pctl(searchMs) },
    fts5: { mrr10: round(base.rr / n, 3), recall10: round(base.found / n, 3), ...pctl(fts.ms) },
    results,
  };
}

/** Files, versions and manifests of one BEIR collection written with SQL, then each file indexed by the index worker's code (two at a time). */
async function indexBeir(gw: Gateway, db: pg.Pool, orgId: string, kbId: string, c: BeirCollection) {
  const deps = { db: gw.db, storage: gw.deps.storage, logger: createLogger('eval', 'silent') };
  const fileOf = new Map<string, string>();
  let next = 0;
  const worker = async () => {
    while (next < c.docs.length) {
      const doc = c.docs[next++];
      const fileId = randomUUID();
      const versionId = randomUUID();
      const manifestId = randomUUID();
      const filename = `${c.name}-${doc.id}.pdf`;
      fileOf.set(fileId, doc.id);
      await db.query(
        `INSERT INTO files (id, org_id, knowledge_base_id, filename, content_type) VALUES ($1, $2, $3, $4, 'application/pdf')`,
        [fileId, orgId, kbId, filename],
      );
      await db.query(
        `INSERT INTO file_versions (id, file_id, version_number, storage_path, sha256, byte_size, content_type, original_filename) VALUES ($1, $2, 1, $3, $4, 1, 'application/pdf', $5)`,
        [
          versionId,
          fileId,
          fileVersionKey(kbId, fileId, 1),
          createHash('sha256').update(doc.id).digest('hex'),
          filename,
        ],
      );
      await db.query(`UPDATE files SET current_version_id = $1 WHERE id = $2`, [versionId, fileId]);
      const prefix = artifactPrefix(kbId, fileId, manifestId);
      const segment = {
        id: 'p1-1',
        title: doc.title,
        markdown: doc.text || doc.title,
        sourceType: 'pdf',
        coordinates: { pageNumber: 1, sourceType: 'pdf' },
      };
      await gw.deps.storage.put(`${prefix}/${BUNDLE.segments_json}`, JSON.stringify([segment]));
      await db.query(
        `INSERT INTO artifact_manifests (id, org_id, file_id, file_version_id, artifact_type, storage_prefix) VALUES ($1, $2, $3, $4, 'parse', $5)`,
        [manifestId, orgId, fileId, versionId, prefix],
      );
      const out = await indexFileVersion(deps, { orgId, fileId, fileVersionId: versionId, manifestId });
      if (out.status !== 'indexed') throw new Error(`${doc.id}: ${JSON.stringify(out)}`);
    }
  };
  await Promise.all([worker(), worker()]);
  return fileOf;
}

async function beirEval(gw: Gateway, dir: string, verbose: boolean, maxQueries?: number) {
  const loaded = await loadBeir(dir);
  const c = { ...loaded, queries: sampleQueries(loaded.queries, maxQueries) };
  const t0 = Date.now();
  const db = new pg.Pool({ connectionString: gw.deps.env.DATABASE_URL, max: 4 });
  const { key, orgId } = await gw.createOrg({ credits: 100_000 });
  const kbId = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: c.name } })).body.knowledge_base
    .id as string;
  let fileOf: Map<string, string>;
  try {
    fileOf = await indexBeir(gw, db, orgId, kbId, c);
    await db.query('ANALYZE');
  } finally {
    await db.end();
  }
  const indexedS = (Date.now() - t0) / 1000;
  process.stderr.write(
    `${c.name}: ${c.docs.length} documents indexed in ${indexedS.toFixed(0)} s; ${c.queries.length} queries\n`,
  );
  const fts = await fts5Runs(c.docs, c.queries, 80);
  const ours: QueryScore[] = [];
  const base: QueryScore[] = [];
  const ms: number[] = [];
  const perQuery = [];
  for (const q of c.queries) {
    const rel = c.qrels.get(q.id)!;
    const s0 = performance.now();
    const r = await gw.req('POST', `/v1/knowledge-bases/${kbId}/search`, { key, body: { query: q.text, limit: 80 } });
    ms.push(performance.now() - s0);
    if (r.status !== 200) throw new Error(`search ${q.text}: ${r.status} ${JSON.stringify(r.body)}`);
    const ranked = [...new Set((r.body.hits as Hit[]).map((h) => fileOf.get(h.fileId)!))];
    const a = scoreRun(ranked, rel);
    const b = scoreRun(fts.runs[q.id] ?? [], rel);
    ours.push(a);
    base.push(b);
    perQuery.push({ id: q.id, q: q.text, ndcg10: round(a.ndcg10, 3), fts5_ndcg10: round(b.ndcg10, 3) });
    if (verbose && a.ndcg10 < b.ndcg10)
      process.stdout.write(`worse ${a.ndcg10.toFixed(2)} < ${b.ndcg10.toFixed(2)}  ${q.text}\n`);
  }
  const worse = perQuery.filter((p) => p.ndcg10 < p.fts5_ndcg10).length;
  const better = perQuery.filter((p) => p.ndcg10 > p.fts5_ndcg10).length;
  return {
    collection: c.name,
    split: c.split,
    documents: c.docs.length,
    queries: c.queries.length,
    queries_judged: loaded.queries.length,
    index_ready_s: round(indexedS, 1),
    docfleet: { ...meanScores(ours), ...pctl(ms) },
    fts5: { ...meanScores(base), ...pctl(fts.ms) },
    queries_worse: worse,
    queries_better: better,
    per_query: perQuery,
  };
}

async function main() {
  const args = process.argv.slice(2);
  const flagValue = (i: number) => i > 0 && ['--only', '--max-queries'].includes(args[i - 1]);
  const corpus = path.resolve(
    args.find((a, i) => !a.startsWith('--') && !flagValue(i)) ?? path.join(ROOT, '../shared/corpus'),
  );
  const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : undefined;
  const maxQueries = args.includes('--max-queries') ? Number(args[args.indexOf('--max-queries') + 1]) : undefined;
  if (maxQueries !== undefined && !(Number.isInteger(maxQueries) && maxQueries > 0))
    throw new Error('--max-queries takes a positive integer');
  const fleetAvailable = existsSync(path.join(ROOT, 'services/parse-worker/src/main.ts'));
  const mode = args.includes('--direct') || !fleetAvailable ? 'direct' : 'fleet';
  const verbose = args.includes('--verbose');
  const gw = await startBenchGateway({ MAX_UPLOAD_BYTES: String(50 * 1024 * 1024), RATE_LIMIT_POINTS: '10000000' });
  try {
    const out: Record<string, unknown> = { at: new Date().toISOString() };
    let ok = true;
    if (only !== 'beir') {
      const q = await questionsEval(gw, corpus, mode, verbose);
      out.questions = q;
      const { results: _r, ...summary } = q;
      process.stdout.write(`\ncorpus questions: ${JSON.stringify(summary)}\n`);
      ok &&= q.docfleet.mrr10 >= q.fts5.mrr10;
    }
    if (only !== 'questions') {
      const dirs = await beirCollections(corpus);
      if (!dirs.length) process.stdout.write(`no BEIR collection under ${corpus}/g_retrieval\n`);
      const colls = [];
      for (const dir of dirs) {
        const b = await beirEval(gw, dir, verbose, maxQueries);
        colls.push(b);
        const { per_query: _p, ...summary } = b;
        process.stdout.write(`\n${b.collection}: ${JSON.stringify(summary)}\n`);
        ok &&= b.docfleet.ndcg10 >= b.fts5.ndcg10 + 0.02;
      }
      out.beir = colls;
    }
    await mkdir(path.join(ROOT, 'bench/out'), { recursive: true });
    await writeFile(path.join(ROOT, 'bench/out/search-eval.json'), JSON.stringify(out, null, 2) + '\n');
    return ok ? 0 : 1;
  } finally {
    await gw.close();
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`eval:search failed: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);
