// A small PDF object tokenizer for page-count-head.ts: parses one object at a time (dictionaries,
// arrays, names, numbers, references, strings skipped) from a window of the file, and says when the
// window ran out (Eof) so the caller can read a larger one. Bounded: nesting depth and array length.
export type Obj = number | string | boolean | null | Ref | Name | Obj[] | Dict;
export class Ref {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}
export class Name {
  constructor(readonly name: string) {}
}
export type Dict = Map<string, Obj>;

/** Bounds against hostile files: every read and every chain is capped. */
export const LIMITS = {
  tail: 4096,
  chunk: 64 * 1024,
  xrefSections: 64,
  xrefBytes: 64 * 1024 * 1024,
  streamBytes: 32 * 1024 * 1024,
  depth: 32,
};

export class Bail extends Error {}
/** The window read ran out before the object did: read a larger one. */
export class Eof extends Bail {}
export const bail = (why: string): never => {
  throw new Bail(why);
};

const WS = new Set([0x00, 0x09, 0x0a, 0x0c, 0x0d, 0x20]);
const DELIM = new Set([0x28, 0x29, 0x3c, 0x3e, 0x5b, 0x5d, 0x7b, 0x7d, 0x2f, 0x25]);

/** A tokenizer over a byte buffer that parses one PDF object at a time (no streams' contents). */
export class Lexer {
  constructor(
    readonly buf: Buffer,
    public pos = 0,
    /** The buffer is a window of the file: a token that touches its end may be cut short. */
    readonly partial = false,
  ) {}
  private end(): never {
    throw new Eof('object runs past the window read');
  }
  private skipWs() {
    const b = this.buf;
    for (;;) {
      while (this.pos < b.length && WS.has(b[this.pos]!)) this.pos++;
      if (b[this.pos] === 0x25) {
        while (this.pos < b.length && b[this.pos] !== 0x0a && b[this.pos] !== 0x0d) this.pos++;
        continue;
      }
      return;
    }
  }
  word(): string {
    this.skipWs();
    const start = this.pos;
    while (this.pos < this.buf.length && !WS.has(this.buf[this.pos]!) && !DELIM.has(this.buf[this.pos]!)) this.pos++;
    if (this.pos >= this.buf.length && this.partial) this.end();
    return this.buf.toString('latin1', start, this.pos);
  }
  peekWord(): string {
    const p = this.pos;
    const w = this.word();
    this.pos = p;
    return w;
  }
  obj(depth = 0): Obj {
    if (depth > LIMITS.depth) bail('nesting too deep');
    this.skipWs();
    const b = this.buf;
    const c = b[this.pos];
    if (c === undefined) return this.partial ? this.end() : bail('unexpected end');
    if (c === 0x2f) {
      this.pos++;
      const start = this.pos;
      while (this.pos < b.length && !WS.has(b[this.pos]!) && !DELIM.has(b[this.pos]!)) this.pos++;
      if (this.pos >= b.length && this.partial) this.end();
      return new Name(
        b
          .toString('latin1', start, this.pos)
          .replace(/#([0-9a-fA-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))),
      );
    }
    if (c === 0x3c && b[this.pos + 1] === 0x3c) {
      this.pos += 2;
      const d: Dict = new Map();
      for (;;) {
        this.skipWs();
        if (b[this.pos] === 0x3e && b[this.pos + 1] === 0x3e) {
          this.pos += 2;
          return d;
        }
        const k = this.obj(depth + 1);
        if (!(k instanceof Name)) bail('dictionary key is not a name');
        d.set((k as Name).name, this.obj(depth + 1));
      }
    }
    if (c === 0x3c) {
      const end = b.indexOf(0x3e, this.pos);
      if (end < 0) return this.partial ? this.end() : bail('unterminated hex string');
      this.pos = end + 1;
      return '';
    }
    if (c === 0x28) {
      // Literal string: balanced parentheses, backslash escapes; content is not needed.
      let nest = 0;
      for (; this.pos < b.length; this.pos++) {
        const x = b[this.pos];
        if (x === 0x5c) this.pos++;
        else if (x === 0x28) nest++;
        else if (x === 0x29 && --nest === 0) {
          this.pos++;
          return '';
        }
      }
      return this.partial ? this.end() : bail('unterminated string');
    }
    if (c === 0x5b) {
      this.pos++;
      const a: Obj[] = [];
      for (;;) {
        this.skipWs();
        if (b[this.pos] === 0x5d) {
          this.pos++;
          return a;
        }
        if (this.pos >= b.length) return this.partial ? this.end() : bail('unterminated array');
        a.push(this.obj(depth + 1));
        if (a.length > 1_000_000) bail('array too long');
      }
    }
    const w = this.word();
    if (!w) bail(`unexpected byte ${c}`);
    if (w === 'true') return true;
    if (w === 'false') return false;
    if (w === 'null') return null;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(w)) bail(`unexpected token ${w.slice(0, 20)}`);
    const n = Number(w);
    // `n g R`: an indirect reference.
    if (/^\d+$/.test(w)) {
      const save = this.pos;
      const g = this.word();
      if (/^\d+$/.test(g) && this.word() === 'R') return new Ref(n, Number(g));
      this.pos = save;
    }
    return n;
  }
}
