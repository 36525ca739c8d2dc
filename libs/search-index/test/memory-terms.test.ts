// Issue 22.5: the in-memory copy's compact term store (memory-terms.ts). Its hash table must grow
// before it is full (a previous version did not and looped past 32 terms), keep every term findable
// through growth, compare terms as UTF-8 bytes (unicode), keep term frequencies exact, and say "no"
// for terms it does not hold.
import { retainedBytes } from '@docfleet/testing';
import { estimateLoadedBytes } from '../src/memory-search';
import { PackedStrings, TermStore } from '../src/memory-terms';

function fill(n: number, name: (i: number) => string): TermStore {
  const s = new TermStore();
  for (let i = 0; i < n; i++) {
    const t = s.add(name(i), i + 1);
    s.setPostings(t, [i, i + 1], [1, 0.5 + i], [i % 7]);
  }
  return s.finish();
}

describe('TermStore', () => {
  it.each([33, 64, 65, 1000, 8000])('finds each of %i terms with its df and postings after growing', (n) => {
    const s = fill(n, (i) => `term${i}`);
    expect(s.size).toBe(n);
    for (let i = 0; i < n; i++) {
      const t = s.get(`term${i}`);
      expect(t?.df).toBe(i + 1);
      expect(Array.from(t!.segs)).toEqual([i, i + 1]);
      expect(Array.from(t!.tfs)).toEqual([1, 0.5 + i]);
      expect(Array.from(t!.files)).toEqual([i % 7]);
      expect(s.termAt(t!.no)).toBe(`term${i}`);
    }
    expect(s.postings).toBe(2 * n);
  });

  it('says no for terms it does not hold, also ones sharing a prefix or bytes', () => {
    const s = fill(5000, (i) => `w${i}`);
    for (const x of ['', 'w', 'w5000', 'w-1', 'w10000', 'W1', 'w1 ', 'x1']) {
      expect(s.get(x)).toBeUndefined();
      expect(s.find(x)).toBe(-1);
    }
  });

  it('keeps unicode terms apart and finds them by their text', () => {
    const words = ['straße', 'strasse', 'café', 'cafe', 'naïve', 'Ωmega', '東京', '東', '🙂', 'ﬁle', 'e\u0301'];
    const s = fill(words.length, (i) => words[i]);
    words.forEach((w, i) => {
      expect(s.get(w)?.df).toBe(i + 1);
      expect(s.termAt(s.find(w))).toBe(w);
    });
    expect(s.get('é')).toBeUndefined();
    // Many thousands of non-ASCII terms through growth.
    const many = fill(8000, (i) => `ключ${i}東`);
    for (let i = 0; i < 8000; i += 97) expect(many.get(`ключ${i}東`)?.df).toBe(i + 1);
  });

  it('adding a term again keeps one entry and takes the new df', () => {
    const s = new TermStore();
    expect(s.add('a', 3)).toBe(0);
    expect(s.add('b', 1)).toBe(1);
    expect(s.add('a', 5)).toBe(0);
    expect(s.size).toBe(2);
    expect(s.finish().get('a')?.df).toBe(5);
  });

  it('keeps tfs in Float32 when all are exact there, else all in Float64, every value exact', () => {
    const a = fill(40, (i) => `t${i}`);
    expect(a.get('t3')!.tfs).toBeInstanceOf(Float32Array);
    const s = new TermStore();
    s.setPostings(s.add('x', 2), [0, 1], [1.5, 2], [0]);
    s.setPostings(s.add('y', 1), [2], [0.1], [0]);
    s.finish();
    expect(s.get('x')!.tfs).toBeInstanceOf(Float64Array);
    expect(Array.from(s.get('y')!.tfs)).toEqual([0.1]);
    expect(Array.from(s.get('x')!.tfs)).toEqual([1.5, 2]);
    const t = s.get('y')!;
    expect(t.segs.length).toBe(1);
    expect(t.files.length).toBe(1);
  });

  it('retains what the memory estimate counts per term and posting once finished (its arrays trimmed)', () => {
    // Just past a power of two (262,144): the per-term arrays were grown to twice the terms. Large
    // enough (~17 MB) that what else a shared jest worker frees or keeps between the two readings
    // (a few hundred kB) stays well inside the tolerance.
    const n = 263_000;
    const names = Array.from({ length: n }, (_, i) => `w${i.toString(36)}`);
    const termBytes = names.reduce((a, w) => a + Buffer.byteLength(w), 0);
    let s: TermStore | undefined = new TermStore();
    names.forEach((w, i) => s!.setPostings(s!.add(w, 1), [i], [1], [i % 50]));
    s.finish();
    expect(s.size).toBe(n);
    // What letting go of the store frees: read after the build rather than before it, so garbage of
    // earlier tests in a shared jest worker (array buffers are freed off the main thread) cannot
    // leave between the two readings and be counted against the store.
    const withStore = retainedBytes();
    s = undefined;
    const measured = withStore - retainedBytes();
    const estimate = estimateLoadedBytes({ segments: 0, postings: n, terms: n, termBytes, files: 50 });
    // Untrimmed, the per-term arrays alone would add ~30 bytes a term: ~1.45 × the estimate.
    expect(estimate / measured).toBeGreaterThan(0.9);
    expect(estimate / measured).toBeLessThan(1.1);
  });

  it('a term without postings has empty arrays', () => {
    const s = new TermStore();
    s.add('only-df', 4);
    s.finish();
    const t = s.get('only-df')!;
    expect(t.df).toBe(4);
    expect(t.segs.length).toBe(0);
    expect(t.tfs.length).toBe(0);
  });
});

describe('PackedStrings', () => {
  it('gives back each string', () => {
    const xs = Array.from({ length: 3000 }, (_, i) => (i % 5 ? `00000000-0000-4000-8000-${i}` : `ü${i}🙂`));
    const p = new PackedStrings(xs);
    expect(p.length).toBe(3000);
    xs.forEach((x, i) => expect(p.at(i)).toBe(x));
  });
});
