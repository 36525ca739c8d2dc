// Levenshtein distance with Myers' bit-parallel algorithm (Hyyrö's multi-block form): O(n·m/32),
// fast enough to compare whole documents (50k × 50k characters in well under a second).

const peq = new Uint32Array(0x10000);

function myers32(a: string, b: string): number {
  // Requires a.length <= 32 and a.length >= 1.
  const n = a.length;
  const m = b.length;
  const lst = 1 << (n - 1);
  let pv = -1,
    mv = 0,
    sc = n;
  for (let i = n; i--;) peq[a.charCodeAt(i)]! |= 1 << i;
  for (let i = 0; i < m; i++) {
    let eq = peq[b.charCodeAt(i)]!;
    const xv = eq | mv;
    eq |= ((eq & pv) + pv) ^ pv;
    mv |= ~(eq | pv);
    pv &= eq;
    if (mv & lst) sc++;
    if (pv & lst) sc--;
    mv = (mv << 1) | 1;
    pv = (pv << 1) | ~(xv | mv);
    mv &= xv;
  }
  for (let i = n; i--;) peq[a.charCodeAt(i)] = 0;
  return sc;
}

function myersX(b: string, a: string): number {
  // b is the longer-or-equal string split in 32-char vertical blocks; a runs horizontally.
  const n = a.length;
  const m = b.length;
  const hsize = Math.ceil(n / 32);
  const vsize = Math.ceil(m / 32);
  const mhc = new Int32Array(hsize);
  const phc = new Int32Array(hsize).fill(-1);
  let j = 0;
  for (; j < vsize - 1; j++) {
    let mv = 0,
      pv = -1;
    const start = j * 32;
    const vlen = Math.min(32, m) + start;
    for (let k = start; k < vlen; k++) peq[b.charCodeAt(k)]! |= 1 << k;
    for (let i = 0; i < n; i++) {
      const eq = peq[a.charCodeAt(i)]!;
      const pb = (phc[(i / 32) | 0]! >>> i) & 1;
      const mb = (mhc[(i / 32) | 0]! >>> i) & 1;
      const xv = eq | mv;
      const xh = ((((eq | mb) & pv) + pv) ^ pv) | eq | mb;
      let ph = mv | ~(xh | pv);
      let mh = pv & xh;
      if ((ph >>> 31) ^ pb) phc[(i / 32) | 0]! ^= 1 << i;
      if ((mh >>> 31) ^ mb) mhc[(i / 32) | 0]! ^= 1 << i;
      ph = (ph << 1) | pb;
      mh = (mh << 1) | mb;
      pv = mh | ~(xv | ph);
      mv = ph & xv;
    }
    for (let k = start; k < vlen; k++) peq[b.charCodeAt(k)] = 0;
  }
  let mv = 0,
    pv = -1;
  const start = j * 32;
  const vlen = Math.min(32, m - start) + start;
  for (let k = start; k < vlen; k++) peq[b.charCodeAt(k)]! |= 1 << k;
  let score = m;
  for (let i = 0; i < n; i++) {
    const eq = peq[a.charCodeAt(i)]!;
    const pb = (phc[(i / 32) | 0]! >>> i) & 1;
    const mb = (mhc[(i / 32) | 0]! >>> i) & 1;
    const xv = eq | mv;
    const xh = ((((eq | mb) & pv) + pv) ^ pv) | eq | mb;
    let ph = mv | ~(xh | pv);
    let mh = pv & xh;
    score += (ph >>> ((m - 1) % 32)) & 1;
    score -= (mh >>> ((m - 1) % 32)) & 1;
    if ((ph >>> 31) ^ pb) phc[(i / 32) | 0]! ^= 1 << i;
    if ((mh >>> 31) ^ mb) mhc[(i / 32) | 0]! ^= 1 << i;
    ph = (ph << 1) | pb;
    mh = (mh << 1) | mb;
    pv = mh | ~(xv | ph);
    mv = ph & xv;
  }
  for (let k = start; k < vlen; k++) peq[b.charCodeAt(k)] = 0;
  return score;
}

export function levenshtein(a: string, b: string): number {
  if (a.length < b.length) [a, b] = [b, a];
  if (b.length === 0) return a.length;
  return b.length <= 32 ? myers32(b, a) : myersX(a, b);
}

/** Plain O(n·m) dynamic programme; the reference the fast version is tested against. */
export function levenshteinReference(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    prev = cur;
  }
  return prev[b.length]!;
}
