// Deterministic synthetic text for search tests and benches: a seeded PRNG and words whose
// frequencies follow a Zipf-like law (a few in most segments, most in few), so ranking code meets
// common and rare terms as in real text, and every run indexes and asks the same things.

/** Deterministic PRNG (mulberry32): numbers in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `size` made-up words (none of them a real word, so no stemmer or stop list touches them). */
export const syntheticVocabulary = (size = 400): string[] =>
  Array.from({ length: size }, (_, i) => `w${(i * 7919).toString(36)}x${'abcdefghij'[i % 10]}`);

/** A text generator over `vocab`: word i is drawn about as often as 1/(i+1) (the first ones are the commonest). */
export function zipfText(vocab: string[], seed: number): (words: number) => string {
  const rand = rng(seed);
  const zipf = () => vocab[Math.min(vocab.length - 1, Math.floor(Math.exp(rand() * Math.log(vocab.length + 1)) - 1))];
  return (n) => Array.from({ length: n }, zipf).join(' ');
}
