// `tsx bench/eval/scifact-variants.ts [corpusDir] [--db URL] [--cache FILE]`: offline ranking variants
// on a BEIR-layout collection (SciFact train), beside SQLite FTS5 bm25() in the same run (issue 22).
//
// Every variant below needs only the analyser's output, so each abstract's fields (title, text, the file
// name `<collection> <id>` as the eval writes it) and each of its sentences, and every query, go through
// search_lexemes() once — the very function of migration 20261126160000_search_bm25, read from that file
// and created as a temporary function in a scratch database — and the rankings are recomputed here.
// `shipped` is textSearchSql's formula on one-segment files (BM25 over field-weighted term frequencies
// 1/1/0.5, filler words dropped, at most MAX_TERMS terms, synonyms at 0.3, words in over a quarter of
// the segments skipped when a rarer one is asked); it is checked against the figure measured over HTTP.
// The queries are split by id parity (even: looked at, odd: held out); no constant exists for one query
// or one document. Imports libraries only (the query's synonyms and filler words), never a service.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { FILLER_TEXT, MAX_TERMS, queryText } from '../../libs/search-index/src/query-terms';
import { RANKING } from '../../libs/search-index/src/search-sql';
import { fts5Runs, loadBeir, scoreRun, type BeirCollection, type QueryScore } from './beir';

const ROOT = path.resolve(__dirname, '../..');
const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};

/** Lexeme → positions, as unnest(tsvector) gives them. */
export type Lex = Array<[string, number[]]>;
interface DocA {
  id: string;
  title: Lex;
  body: Lex;
  name: Lex;
  /** The body's sentences, each analysed on its own. */
  sents: Lex[];
}
interface QueryA {
  id: string;
  /** The query's own terms (filler words dropped, at most MAX_TERMS), in order of first position. */
  terms: Array<{ term: string; pos: number }>;
  synonyms: string[];
}
export interface Cache {
  docs: DocA[];
  queries: QueryA[];
}

/** Sentences of an abstract: split after . ! ? followed by space and an upper-case letter, digit or bracket. */
export function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+(?=[A-Z0-9([])/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function analyserSql(): string {
  const sql = readFileSync(path.join(ROOT, 'prisma/migrations/20261126160000_search_bm25/migration.sql'), 'utf8');
  const m = /CREATE FUNCTION search_lexemes\(t text\)[\s\S]*?\$fn\$;/.exec(sql);
  if (!m) throw new Error('search_lexemes() not found in the migration');
  return m[0].replace('CREATE FUNCTION search_lexemes', 'CREATE FUNCTION pg_temp.search_lexemes');
}

async function analyse(c: BeirCollection, url: string): Promise<Cache> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query(analyserSql());
    const lex = async (texts: string[]): Promise<Lex[]> => {
      const out: Lex[] = [];
      for (let i = 0; i < texts.length; i += 2000) {
        const r = await db.query<{ lx: Lex }>(
          `SELECT (SELECT coalesce(json_agg(json_build_array(l.lexeme, l.positions)), '[]'::json)
                   FROM unnest(pg_temp.search_lexemes(x.t)) l) AS lx
           FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY x.i`,
          [texts.slice(i, i + 2000)],
        );
        for (const row of r.rows) out.push(row.lx);
      }
      return out;
    };
    const texts: string[] = [];
    const at: Array<{ title: number; body: number; name: number; sents: [number, number] }> = [];
    for (const d of c.docs) {
      const body = d.text || d.title;
      const s = sentences(body);
      at.push({
        title: texts.length,
        body: texts.length + 1,
        name: texts.length + 2,
        sents: [texts.length + 3, s.length],
      });
      texts.push(d.title, body, `${c.name} ${d.id}`, ...s);
    }
    const all = await lex(texts);
    const docs = c.docs.map((d, i) => ({
      id: d.id,
      title: all[at[i].title],
      body: all[at[i].body],
      name: all[at[i].name],
      sents: all.slice(at[i].sents[0], at[i].sents[0] + at[i].sents[1]),
    }));
    const filler = new Set((await lex([FILLER_TEXT]))[0].map(([t]) => t));
    const qt = c.queries.map((q) => queryText(q.text));
    const own = await lex(qt.map((q) => q.text));
    const syn = await lex(qt.map((q) => q.synonyms));
    const queries = c.queries.map((q, i) => ({
      id: q.id,
      terms: own[i]
        .filter(([t]) => !filler.has(t))
        .map(([term, pos]) => ({ term, pos: pos[0] }))
        .sort((a, b) => a.pos - b.pos)
        .slice(0, MAX_TERMS),
      synonyms: syn[i].map(([t]) => t),
    }));
    return { docs, queries };
  } finally {
    await db.end();
  }
}

