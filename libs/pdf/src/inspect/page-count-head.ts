// The page count of a PDF read from its structure alone: startxref → xref sections (tables or
// xref streams, following /Prev and /XRefStm through incremental updates, newest entry wins) →
// trailer /Root → catalog /Pages → /Count. Reads a few kilobytes wherever they lie in the file, so
// the gateway's estimate of a 10,000-page PDF costs the same as that of a 1-page one (pdf.js's
// getDocument walks the page tree to the last page: seconds and ~160 MiB for 10,000 pages).
//
// It is an estimate, not a verdict: /Count is what the file claims. A file that lies (a /Count of 1
// over 9,000 pages) reserves too little, and the worker's real count rules: it refuses a document
// over MAX_PAGES and never debits past the reservation. Anything this reader does not understand
// (broken xref, encryption of the catalog, a dictionary it cannot tokenise) returns null and the
// caller falls back to the full load.
import { open, type FileHandle } from 'node:fs/promises';
import { inflateSync } from 'node:zlib';
import { Bail, Eof, LIMITS, Lexer, Name, Ref, bail, type Dict, type Obj } from './pdf-lexer';

interface XrefEntry {
  type: 1 | 2;
  /** type 1: byte offset; type 2: object stream number. */
  a: number;
  /** type 2: index in the object stream. */
  b: number;
}

class Reader {
  readonly xref = new Map<number, XrefEntry>();
  trailer: Dict | null = null;
  private readonly objStreams = new Map<number, { first: number; offsets: Map<number, number>; data: Buffer }>();
  constructor(
    private readonly fh: FileHandle,
    readonly size: number,
  ) {}

  async read(pos: number, len: number): Promise<Buffer> {
    if (pos < 0 || pos >= this.size) bail('offset outside the file');
    const n = Math.min(len, this.size - pos);
    const buf = Buffer.alloc(n);
    const { bytesRead } = await this.fh.read(buf, 0, n, pos);
    return buf.subarray(0, bytesRead);
  }

  async startxref(): Promise<number> {
    const from = Math.max(0, this.size - LIMITS.tail);
    const tail = (await this.read(from, LIMITS.tail)).toString('latin1');
    const at = tail.lastIndexOf('startxref');
    if (at < 0) bail('no startxref');
    const m = /^startxref\s+(\d+)/.exec(tail.slice(at));
    if (!m) bail('startxref without an offset');
    return Number(m![1]);
  }

  /** Reads every xref section from the newest backwards; the first entry seen for an object wins. */
  async loadXref(start: number) {
    const seen = new Set<number>();
    const queue = [start];
    let bytes = 0;
    while (queue.length) {
      const off = queue.shift()!;
      if (seen.has(off)) continue;
      if (seen.size >= LIMITS.xrefSections) bail('too many xref sections');
      seen.add(off);
      const head = await this.read(off, 32);
      let trailer: Dict;
      if (head.toString('latin1').trimStart().startsWith('xref')) {
        const r = await this.readTable(off);
        trailer = r.trailer;
        bytes += r.bytes;
      } else {
        const { dict, data } = await this.streamAt(off);
        if (!(dict.get('Type') instanceof Name) || (dict.get('Type') as Name).name !== 'XRef')
          bail('startxref does not point at an xref');
        this.readXrefStream(dict, data);
        trailer = dict;
        bytes += data.length;
      }
      if (bytes > LIMITS.xrefBytes) bail('xref too large');
      this.trailer ??= trailer;
      const stm = trailer.get('XRefStm');
      if (typeof stm === 'number') queue.unshift(stm); // hybrid file: its stream belongs to this section
      const prev = trailer.get('Prev');
      if (typeof prev === 'number') queue.push(prev);
    }
    if (!this.trailer) bail('no trailer');
  }

