// `pnpm eval:search [corpusDir] [--direct] [--verbose]`: search quality on the shared corpus.
//
// Every corpus document is uploaded through the real gateway into one knowledge base and parsed
// and indexed; then each question of search-questions.json is asked through
// POST /v1/knowledge-bases/{kbId}/search (limit 10). Reports MRR@10 and recall@10 and writes
// bench/out/search-eval.json.
//
// Parsing: through the real fleet (the parse worker's and the index worker's queue handlers, in
// this process) when services/parse-worker is present, or with --direct the parsing libraries
// directly (libs/pdf, libs/sheets; corpus-segments.ts) with segments written through the index
// worker's real code path.
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BUNDLE } from '../../libs/contracts/src';
import { createLogger } from '../../libs/logger/src';
import { artifactPrefix } from '../../libs/storage/src';
import { indexFileVersion } from '../../services/index-worker/src/index-file-version';
import { startBenchGateway } from '../lib';
import { corpusDocuments, documentSegments, type CorpusDoc } from './corpus-segments';
import { fleetParse } from './fleet-parse';

interface Question { q: string; files: string[]; snippet: string }
type Gateway = Awaited<ReturnType<typeof startBenchGateway>>;

const norm = (s: string) => s.toLowerCase().replace(/\s+/g, ' ').trim();
const ROOT = path.resolve(__dirname, '../..');

async function directParse(gw: Gateway, orgId: string, kbId: string, uploaded: Array<{ doc: CorpusDoc; fileId: string; versionId: string }>) {
  const deps = { db: gw.db, storage: gw.deps.storage, logger: createLogger('eval', 'silent') };
  for (const { doc, fileId, versionId } of uploaded) {
    const manifestId = randomUUID();
    const prefix = artifactPrefix(kbId, fileId, manifestId);
    const segments = await documentSegments(doc, { fileId, manifestId });
    await gw.deps.storage.put(`${prefix}/${BUNDLE.segments_json}`, JSON.stringify(segments));
    await gw.db.artifactManifest.create({ data: { id: manifestId, org_id: orgId, file_id: fileId, file_version_id: versionId, artifact_type: 'parse', storage_prefix: prefix, manifest: { segment_count: segments.length }, links: {} } });
    const out = await indexFileVersion(deps, { orgId, fileId, fileVersionId: versionId, manifestId });
    if (out.status !== 'indexed') throw new Error(`${doc.name}: ${JSON.stringify(out)}`);
  }
}

async function main() {
  const args = process.argv.slice(2);
  const corpus = path.resolve(args.find((a) => !a.startsWith('--')) ?? path.join(ROOT, '../shared/corpus'));
  const fleetAvailable = existsSync(path.join(ROOT, 'services/parse-worker/src/main.ts'));
  const mode = args.includes('--direct') || !fleetAvailable ? 'direct' : 'fleet';
  const verbose = args.includes('--verbose');
  const { questions } = JSON.parse(await readFile(path.join(__dirname, 'search-questions.json'), 'utf8')) as { questions: Question[] };

  const gw = await startBenchGateway({ MAX_UPLOAD_BYTES: String(50 * 1024 * 1024) });
  const t0 = Date.now();
  try {
    const { key, orgId } = await gw.createOrg({ credits: 100_000 });
    const kbId = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Corpus' } })).body.knowledge_base.id as string;
    const docs = await corpusDocuments(corpus);
    const uploaded = [];
    for (const doc of docs) {
      const r = await gw.upload(key, { knowledge_base_id: kbId }, { name: doc.name, data: await readFile(doc.path) });
      if (r.status !== 201) throw new Error(`upload ${doc.name}: ${r.status} ${JSON.stringify(r.body)}`);
      uploaded.push({ doc, fileId: r.body.file.id as string, versionId: r.body.file.current_version.id as string });
    }
    process.stderr.write(`uploaded ${uploaded.length} documents; parsing (${mode})\n`);
    if (mode === 'fleet') await fleetParse(gw, key, uploaded.map((u) => u.fileId), (s) => process.stderr.write(`${s}\n`));
    else await directParse(gw, orgId, kbId, uploaded);
    const indexedMs = Date.now() - t0;

    const results = [];
    let rr = 0;
    let found = 0;
    const searchMs: number[] = [];
    for (const q of questions) {
      const s0 = Date.now();
      const r = await gw.req('POST', `/v1/knowledge-bases/${kbId}/search`, { key, body: { query: q.q, limit: 10 } });
      searchMs.push(Date.now() - s0);
      if (r.status !== 200) throw new Error(`search ${q.q}: ${r.status} ${JSON.stringify(r.body)}`);
      const hits = r.body.hits as Array<{ docName: string; markdown: string; segmentId: string; score: number }>;
      const idx = hits.findIndex((h) => q.files.includes(h.docName) && norm(h.markdown).includes(norm(q.snippet)));
      const rank = idx >= 0 ? idx + 1 : null;
      if (rank) {
        rr += 1 / rank;
        found++;
      }
      results.push({ q: q.q, rank, top: hits.slice(0, 3).map((h) => `${h.docName}#${h.segmentId} ${h.score}`) });
      if (verbose || !rank || rank > 3) {
        process.stdout.write(`${rank ? `rank ${rank}` : 'miss  '}  ${q.q}\n${hits.slice(0, 3).map((h) => `        ${h.score.toFixed(4)} ${h.docName} ${norm(h.markdown).slice(0, 90)}`).join('\n')}\n`);
      }
    }
    const mrr = rr / questions.length;
    const recall = found / questions.length;
    const summary = { mode, documents: uploaded.length, questions: questions.length, mrr_at_10: Math.round(mrr * 1000) / 1000, recall_at_10: Math.round(recall * 1000) / 1000, target_mrr: 0.7, index_ready_s: Math.round(indexedMs / 100) / 10, search_ms_median: searchMs.sort((a, b) => a - b)[Math.floor(searchMs.length / 2)] };
    process.stdout.write(`\n${JSON.stringify(summary)}\nMRR@10 ${summary.mrr_at_10} (target ≥ 0.7), recall@10 ${summary.recall_at_10}, ${questions.length} questions over ${uploaded.length} documents (${mode} parse)\n`);
    await mkdir(path.join(ROOT, 'bench/out'), { recursive: true });
    await writeFile(path.join(ROOT, 'bench/out/search-eval.json'), JSON.stringify({ ...summary, at: new Date().toISOString(), results }, null, 2) + '\n');
    return mrr >= 0.7 ? 0 : 1;
  } finally {
    await gw.close();
  }
}

main().then((code) => process.exit(code), (err) => {
  process.stderr.write(`eval:search failed: ${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