// ---- Scoring ------------------------------------------------------------------------------------

export interface Variant {
  name: string;
  k1?: number;
  b?: number;
  /** Skip words in over `commonShare` of the documents when a rarer one is asked (the shipped rule). */
  skip?: boolean;
  titleW?: number;
  /** idf: 'bm25' ln(1 + (N − df + .5)/(df + .5)) (shipped), 'rsj' max(0, ln((N − df + .5)/(df + .5))), 'classic' ln(N/df). */
  idf?: 'bm25' | 'rsj' | 'classic';
  /** BM25+ (lower bound δ for a present term) or BM25L (δ added to the length-normalised tf). */
  plus?: number;
  bm25l?: number;
  /** Passage evidence: doc + lambda × best passage's BM25 (same IDF, passage length normalisation). */
  passage?: {
    lambda: number;
    kind: 'sent' | 'pair' | 'triple';
    k1?: number;
    b?: number;
    title?: boolean;
    mode?: 'add' | 'max';
  };
  /** Query likelihood, Dirichlet μ: fused with BM25 as alpha × minmax(BM25) + (1 − alpha) × minmax(QL), or raw-added. */
  ql?: { mu: number; alpha: number; raw?: number };
  /** Sequential dependence: ordered pairs within `ow` positions and unordered within `uw`, scored as BM25 terms. */
  sdm?: { ow: number; uw: number; lo: number; lu: number };
  /** Morphological variants (a corpus lexeme that extends the query lexeme or is extended by it) at weight gamma. */
  soft?: { gamma: number; minLen: number; maxDiff: number };
}

interface Index {
  n: number;
  avgdl: number;
  dl: Float64Array;
  /** term → [doc, tf] postings (field-weighted tf as search_segment_terms). */
  post: Map<string, Array<[number, number]>>;
  cf: Map<string, number>;
  total: number;
  /** Per doc, per sentence: term → count, and lengths. */
  sent: Array<Array<Map<string, number>>>;
  titleMap: Array<Map<string, number>>;
  avgSent: number;
  /** Per doc: term → positions (title and body, title first, body shifted by 10,000). */
  pos: Array<Map<string, number[]>>;
  lexemes: string[];
}

export function buildIndex(c: Cache, titleW: number): Index {
  const post = new Map<string, Array<[number, number]>>();
  const cf = new Map<string, number>();
  const dl = new Float64Array(c.docs.length);
  const sent: Index['sent'] = [];
  const titleMap: Index['titleMap'] = [];
  const pos: Index['pos'] = [];
  let total = 0;
  let sentLen = 0;
  let sentN = 0;
  c.docs.forEach((d, i) => {
    const tf = new Map<string, number>();
    const add = (lx: Lex, w: number) => {
      for (const [t, p] of lx) tf.set(t, (tf.get(t) ?? 0) + w * p.length);
    };
    add(d.title, titleW);
    add(d.body, 1);
    add(d.name, 0.5);
    let len = 0;
    for (const [t, v] of tf) {
      (post.get(t) ?? post.set(t, []).get(t)!).push([i, v]);
      cf.set(t, (cf.get(t) ?? 0) + v);
      len += v;
    }
    dl[i] = len;
    total += len;
    const toMap = (lx: Lex) => new Map(lx.map(([t, p]) => [t, p.length] as [string, number]));
    sent.push(d.sents.map(toMap));
    for (const s of d.sents) {
      sentN++;
      for (const [, p] of s) sentLen += p.length;
    }
    titleMap.push(toMap(d.title));
    const pm = new Map<string, number[]>();
    for (const [t, p] of d.title) pm.set(t, [...p]);
    for (const [t, p] of d.body) pm.set(t, [...(pm.get(t) ?? []), ...p.map((x) => x + 10000)]);
    pos.push(pm);
  });
  return {
    n: c.docs.length,
    avgdl: total / c.docs.length,
    dl,
    post,
    cf,
    total,
    sent,
    titleMap,
    avgSent: sentLen / Math.max(sentN, 1),
    pos,
    lexemes: [...post.keys()],
  };
}

