// Levenshtein ratio as the py-pdf text-extraction benchmark computes it (python-Levenshtein's
// `ratio`): the InDel similarity 1 − (insertions + deletions) / (|a| + |b|) = 2·LCS / (|a| + |b|),
// where a substitution costs two. The longest common subsequence is computed bit-parallel
// (Allison-Dix / Hyyrö: V' = (V + (V & M)) | (V & ~M)), O(|a|·|b| / 32): two 150k-character
// documents take a few seconds.

export function lcsLength(a: string, b: string): number {
  if (a.length < b.length) [a, b] = [b, a];
  // a (the longer) is the bit vector; b is scanned character by character.
  const n = a.length;
  if (n === 0 || b.length === 0) return 0;
  const words = Math.ceil(n / 32);
  const masks = new Map<number, Uint32Array>();
  for (let i = 0; i < n; i++) {
    const c = a.charCodeAt(i);
    let m = masks.get(c);
    if (!m) {
      m = new Uint32Array(words);
      masks.set(c, m);
    }
    m[i >>> 5]! |= 1 << (i & 31);
  }
  const v = new Uint32Array(words).fill(0xffffffff);
  const lastBits = n & 31;
  if (lastBits) v[words - 1] = (2 ** lastBits - 1) >>> 0;
  for (let j = 0; j < b.length; j++) {
    const m = masks.get(b.charCodeAt(j));
    if (!m) continue;
    let carry = 0;
    for (let k = 0; k < words; k++) {
      const vk = v[k]!;
      const mk = m[k]!;
      const u = (vk & mk) >>> 0;
      const sum = vk + u + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      v[k] = ((sum >>> 0) | (vk & ~mk)) >>> 0;
    }
    if (lastBits) v[words - 1] = (v[words - 1]! & (2 ** lastBits - 1)) >>> 0;
  }
  let ones = 0;
  for (let k = 0; k < words; k++) {
    let x = v[k]!;
    x -= (x >>> 1) & 0x55555555;
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    ones += (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
  }
  return n - ones;
}

/** python-Levenshtein `ratio`: 2·LCS / (|a| + |b|); 1 for two empty strings. */
export function levenshteinRatio(a: string, b: string): number {
  const total = a.length + b.length;
  return total === 0 ? 1 : (2 * lcsLength(a, b)) / total;
}

/** Plain O(|a|·|b|) LCS, the reference the fast version is tested against. */
export function lcsReference(a: string, b: string): number {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    const cur = [0];
    for (let j = 1; j <= b.length; j++)
      cur[j] = a[i - 1] === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    prev = cur;
  }
  return prev[b.length]!;
}
