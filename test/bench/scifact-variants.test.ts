// bench/eval/scifact-variants.ts, the offline ranking variants of issue 22: the sentence split, the
// shipped BM25 formula on hand-made analyser output, and what the passage and variant options change.
import { buildIndex, rank, sentences, type Cache, type Lex } from '../../bench/eval/scifact-variants';

// Analyser output as search_lexemes() gives it: lexeme → positions, in order of appearance.
const lex = (words: string): Lex => {
  const m = new Map<string, number[]>();
  words.split(' ').forEach((w, i) => m.set(w, [...(m.get(w) ?? []), i + 1]));
  return [...m];
};
const doc = (id: string, sents: string[], title = '') => ({
  id,
  title: title ? lex(title) : [],
  body: lex(sents.join(' ')),
  name: lex(`scifact ${id}`),
  sents: sents.map(lex),
});
const query = (id: string, words: string) => ({
  id,
  terms: words.split(' ').map((term, i) => ({ term, pos: i + 1 })),
  synonyms: [],
});

describe('scifact-variants', () => {
  it('splits an abstract into sentences after . ! ? before a capital, digit or bracket', () => {
    expect(sentences('Cells grew. 3 mice died! (A) was seen? yes e.g. this. End')).toEqual([
      'Cells grew.',
      '3 mice died!',
      '(A) was seen? yes e.g. this.',
      'End',
    ]);
  });

  it('scores BM25 as textSearchSql: rarer words and shorter documents first, common words skipped', () => {
    const pad = Array.from({ length: 5 }, (_, i) => doc(`p${i}`, ['pad']));
    const cache: Cache = {
      docs: [
        doc('1', ['fibrosi liver liver protein', 'other word here now']),
        doc('2', ['fibrosi liver']),
        doc('3', ['protein cell']),
        doc('4', ['protein cell']),
        doc('5', ['protein cell']),
        ...pad,
      ],
      queries: [],
    };
    const ix = buildIndex(cache, 1);
    // Both hold fibrosi and liver: the short one first.
    expect(rank(ix, query('q', 'fibrosi liver protein'), {}, 10)).toEqual([1, 0]);
    // protein is in 4 of 10 documents (over the 0.25 share): read only when no rarer word is asked.
    expect(rank(ix, query('q', 'liver protein'), {}, 10)).toEqual([1, 0]);
    expect(rank(ix, query('q', 'liver protein'), { skip: false }, 10)).toEqual([0, 1, 2, 3, 4]);
    expect(rank(ix, query('q', 'protein'), {}, 10)).toEqual([2, 3, 4, 0]);
  });

  it('adds the best passage: the words together in one sentence lift a document', () => {
    const cache: Cache = {
      docs: [
        doc('1', ['alpha x y z', 'beta x y z']),
        doc('2', ['alpha beta x y', 'x y z z']),
        doc('3', ['gamma']),
        doc('4', ['gamma']),
      ],
      queries: [],
    };
    const ix = buildIndex(cache, 1);
    const q = query('q', 'alpha beta');
    // Same words, same lengths: BM25 ties and the lower index comes first.
    expect(rank(ix, q, {}, 10)).toEqual([0, 1]);
    expect(rank(ix, q, { passage: { lambda: 0.5, kind: 'sent' } }, 10)).toEqual([1, 0]);
  });

  it('matches morphological variants of a query lexeme at weight gamma', () => {
    const cache: Cache = {
      docs: [doc('1', ['inhibitor']), doc('2', ['inhibit other']), doc('3', ['more']), doc('4', ['more'])],
      queries: [],
    };
    const ix = buildIndex(cache, 1);
    expect(rank(ix, query('q', 'inhibit'), {}, 10)).toEqual([1]);
    expect(rank(ix, query('q', 'inhibit'), { soft: { gamma: 0.2, minLen: 4, maxDiff: 3 } }, 10)).toEqual([1, 0]);
  });
});