function idfOf(ix: Index, df: number, kind: Variant['idf']): number {
  if (kind === 'rsj') return Math.max(0, Math.log((ix.n - df + 0.5) / (df + 0.5)));
  if (kind === 'classic') return Math.log(ix.n / df);
  return Math.log(1 + (ix.n - df + 0.5) / (df + 0.5));
}

function minmax(m: Map<number, number>): Map<number, number> {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of m.values()) {
    lo = Math.min(lo, v);
    hi = Math.max(hi, v);
  }
  const out = new Map<number, number>();
  for (const [k, v] of m) out.set(k, hi > lo ? (v - lo) / (hi - lo) : 1);
  return out;
}

const RERANK = 200;
const unitCache = new Map<string, Array<{ m: Map<string, number>; len: number }>>();
/** A document's passages of `width` consecutive sentences (term counts, length), computed once. */
function unitsOf(ix: Index, d: number, width: number) {
  const key = `${d}:${width}`;
  let units = unitCache.get(key);
  if (!units) {
    const ss = ix.sent[d];
    units = [];
    for (let i = 0; i < Math.max(1, ss.length - width + 1); i++) {
      const m = new Map<string, number>();
      let len = 0;
      for (const x of ss.slice(i, i + width))
        for (const [t, c] of x) {
          m.set(t, (m.get(t) ?? 0) + c);
          len += c;
        }
      units.push({ m, len });
    }
    unitCache.set(key, units);
  }
  return units;
}

