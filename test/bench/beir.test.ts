// bench/eval/beir.ts, the BEIR side of `pnpm eval:search`: a collection read from the BEIR layout,
// BEIR's metrics on hand-computed rankings, the --max-queries sample, and the SQLite FTS5 baseline
// (python3's sqlite3) ranking a small collection.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beirCollections, fts5Runs, loadBeir, meanScores, sampleQueries, scoreRun } from '../../bench/eval/beir';

describe('BEIR collections for eval:search', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'beir-'));
    const c = path.join(dir, 'g_retrieval', 'tiny');
    await mkdir(path.join(c, 'qrels'), { recursive: true });
    await mkdir(path.join(dir, 'g_retrieval', 'not-a-collection'), { recursive: true });
    const docs = [
      {
        _id: 'd1',
        title: 'Fibrosis in the liver',
        text: 'Hepatic fibrosis follows chronic injury; fibrosis scores rose.',
      },
      { _id: 'd2', title: 'Protein folding', text: 'Chaperones assist protein folding in the cell.' },
      { _id: 'd3', title: 'Arp2/3 complex', text: 'The Arp2/3 complex nucleates branched actin filaments.' },
    ];
    await writeFile(path.join(c, 'corpus.jsonl'), docs.map((d) => JSON.stringify(d)).join('\n') + '\n');
    const queries = [
      { _id: 'q1', text: 'liver fibrosis' },
      { _id: 'q2', text: 'actin branching by Arp2/3' },
      { _id: 'q3', text: 'unjudged query' },
    ];
    await writeFile(path.join(c, 'queries-train.jsonl'), queries.map((q) => JSON.stringify(q)).join('\n') + '\n');
    await writeFile(
      path.join(c, 'qrels', 'train.tsv'),
      'query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td3\t1\nq2\td2\t0\n',
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('finds the collections under g_retrieval and keeps only judged queries and positive judgments', async () => {
    const dirs = await beirCollections(dir);
    expect(dirs.map((d) => path.basename(d))).toEqual(['tiny']);
    const c = await loadBeir(dirs[0]);
    expect(c.split).toBe('train');
    expect(c.docs).toHaveLength(3);
    expect(c.queries.map((q) => q.id)).toEqual(['q1', 'q2']);
    expect([...c.qrels.get('q2')!.keys()]).toEqual(['d3']);
    expect(await beirCollections(path.join(dir, 'missing'))).toEqual([]);
  });

  it('scores like BEIR: nDCG@10 with log2 discount, MRR@10, recall@10 and @80', () => {
    const rel = new Map([
      ['a', 1],
      ['b', 1],
    ]);
    const s = scoreRun(['x', 'a', 'y', 'b'], rel);
    const ideal = 1 + 1 / Math.log2(3);
    expect(s.ndcg10).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(5)) / ideal, 10);
    expect(s.mrr10).toBeCloseTo(0.5, 10);
    expect(s.recall10).toBe(1);
    const far = scoreRun([...Array.from({ length: 20 }, (_, i) => `n${i}`), 'a'], rel);
    expect(far).toEqual({ ndcg10: 0, mrr10: 0, recall10: 0, recall80: 0.5 });
    expect(meanScores([s, far]).recall80).toBe(0.75);
  });

  it('samples --max-queries evenly in file order, and all queries without it', () => {
    const qs = Array.from({ length: 10 }, (_, i) => i);
    expect(sampleQueries(qs, 4)).toEqual([0, 2, 5, 7]);
    expect(sampleQueries(qs, 10)).toEqual(qs);
    expect(sampleQueries(qs)).toEqual(qs);
  });

  it('ranks with SQLite FTS5 bm25() over the same texts', async () => {
    const c = await loadBeir(path.join(dir, 'g_retrieval', 'tiny'));
    const { runs, ms } = await fts5Runs(c.docs, c.queries, 80);
    expect(runs.q1[0]).toBe('d1');
    expect(runs.q2[0]).toBe('d3');
    expect(ms).toHaveLength(2);
  });
});
