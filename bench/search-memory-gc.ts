// Issue 22.5: the gateway's in-memory BM25 copy and V8's full-GC pauses, old structure vs new, same run.
// Run: node --expose-gc --import tsx bench/search-memory-gc.ts
//
// A synthetic knowledge base as search-bm25.bench.ts builds it (SciFact passages of 60 words, four
// corpus words and a number added; BENCH_GC_SEGMENTS segments, 200,000 by default, 20 to a file) is
// turned into the copy's term structure twice: the old one (a Map of term → object with three typed
// arrays, an array of segment-id strings) and, where this tree has it, the new one (memory-terms.ts:
// TermStore, PackedStrings). For each: the heap it retains, and global.gc() timed with only it alive.
// The answers of scoreCandidates (200 queries of search-bm25's generator, with and without a filter:
// 400) come from the structure this tree's KbCopy uses; BENCH_GC_DUMP=file writes them, so a run on
// main and one on the branch can be compared byte for byte.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import * as lib from '../libs/search-index/src';
import { loadBeir } from './eval/beir';
import { benchQueries, benchWords } from './search-bm25.bench';
import { rng } from './search.bench';

const SEGMENTS = Number(process.env.BENCH_GC_SEGMENTS ?? 200_000);
const PER_FILE = 20;
const CORPUS = process.env.DOCFLEET_CORPUS ?? path.resolve(__dirname, '../../shared/corpus');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const ext = lib as unknown as Record<string, unknown>;
const TermStore = ext.TermStore as (new () => lib.TermStore) | undefined;
const PackedStrings = ext.PackedStrings as (new (xs: string[]) => lib.PackedStrings) | undefined;

const tokens = (s: string) => s.toLowerCase().match(/[a-z0-9]+/g) ?? [];

interface Corpus {
  terms: Map<string, { segs: number[]; tfs: number[] }>;
  segDl: Float64Array;
  segFile: Int32Array;
  segIds: string[];
}

async function corpus(): Promise<{ make: () => Corpus; queries: string[] }> {
  const sci = await loadBeir(path.join(CORPUS, 'g_retrieval/scifact'));
  const words = benchWords(sci);
  const queries = benchQueries(sci, words, 200);
  const make = (): Corpus => {
    const rand = rng(42);
    const terms = new Map<string, { segs: number[]; tfs: number[] }>();
    const segDl = new Float64Array(SEGMENTS);
    const segFile = new Int32Array(SEGMENTS);
    const segIds: string[] = [];
    for (let s = 0; s < SEGMENTS; s++) {
      const d = sci.docs[Math.floor(rand() * sci.docs.length)];
      const w = (d.text || d.title).split(/\s+/);
      const start = Math.floor(rand() * Math.max(1, w.length - 60));
      const extra = Array.from({ length: 4 }, () => words[Math.floor(rand() * words.length)]).join(' ');
      const toks = tokens(`${w.slice(start, start + 60).join(' ')} ${extra} ${Math.floor(rand() * 100000)}`);
      const tf = new Map<string, number>();
      for (const t of toks) tf.set(t, (tf.get(t) ?? 0) + 1);
      for (const [t, n] of tf) {
        let p = terms.get(t);
        if (!p) terms.set(t, (p = { segs: [], tfs: [] }));
        p.segs.push(s);
        p.tfs.push(n);
      }
      segDl[s] = toks.length;
      segFile[s] = Math.floor(s / PER_FILE);
      segIds.push(`00000000-0000-4000-8000-${s.toString(16).padStart(12, '0')}`);
    }
    return { terms, segDl, segFile, segIds };
  };
  return { make, queries };
}

const filesOf = (segs: number[], segFile: Int32Array) => [...new Set(segs.map((s) => segFile[s]))];

function oldStructure(c: Corpus) {
  const terms = new Map<string, { df: number; segs: Int32Array; tfs: Float32Array; files: Int32Array }>();
  for (const [t, p] of c.terms)
    terms.set(t, {
      df: p.segs.length,
      segs: Int32Array.from(p.segs),
      tfs: Float32Array.from(p.tfs),
      files: Int32Array.from(filesOf(p.segs, c.segFile)),
    });
  return { terms, segIds: c.segIds.slice() };
}