/** Doc indexes, best first (at most k), for one query under a variant. */
export function rank(ix: Index, q: QueryA, v: Omit<Variant, 'name'>, k: number): number[] {
  const k1 = v.k1 ?? RANKING.k1;
  const b = v.b ?? RANKING.b;
  // The query's weighted terms, as lexemesSql: own words at 1, synonyms at synonymWeight (max per term).
  const w = new Map<string, number>();
  for (const t of q.terms) w.set(t.term, 1);
  for (const t of q.synonyms) w.set(t, Math.max(w.get(t) ?? 0, RANKING.synonymWeight));
  let qa = [...w].filter(([t]) => ix.post.has(t)).map(([t, wt]) => ({ t, wt, df: ix.post.get(t)!.length }));
  if (v.skip !== false) {
    const rare = qa.filter((x) => x.df <= RANKING.commonShare * ix.n);
    if (rare.length) qa = rare;
  }
  if (v.soft) {
    const have = new Set(qa.map((x) => x.t));
    const extra: typeof qa = [];
    for (const x of [...qa]) {
      if (x.t.length < v.soft.minLen) continue;
      for (const l of ix.lexemes) {
        if (have.has(l) || l.length < v.soft.minLen || Math.abs(l.length - x.t.length) > v.soft.maxDiff) continue;
        if (l.startsWith(x.t) || x.t.startsWith(l)) {
          have.add(l);
          extra.push({ t: l, wt: x.wt * v.soft.gamma, df: ix.post.get(l)!.length });
        }
      }
    }
    qa = qa.concat(extra);
  }
  const terms = qa.map((x) => ({ ...x, idf: x.wt * idfOf(ix, x.df, v.idf) }));
  const score = new Map<number, number>();
  for (const t of terms) {
    for (const [d, tf] of ix.post.get(t.t)!) {
      const norm = 1 - b + (b * ix.dl[d]) / ix.avgdl;
      let s: number;
      if (v.bm25l !== undefined) {
        const c = tf / norm + v.bm25l;
        s = (t.idf * (k1 + 1) * c) / (k1 + c);
      } else {
        s = (t.idf * tf * (k1 + 1)) / (tf + k1 * norm) + (v.plus ? t.idf * v.plus : 0);
      }
      score.set(d, (score.get(d) ?? 0) + s);
    }
  }
  if (v.sdm) {
    const own = q.terms.map((x) => x.term).filter((t) => terms.some((y) => y.t === t));
    for (let i = 0; i + 1 < own.length; i++) {
      const [a, bb] = [own[i], own[i + 1]];
      const da = new Set(ix.post.get(a)!.map(([d]) => d));
      const both = ix.post
        .get(bb)!
        .filter(([d]) => da.has(d))
        .map(([d]) => d);
      const cnt = (d: number, ordered: boolean) => {
        const pa = ix.pos[d].get(a) ?? [];
        const pb = ix.pos[d].get(bb) ?? [];
        let n = 0;
        for (const x of pa)
          for (const y of pb) {
            const g = y - x;
            if (ordered ? g >= 1 && g <= v.sdm!.ow : Math.abs(g) <= v.sdm!.uw) n++;
          }
        return n;
      };
      for (const [ordered, lam] of [
        [true, v.sdm.lo],
        [false, v.sdm.lu],
      ] as Array<[boolean, number]>) {
        if (!lam) continue;
        const hits = both.map((d) => [d, cnt(d, ordered)] as [number, number]).filter(([, c]) => c > 0);
        if (!hits.length) continue;
        const idf = idfOf(ix, hits.length, v.idf);
        for (const [d, tf] of hits) {
          const norm = 1 - b + (b * ix.dl[d]) / ix.avgdl;
          score.set(d, score.get(d)! + (lam * idf * tf * (k1 + 1)) / (tf + k1 * norm));
        }
      }
    }
  }
  if (v.passage) {
    const p = v.passage;
    const pk1 = p.k1 ?? k1;
    const pb = p.b ?? b;
    const width = p.kind === 'sent' ? 1 : p.kind === 'pair' ? 2 : 3;
    // Only the RERANK best documents by the score so far are re-scored (nDCG@10 looks at the first 10).
    const top = [...score].sort((x, y) => y[1] - x[1]).slice(0, RERANK);
    for (const [d, s0] of top) {
      const units = [...unitsOf(ix, d, width)];
      if (p.title) units.push({ m: ix.titleMap[d], len: [...ix.titleMap[d].values()].reduce((a, x) => a + x, 0) });
      let best = 0;
      for (const { m: u, len } of units) {
        const norm = 1 - pb + (pb * len) / (ix.avgSent * width);
        let s = 0;
        for (const t of terms) {
          const tf = u.get(t.t);
          if (tf) s += (t.idf * tf * (pk1 + 1)) / (tf + pk1 * norm);
        }
        best = Math.max(best, s);
      }
      score.set(d, p.mode === 'max' ? Math.max(s0, p.lambda * best) : s0 + p.lambda * best);
    }
  }
  if (v.ql) {
    const ql = new Map<number, number>();
    const qsum = terms.reduce((s, t) => s + t.wt, 0);
    for (const d of score.keys()) ql.set(d, qsum * Math.log(v.ql.mu / (ix.dl[d] + v.ql.mu)));
    for (const t of terms) {
      const pc = ix.cf.get(t.t)! / ix.total;
      for (const [d, tf] of ix.post.get(t.t)!) ql.set(d, ql.get(d)! + t.wt * Math.log(1 + tf / (v.ql.mu * pc)));
    }
    if (v.ql.raw !== undefined) {
      for (const [d, s] of score) score.set(d, s + v.ql.raw * ql.get(d)!);
    } else {
      const nb = minmax(score);
      const nq = minmax(ql);
      for (const d of score.keys()) score.set(d, v.ql.alpha * nb.get(d)! + (1 - v.ql.alpha) * nq.get(d)!);
    }
  }
  return [...score]
    .map(([d, s]) => [d, Math.round(s * 1e6) / 1e6] as [number, number])
    .sort((x, y) => y[1] - x[1] || x[0] - y[0])
    .slice(0, k)
    .map(([d]) => d);
}

