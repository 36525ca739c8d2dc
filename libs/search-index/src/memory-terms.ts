// Compact stores for the in-memory copy of a knowledge base (issue 22.5, search tail latency).
//
// A copy of 200,000 segments held ~125,000 terms as Map entries, each a string, an object and three
// typed arrays, and 200,000 uuid strings: millions of small heap objects that every full garbage
// collection walks, so a search landing on one waited for it (p99). Here the terms are UTF-8 bytes in
// one buffer found through an open-addressing hash table, every term's postings sit in a few shared
// typed arrays, and the segment ids are one byte buffer: a handful of objects, whatever the size.
// A term's arrays are handed out as views (subarrays) only when a search asks for the term.

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A term of the copy as a search reads it: views into the store's shared arrays. */
export interface Term {
  /** The term's number in its store (stable; keys per-term caches). */
  no: number;
  df: number;
  /** Segment numbers (ascending) holding the term, and the term frequency in each. */
  segs: Int32Array;
  tfs: Float32Array | Float64Array;
  /** Distinct file numbers of those segments. */
  files: Int32Array;
}

/** A copy of `a` with room for at least `need` elements (doubling). */
function grown<T extends Int32Array | Float64Array | Uint8Array>(a: T, need: number): T {
  if (need <= a.length) return a;
  let n = Math.max(16, a.length);
  while (n < need) n *= 2;
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

/** FNV-1a over bytes [from, to) of `b`. */
function hashBytes(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i], 0x01000193);
  return h | 0;
}

/**
 * Terms → document frequency and postings. Terms are added (add) before or while their postings
 * are set (setPostings, once per term); finish() trims the arrays and keeps term frequencies as
 * Float32 unless one of them is not exactly representable there (then all stay Float64, so the
 * scoring loop sees one array type).
 */
/** Slots of a store's hash table holding `terms` terms: a power of two from 64, kept at most half full. */
export function hashSlots(terms: number): number {
  let slots = 64;
  while (2 * terms > slots) slots *= 2;
  return slots;
}

export class TermStore {
  private bytes = new Uint8Array(1024);
  private byteLen = 0;
  /** Term i's bytes are bytes[start[i], start[i + 1]). */
  private start = new Int32Array(64);
  private hashes = new Int32Array(64);
  private dfs = new Float64Array(64);
  /** Open addressing, linear probing: term number + 1, 0 = empty. Kept at most half full. */
  private table = new Int32Array(hashSlots(0));
  private count = 0;
  private postStart = new Int32Array(64);
  private postLen = new Int32Array(64);
  private fileStart = new Int32Array(64);
  private fileLen = new Int32Array(64);
  private segsAll = new Int32Array(1024);
  private tf64: Float64Array | undefined = new Float64Array(1024);
  private tfs: Float32Array | Float64Array = new Float64Array(0);
  private filesAll = new Int32Array(1024);
  private nPost = 0;
  private nFiles = 0;
  private exact32 = true;
  /** Scratch for a looked-up term's bytes. */
  private key = new Uint8Array(256);

  get size(): number {
    return this.count;
  }

  /** Postings over all terms. */
  get postings(): number {
    return this.nPost;
  }

  /** Bytes the store's arrays take (not counting the few objects around them). */
  get byteSize(): number {
    return (
      this.bytes.byteLength +
      this.start.byteLength * 8 +
      this.table.byteLength +
      this.segsAll.byteLength +
      this.tfs.byteLength +
      (this.tf64?.byteLength ?? 0) +
      this.filesAll.byteLength
    );
  }

  /** Encodes `term` into this.key; its byte length. */
  private encode(term: string): number {
    if (this.key.length < term.length * 3) this.key = new Uint8Array(term.length * 3);
    return encoder.encodeInto(term, this.key).written;
  }

  /** The slot holding term bytes key[0, len) with hash h, or the empty slot where it would go. */
  private slotOf(len: number, h: number): number {
    const mask = this.table.length - 1;
    const key = this.key;
    for (let i = h & mask, n = 0; ; i = (i + 1) & mask, n++) {
      // A full table would be probed forever: say so (add grows it long before).
      if (n > mask) throw new Error('TermStore: hash table full');
      const e = this.table[i];
      if (e === 0) return i;
      const t = e - 1;
      if (this.hashes[t] !== h) continue;
      const a = this.start[t];
      if (this.start[t + 1] - a !== len) continue;
      let j = 0;
      while (j < len && this.bytes[a + j] === key[j]) j++;
      if (j === len) return i;
    }
  }

  /** The term's number, or -1. */
  find(term: string): number {
    const len = this.encode(term);
    const e = this.table[this.slotOf(len, hashBytes(this.key, 0, len))];
    return e - 1;
  }