function newStructure(c: Corpus) {
  const terms = new TermStore!();
  for (const [t, p] of c.terms)
    terms.setPostings(terms.add(t, p.segs.length), p.segs, p.tfs, filesOf(p.segs, c.segFile));
  return { terms: terms.finish(), segIds: new PackedStrings!(c.segIds) };
}

function copyOf(c: Corpus, s: { terms: unknown; segIds: unknown }): lib.KbCopy {
  const fileIds = Array.from({ length: Math.ceil(SEGMENTS / PER_FILE) }, (_, f) => `f${f}`);
  const total = c.segDl.reduce((a, b) => a + b, 0);
  return {
    kbId: 'kb',
    orgId: 'org',
    version: '1',
    n: SEGMENTS,
    avgdl: total / SEGMENTS,
    segIds: s.segIds as lib.KbCopy['segIds'],
    segFile: c.segFile,
    segDl: c.segDl,
    segTable: Uint8Array.from({ length: SEGMENTS }, (_, i) => (i % 23 === 0 ? 1 : 0)),
    segVersion: new Int32Array(SEGMENTS),
    segOrdinal: Int32Array.from({ length: SEGMENTS }, (_, i) => i % PER_FILE),
    versionIds: ['v'],
    fragments: new Map(),
    fileIds,
    fileIndex: new Map(fileIds.map((id, f) => [id, f])),
    terms: s.terms as lib.KbCopy['terms'],
    postings: 0,
    bytes: 0,
    loadMs: 0,
    stale: false,
  };
}

const used = () => {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed;
};

function gcPauses(n = 5): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    gc!();
    out.push(Math.round((performance.now() - t0) * 10) / 10);
  }
  return out;
}

/** Builds one structure, reports its heap and GC pauses; the answers when `answer`. Nothing outlives it. */
function phase(kind: 'old' | 'new', make: () => Corpus, queries: string[], answer: boolean): string[] | undefined {
  const base = used();
  let c: Corpus | undefined = make();
  const built = kind === 'old' ? oldStructure(c) : newStructure(c);
  const { segDl, segFile } = c;
  const terms = c.terms.size;
  c = undefined; // only the structure (and the segment arrays both share) stays alive
  const heap = used() - base;
  const pauses = gcPauses();
  process.stdout.write(
    `${kind}: ${SEGMENTS} segments, ${terms} terms, heap retained ${(heap / 2 ** 20).toFixed(1)} MiB, ` +
      `full GC ms [${pauses.join(', ')}], array buffers ${(process.memoryUsage().arrayBuffers / 2 ** 20).toFixed(1)} MiB\n`,
  );
  if (!answer) return undefined;
  const copy = copyOf({ terms: new Map(), segDl, segFile, segIds: [] }, built);
  const out: string[] = [];
  for (const q of queries)
    for (const body of [{ limit: 10 }, { limit: 10, table_only: true }]) {
      const lex = [...new Set(tokens(q))].map((term) => ({ term, w: 1 }));
      const got = lib.scoreCandidates(copy, lex, lib.normaliseSearchBody({ query: q, ...body }));
      out.push(JSON.stringify({ q, body, tiers: got.tiers.map((t) => [t.ids, t.scores]) }));
    }
  return out;
}

async function main() {
  const { make, queries } = await corpus();
  const treeIsNew = typeof TermStore === 'function';
  const kinds = treeIsNew ? (['old', 'new'] as const) : (['old'] as const);
  process.stdout.write(`baseline (no copy): full GC ms [${gcPauses().join(', ')}]\n`);
  let answers: string[] = [];
  for (const kind of kinds) {
    const a = phase(kind, make, queries, (kind === 'new') === treeIsNew);
    if (a) answers = a;
  }
  process.stdout.write(`${answers.length} answers\n`);
  if (process.env.BENCH_GC_DUMP) writeFileSync(process.env.BENCH_GC_DUMP, answers.join('\n') + '\n');
}

void main().catch((e) => {
  console.error(e);
  process.exit(1);
});