  private async readTable(off: number): Promise<{ trailer: Dict; bytes: number }> {
    let chunk = await this.read(off, LIMITS.chunk);
    let text = chunk.toString('latin1');
    // Grow the window until the trailer dictionary is in it.
    while (!/trailer\s*<</.test(text) && off + chunk.length < this.size && chunk.length < LIMITS.xrefBytes) {
      chunk = await this.read(off, chunk.length * 4);
      text = chunk.toString('latin1');
    }
    const t = /trailer\s*<</.exec(text);
    if (!t) bail('xref table without a trailer');
    const body = text.slice(4, t!.index);
    const re = /(\d+)\s+(\d+)\s*((?:\d{10}\s+\d{5}\s+[nf]\s*)*)/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(body))) {
      const first = Number(m[1]);
      const rows = m[3]!.match(/\d{10}\s+\d{5}\s+[nf]/g) ?? [];
      rows.forEach((row, i) => {
        const [o, , kind] = row.split(/\s+/);
        const num = first + i;
        if (!this.xref.has(num) && kind === 'n') this.xref.set(num, { type: 1, a: Number(o), b: 0 });
        else if (!this.xref.has(num)) this.xref.set(num, { type: 1, a: -1, b: 0 });
      });
      if (!m[0]) re.lastIndex++;
    }
    const lx = new Lexer(chunk, t!.index + t![0].length - 2, off + chunk.length < this.size);
    const trailer = lx.obj();
    if (!(trailer instanceof Map)) bail('trailer is not a dictionary');
    return { trailer: trailer as Dict, bytes: t!.index };
  }

  private readXrefStream(dict: Dict, data: Buffer) {
    const w = dict.get('W');
    if (!Array.isArray(w) || w.length !== 3 || !w.every((x) => typeof x === 'number' && x >= 0 && x <= 8))
      bail('bad /W');
    const [w0, w1, w2] = w as number[];
    const size = dict.get('Size');
    const index = (dict.get('Index') as Obj[] | undefined) ?? [0, size];
    if (!Array.isArray(index) || index.length % 2 || !index.every((x) => typeof x === 'number')) bail('bad /Index');
    const rowLen = w0! + w1! + w2!;
    if (!rowLen) bail('empty xref rows');
    const num = (p: number, len: number) => {
      let v = 0;
      for (let i = 0; i < len; i++) v = v * 256 + data[p + i]!;
      return v;
    };
    let p = 0;
    for (let k = 0; k < index.length; k += 2) {
      const first = index[k] as number;
      const count = index[k + 1] as number;
      for (let i = 0; i < count; i++, p += rowLen) {
        if (p + rowLen > data.length) bail('xref stream shorter than its /Index');
        const type = w0 ? num(p, w0) : 1;
        const n = first + i;
        if (this.xref.has(n)) continue;
        if (type === 1) this.xref.set(n, { type: 1, a: num(p + w0!, w1!), b: 0 });
        else if (type === 2) this.xref.set(n, { type: 2, a: num(p + w0!, w1!), b: num(p + w0! + w1!, w2!) });
        else this.xref.set(n, { type: 1, a: -1, b: 0 });
      }
    }
  }

  /** `n g obj <<…>> stream … endstream` at `off`: its dictionary and decoded data. */
  private async streamAt(off: number): Promise<{ dict: Dict; data: Buffer }> {
    const chunk = await this.read(off, LIMITS.chunk);
    const lx = new Lexer(chunk, 0, off + chunk.length < this.size);
    if (!/^\d+$/.test(lx.word()) || !/^\d+$/.test(lx.word()) || lx.word() !== 'obj') bail('no object at offset');
    const dict = lx.obj();
    if (!(dict instanceof Map)) bail('stream without a dictionary');
    if (lx.word() !== 'stream') bail('object is not a stream');
    let p = lx.pos;
    if (chunk[p] === 0x0d) p++;
    if (chunk[p] === 0x0a) p++;
    const start = off + p;
    let len = (dict as Dict).get('Length');
    if (len instanceof Ref) len = await this.resolve(len);
    let raw: Buffer;
    if (typeof len === 'number' && len >= 0 && len <= LIMITS.streamBytes) raw = await this.read(start, len);
    else {
      // No usable /Length: up to `endstream`.
      const rest = await this.read(start, LIMITS.streamBytes);
      const end = rest.indexOf('endstream');
      if (end < 0) bail('stream without an end');
      raw = rest.subarray(0, end);
    }
    return { dict: dict as Dict, data: this.decode(dict as Dict, raw) };
  }

  private decode(dict: Dict, raw: Buffer): Buffer {
    const f = dict.get('Filter');
    const filters = (Array.isArray(f) ? f : f ? [f] : []) as Obj[];
    let data = raw;
    for (const x of filters) {
      if (!(x instanceof Name) || x.name !== 'FlateDecode') bail('unsupported stream filter');
      data = inflateSync(data, { maxOutputLength: LIMITS.streamBytes });
    }
    const parms = dict.get('DecodeParms');
    const pr = parms instanceof Map ? parms.get('Predictor') : undefined;
    if (typeof pr === 'number' && pr >= 10) {
      const cols = ((parms as Dict).get('Columns') as number) ?? 1;
      data = unpredictPng(data, cols);
    } else if (typeof pr === 'number' && pr > 1) bail('unsupported predictor');
    return data;
  }

  async resolve(ref: Obj, depth = 0): Promise<Obj> {
    if (!(ref instanceof Ref)) return ref;
    if (depth > LIMITS.depth) bail('reference chain too long');
    const e = this.xref.get(ref.num);
    if (!e || (e.type === 1 && e.a < 0)) bail(`object ${ref.num} not in the xref`);
    if (e!.type === 1) return this.resolve(await this.objectAt(e!.a, ref.num), depth + 1);
    const os = await this.objStream(e!.a);
    const at = os.offsets.get(ref.num);
    if (at === undefined) bail(`object ${ref.num} missing from its object stream`);
    return this.resolve(new Lexer(os.data, os.first + at!).obj(), depth + 1);
  }

  /** The object `num` at byte `off`, reading a larger window while it runs past the one read. */
  private async objectAt(off: number, num: number): Promise<Obj> {
    for (let len = LIMITS.chunk; ; len *= 4) {
      const chunk = await this.read(off, len);
      const lx = new Lexer(chunk, 0, off + chunk.length < this.size);
      try {
        if (Number(lx.word()) !== num || !/^\d+$/.test(lx.word()) || lx.word() !== 'obj')
          bail(`object ${num} is not at its offset`);
        return lx.obj();
      } catch (err) {
        if (!(err instanceof Eof) || len >= LIMITS.streamBytes) throw err;
      }
    }
  }

  private async objStream(num: number) {
    let os = this.objStreams.get(num);
    if (os) return os;
    const e = this.xref.get(num);
    if (!e || e.type !== 1 || e.a < 0) bail('object stream not found');
    const { dict, data } = await this.streamAt(e!.a);
    const n = dict.get('N');
    const first = dict.get('First');
    if (typeof n !== 'number' || typeof first !== 'number') bail('bad object stream');
    const lx = new Lexer(data);
    const offsets = new Map<number, number>();
    for (let i = 0; i < (n as number); i++) offsets.set(Number(lx.word()), Number(lx.word()));
    os = { first: first as number, offsets, data };
    if (this.objStreams.size > 16) this.objStreams.clear();
    this.objStreams.set(num, os);
    return os;
  }
}