  /** Adds `term` (or finds it) with document frequency `df`; its number. */
  add(term: string, df: number): number {
    const len = this.encode(term);
    const h = hashBytes(this.key, 0, len);
    let slot = this.slotOf(len, h);
    if (this.table[slot] !== 0) {
      const t = this.table[slot] - 1;
      this.dfs[t] = df;
      return t;
    }
    // Grow before the table is more than half full: probing a full table would never end.
    if (hashSlots(this.count + 1) > this.table.length) {
      this.rehash(hashSlots(this.count + 1));
      slot = this.slotOf(len, h);
    }
    const t = this.count++;
    const n = this.count + 1;
    this.start = grown(this.start, n);
    this.hashes = grown(this.hashes, n);
    this.dfs = grown(this.dfs, n);
    this.postStart = grown(this.postStart, n);
    this.postLen = grown(this.postLen, n);
    this.fileStart = grown(this.fileStart, n);
    this.fileLen = grown(this.fileLen, n);
    this.bytes = grown(this.bytes, this.byteLen + len);
    this.bytes.set(this.key.subarray(0, len), this.byteLen);
    this.start[t] = this.byteLen;
    this.byteLen += len;
    this.start[t + 1] = this.byteLen;
    this.hashes[t] = h;
    this.dfs[t] = df;
    this.table[slot] = t + 1;
    return t;
  }

  private rehash(size: number): void {
    const table = new Int32Array(size);
    const mask = size - 1;
    for (let t = 0; t < this.count; t++) {
      let i = this.hashes[t] & mask;
      while (table[i] !== 0) i = (i + 1) & mask;
      table[i] = t + 1;
    }
    this.table = table;
  }

  /** The text of term number `t`. */
  termAt(t: number): string {
    return decoder.decode(this.bytes.subarray(this.start[t], this.start[t + 1]));
  }

  /** Sets term `t`'s postings (segment numbers ascending, their tfs) and distinct files. */
  setPostings(t: number, segs: ArrayLike<number>, tfs: ArrayLike<number>, files: ArrayLike<number>): void {
    const tf64 = this.tf64;
    if (!tf64) throw new Error('TermStore: postings set after finish()');
    const k = segs.length;
    this.segsAll = grown(this.segsAll, this.nPost + k);
    const tf = grown(tf64, this.nPost + k);
    this.tf64 = tf;
    for (let j = 0; j < k; j++) {
      this.segsAll[this.nPost + j] = segs[j];
      const v = tfs[j];
      tf[this.nPost + j] = v;
      if (Math.fround(v) !== v) this.exact32 = false;
    }
    this.postStart[t] = this.nPost;
    this.postLen[t] = k;
    this.nPost += k;
    this.filesAll = grown(this.filesAll, this.nFiles + files.length);
    for (let j = 0; j < files.length; j++) this.filesAll[this.nFiles + j] = files[j];
    this.fileStart[t] = this.nFiles;
    this.fileLen[t] = files.length;
    this.nFiles += files.length;
  }

  /**
   * Ends loading: trims the arrays (the per-term ones too: grown by doubling, they would otherwise
   * hold up to twice the 32 bytes a term needs); term frequencies go to Float32 when all are exact there.
   */
  finish(): this {
    const tf64 = this.tf64;
    if (!tf64) return this;
    const n = this.count;
    this.start = this.start.slice(0, n + 1);
    this.hashes = this.hashes.slice(0, n);
    this.dfs = this.dfs.slice(0, n);
    this.postStart = this.postStart.slice(0, n);
    this.postLen = this.postLen.slice(0, n);
    this.fileStart = this.fileStart.slice(0, n);
    this.fileLen = this.fileLen.slice(0, n);
    this.segsAll = this.segsAll.slice(0, this.nPost);
    this.filesAll = this.filesAll.slice(0, this.nFiles);
    this.tfs = this.exact32 ? Float32Array.from(tf64.subarray(0, this.nPost)) : tf64.slice(0, this.nPost);
    this.tf64 = undefined;
    this.bytes = this.bytes.slice(0, this.byteLen);
    return this;
  }

  /** Term `t` as a search reads it. */
  termOf(t: number): Term {
    const tfs = this.tf64 ?? this.tfs;
    const p = this.postStart[t];
    const k = this.postLen[t];
    const f = this.fileStart[t];
    return {
      no: t,
      df: this.dfs[t],
      segs: this.segsAll.subarray(p, p + k),
      tfs: tfs.subarray(p, p + k),
      files: this.filesAll.subarray(f, f + this.fileLen[t]),
    };
  }

  get(term: string): Term | undefined {
    const t = this.find(term);
    return t < 0 ? undefined : this.termOf(t);
  }
}

/** Strings (segment ids) packed as UTF-8 in one buffer; decoded one at a time when asked for. */
export class PackedStrings {
  readonly length: number;
  private readonly bytes: Uint8Array;
  private readonly offsets: Int32Array;

  constructor(xs: ArrayLike<string>) {
    this.length = xs.length;
    this.offsets = new Int32Array(xs.length + 1);
    let bytes = new Uint8Array(Math.max(16, xs.length * 36));
    let n = 0;
    for (let i = 0; i < xs.length; i++) {
      const s = xs[i];
      bytes = grown(bytes, n + s.length * 3);
      n += encoder.encodeInto(s, bytes.subarray(n)).written;
      this.offsets[i + 1] = n;
    }
    this.bytes = bytes.slice(0, n);
  }

  at(i: number): string {
    return decoder.decode(this.bytes.subarray(this.offsets[i], this.offsets[i + 1]));
  }
}