interface Row {
  name: string;
  all: number;
  even: number;
  odd: number;
  worse: number;
  better: number;
  /** Mean per-query nDCG@10 difference with FTS5 and its standard error. */
  diff: number;
  se: number;
  mrr: number;
  r10: number;
}

function evaluate(c: BeirCollection, runs: Map<string, string[]>, ref?: Map<string, number>) {
  const per = new Map<string, QueryScore>();
  for (const q of c.queries) per.set(q.id, scoreRun(runs.get(q.id) ?? [], c.qrels.get(q.id)!));
  const mean = (ids: string[], f: (s: QueryScore) => number) =>
    Math.round((ids.reduce((s, id) => s + f(per.get(id)!), 0) / ids.length) * 10000) / 10000;
  const ids = c.queries.map((q) => q.id);
  const even = ids.filter((id) => Number(id) % 2 === 0);
  const odd = ids.filter((id) => Number(id) % 2 !== 0);
  let worse = 0;
  let better = 0;
  const ds = ref ? ids.map((id) => per.get(id)!.ndcg10 - ref.get(id)!) : [0];
  for (const d of ds) {
    if (d < -1e-9) worse++;
    if (d > 1e-9) better++;
  }
  const diff = ds.reduce((a, x) => a + x, 0) / ds.length;
  const se = Math.sqrt(ds.reduce((a, x) => a + (x - diff) ** 2, 0) / Math.max(ds.length - 1, 1) / ds.length);
  return {
    per,
    row: {
      all: mean(ids, (s) => s.ndcg10),
      even: mean(even, (s) => s.ndcg10),
      odd: mean(odd, (s) => s.ndcg10),
      mrr: mean(ids, (s) => s.mrr10),
      r10: mean(ids, (s) => s.recall10),
      worse,
      better,
      diff,
      se,
    },
  };
}