function unpredictPng(data: Buffer, cols: number): Buffer {
  const rowLen = cols + 1;
  const rows = Math.floor(data.length / rowLen);
  const out = Buffer.alloc(rows * cols);
  let prev = Buffer.alloc(cols);
  for (let r = 0; r < rows; r++) {
    const type = data[r * rowLen]!;
    const row = Buffer.from(data.subarray(r * rowLen + 1, (r + 1) * rowLen));
    for (let i = 0; i < cols; i++) {
      const left = i ? row[i - 1]! : 0;
      const up = prev[i]!;
      const ul = i ? prev[i - 1]! : 0;
      if (type === 1) row[i] = (row[i]! + left) & 0xff;
      else if (type === 2) row[i] = (row[i]! + up) & 0xff;
      else if (type === 3) row[i] = (row[i]! + ((left + up) >> 1)) & 0xff;
      else if (type === 4) {
        const p = left + up - ul;
        const pa = Math.abs(p - left);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - ul);
        row[i] = (row[i]! + (pa <= pb && pa <= pc ? left : pb <= pc ? up : ul)) & 0xff;
      } else if (type !== 0) bail('bad PNG predictor row');
    }
    row.copy(out, r * cols);
    prev = row;
  }
  return out;
}

/**
 * /Count of the page tree's root as the file states it, or null when the structure cannot be read
 * this way (the caller then loads the document). Never throws.
 */
export async function pageCountFromTrailer(filePath: string): Promise<number | null> {
  let fh: FileHandle | undefined;
  try {
    fh = await open(filePath, 'r');
    const r = new Reader(fh, (await fh.stat()).size);
    await r.loadXref(await r.startxref());
    if (r.trailer!.has('Encrypt')) return null; // strings encrypted, objects fine, but leave it to pdf.js
    const root = await r.resolve(r.trailer!.get('Root') ?? null);
    if (!(root instanceof Map)) return null;
    const pages = await r.resolve(root.get('Pages') ?? null);
    if (!(pages instanceof Map)) return null;
    const count = await r.resolve(pages.get('Count') ?? null);
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) return null;
    return count;
  } catch (err) {
    if (err instanceof Bail || err instanceof RangeError || (err as NodeJS.ErrnoException).code?.startsWith('Z_'))
      return null;
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw err;
    return null;
  } finally {
    await fh?.close();
  }
}
