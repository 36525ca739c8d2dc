// BEIR-layout retrieval collections for `pnpm eval:search`: <dir>/corpus.jsonl (`_id`, `title`,
// `text`), queries-<split>.jsonl (`_id`, `text`) and qrels/<split>.tsv (query-id, corpus-id, score).
// Metrics follow BEIR (pytrec_eval): nDCG@10 with the graded relevance as gain and log2(rank + 1)
// discount, MRR@10, recall@k = share of a query's relevant documents among its first k.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';

export interface BeirDoc {
  id: string;
  title: string;
  text: string;
}
export interface BeirQuery {
  id: string;
  text: string;
}
export interface BeirCollection {
  name: string;
  dir: string;
  split: string;
  docs: BeirDoc[];
  queries: BeirQuery[];
  qrels: Map<string, Map<string, number>>;
}

const jsonl = async <T>(file: string): Promise<T[]> =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as T);

/** Every BEIR-layout collection under `<corpus>/g_retrieval/`, with the queries that have judgments. */
export async function beirCollections(corpus: string): Promise<string[]> {
  const root = path.join(corpus, 'g_retrieval');
  if (!existsSync(root)) return [];
  const out: string[] = [];
  for (const e of await readdir(root, { withFileTypes: true })) {
    if (e.isDirectory() && existsSync(path.join(root, e.name, 'corpus.jsonl'))) out.push(path.join(root, e.name));
  }
  return out.sort();
}

export async function loadBeir(dir: string): Promise<BeirCollection> {
  const files = await readdir(dir);
  const qfile = files.find((f) => /^queries(-[\w]+)?\.jsonl$/.test(f));
  if (!qfile) throw new Error(`${dir}: no queries*.jsonl`);
  const split = /^queries-([\w]+)\.jsonl$/.exec(qfile)?.[1] ?? 'test';
  const qrels = new Map<string, Map<string, number>>();
  const tsv = (await readFile(path.join(dir, 'qrels', `${split}.tsv`), 'utf8')).split('\n').slice(1);
  for (const line of tsv) {
    const [qid, did, score] = line.split('\t');
    if (!qid || !did || !(Number(score) > 0)) continue;
    const m = qrels.get(qid) ?? new Map<string, number>();
    m.set(did, Number(score));
    qrels.set(qid, m);
  }
  const docs = (await jsonl<{ _id: string; title?: string; text?: string }>(path.join(dir, 'corpus.jsonl'))).map(
    (d) => ({ id: String(d._id), title: d.title ?? '', text: d.text ?? '' }),
  );
  const queries = (await jsonl<{ _id: string; text: string }>(path.join(dir, qfile)))
    .map((q) => ({ id: String(q._id), text: q.text }))
    .filter((q) => qrels.has(q.id));
  return { name: path.basename(dir), dir, split, docs, queries, qrels };
}

/** N of the queries, evenly spaced in file order (all of them when N is absent or not smaller). */
export function sampleQueries<T>(queries: T[], max?: number): T[] {
  if (!max || max >= queries.length) return queries;
  return Array.from({ length: max }, (_, i) => queries[Math.floor((i * queries.length) / max)]);
}

export interface QueryScore {
  ndcg10: number;
  mrr10: number;
  recall10: number;
  recall80: number;
}

export function scoreRun(ranked: string[], rel: Map<string, number>): QueryScore {
  const dcg = ranked.slice(0, 10).reduce((s, d, i) => s + (rel.get(d) ?? 0) / Math.log2(i + 2), 0);
  const ideal = [...rel.values()]
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  const first = ranked.slice(0, 10).findIndex((d) => rel.has(d));
  const recall = (k: number) => ranked.slice(0, k).filter((d) => rel.has(d)).length / rel.size;
  return {
    ndcg10: ideal ? dcg / ideal : 0,
    mrr10: first >= 0 ? 1 / (first + 1) : 0,
    recall10: recall(10),
    recall80: recall(80),
  };
}

export function meanScores(scores: QueryScore[]): QueryScore {
  const m = (k: keyof QueryScore) =>
    Math.round((scores.reduce((s, x) => s + x[k], 0) / Math.max(scores.length, 1)) * 1000) / 1000;
  return { ndcg10: m('ndcg10'), mrr10: m('mrr10'), recall10: m('recall10'), recall80: m('recall80') };
}

/** SQLite FTS5 bm25() (porter) over the same texts, in a python3 child: query id → doc ids, and per-query ms. */
export async function fts5Runs(
  docs: BeirDoc[],
  queries: BeirQuery[],
  k = 80,
): Promise<{ runs: Record<string, string[]>; ms: number[] }> {
  const child = spawn('python3', [path.join(__dirname, 'fts5-baseline.py')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const chunks: Buffer[] = [];
  child.stdout.on('data', (d: Buffer) => chunks.push(d));
  const done = new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code ?? 1));
  });
  child.stdin.end(JSON.stringify({ docs, queries, k }));
  const code = await done;
  if (code !== 0) throw new Error(`fts5-baseline.py exited ${code}`);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { runs: Record<string, string[]>; ms: number[] };
}