async function main() {
  const pos = process.argv.slice(2).filter((a, i, xs) => !a.startsWith('--') && !xs[i - 1]?.startsWith('--'));
  const corpus = pos[0] ?? process.env.DOCFLEET_CORPUS ?? path.resolve(ROOT, '../shared/corpus');
  const dir = path.join(corpus, 'g_retrieval', arg('--collection') ?? 'scifact');
  const url = arg('--db') ?? process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/docfleet';
  const cacheFile = arg('--cache') ?? path.join(ROOT, 'bench/out/scifact-variants-cache.json');
  const c = await loadBeir(dir);
  let cache: Cache;
  if (existsSync(cacheFile)) cache = JSON.parse(readFileSync(cacheFile, 'utf8')) as Cache;
  else {
    const t0 = Date.now();
    cache = await analyse(c, url);
    writeFileSync(cacheFile, JSON.stringify(cache));
    console.error(`analysed ${c.docs.length} documents and ${c.queries.length} queries in ${Date.now() - t0} ms`);
  }
  const fts = await fts5Runs(c.docs, c.queries, 80);
  const ftsRuns = new Map(Object.entries(fts.runs));
  const base = evaluate(c, ftsRuns);
  const ref = new Map([...base.per].map(([id, s]) => [id, s.ndcg10]));
  const rows: Row[] = [{ name: 'SQLite FTS5 bm25(), porter', ...base.row }];
  const only = arg('--only');
  const indexes = new Map<number, Index>();
  for (const v of VARIANTS.filter((x) => !only || x.name.includes(only))) {
    const tw = v.titleW ?? 1;
    const ix = indexes.get(tw) ?? indexes.set(tw, buildIndex(cache, tw)).get(tw)!;
    const runs = new Map(cache.queries.map((q) => [q.id, rank(ix, q, v, 80).map((d) => cache.docs[d].id)]));
    rows.push({ name: v.name, ...evaluate(c, runs, ref).row });
    console.error(JSON.stringify(rows[rows.length - 1]));
  }
  console.log(
    '| variant (nDCG@10) | all | even ids | odd ids | − FTS5 (± s.e.) | MRR@10 | recall@10 | worse / better than FTS5 |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows)
    console.log(
      `| ${r.name} | ${r.all.toFixed(3)} | ${r.even.toFixed(3)} | ${r.odd.toFixed(3)} | ${r === rows[0] ? '' : `${r.diff >= 0 ? '+' : '−'}${Math.abs(r.diff).toFixed(4)} ± ${r.se.toFixed(4)}`} | ${r.mrr.toFixed(3)} | ${r.r10.toFixed(3)} | ${r === rows[0] ? '' : `${r.worse} / ${r.better}`} |`,
    );
}

const VARIANTS: Variant[] = [
  { name: 'shipped (k1 1.2, b 0.75, common-word skip)' },
  { name: 'no common-word skip', skip: false },
  // (1) passage evidence
  ...[0.25, 0.5, 1].flatMap((lambda) =>
    (['sent', 'pair', 'triple'] as const).map((kind) => ({
      name: `+ ${lambda} × best ${kind} (BM25, same IDF)`,
      passage: { lambda, kind },
    })),
  ),
  { name: '+ 0.5 × best sentence or title', passage: { lambda: 0.5, kind: 'sent', title: true } },
  { name: '+ 0.5 × best sentence, b 0.3', passage: { lambda: 0.5, kind: 'sent', b: 0.3 } },
  { name: '+ 0.5 × best pair, k1 2', passage: { lambda: 0.5, kind: 'pair', k1: 2 } },
  { name: 'max(doc, best pair)', passage: { lambda: 1, kind: 'pair', mode: 'max' } },
  // (2) query likelihood, Dirichlet
  ...[300, 1000, 2000].map((mu) => ({ name: `QL Dirichlet μ ${mu} alone`, ql: { mu, alpha: 0 } })),
  ...[0.3, 0.5, 0.7].map((alpha) => ({
    name: `${alpha} × BM25 + ${(1 - alpha).toFixed(1)} × QL μ 1000 (min-max)`,
    ql: { mu: 1000, alpha },
  })),
  ...[0.5, 1].map((raw) => ({ name: `BM25 + ${raw} × QL μ 1000 (raw)`, ql: { mu: 1000, alpha: 0, raw } })),
  // (3) IDF and length variants
  { name: 'IDF ln((N − df + .5)/(df + .5)), floor 0 (FTS5/RSJ)', idf: 'rsj' },
  { name: 'IDF ln(N/df)', idf: 'classic' },
  ...[0.5, 1].map((plus) => ({ name: `BM25+ δ ${plus}`, plus })),
  ...[0.25, 0.5].map((bm25l) => ({ name: `BM25L δ ${bm25l}`, bm25l })),
  // (4) sequential dependence
  ...[0.1, 0.2, 0.4].map((lo) => ({
    name: `SDM ordered (gap ≤ 2) ${lo}, unordered (≤ 8) ${lo / 2}`,
    sdm: { ow: 2, uw: 8, lo, lu: lo / 2 },
  })),
  { name: 'SDM ordered only (gap ≤ 2) 0.2', sdm: { ow: 2, uw: 8, lo: 0.2, lu: 0 } },
  // (5) morphological variants
  ...[0.2, 0.4].map((gamma) => ({
    name: `variants (prefix, ≤ 3 letters apart) × ${gamma}`,
    soft: { gamma, minLen: 4, maxDiff: 3 },
  })),
  // The best of each family together.
  {
    name: 'combined: IDF ln(N/df), + 0.25 × best pair, variants × 0.2, no skip',
    idf: 'classic',
    skip: false,
    passage: { lambda: 0.25, kind: 'pair' },
    soft: { gamma: 0.2, minLen: 4, maxDiff: 3 },
  },
];

if (require.main === module) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
