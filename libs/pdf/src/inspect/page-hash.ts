// Per-page content hashes for re-parse diffing. A page hash covers what the page shows: its
// geometry, its decoded content streams, the resources those streams name (fonts, images, forms,
// deeply) and its visible annotations. Object numbers, parents and lengths are left out so the
// same page in another file (or another version of this file) hashes the same.
// Decoding is bounded: Flate streams are inflated by zlib in chunks straight into the hash (a page
// content stream of nine million operators is 126 MB decoded, and pdf-lib's own decoder held
// several copies of it), at most MAX_DECODED bytes of one stream; past that, or for a filter zlib
// does not speak, the encoded bytes identify the stream.
import { createHash, type Hash } from 'node:crypto';
import { constants as zc, createInflate, inflateSync } from 'node:zlib';
import {
  PDFArray,
  PDFDict,
  PDFDocument,
  PDFName,
  PDFNumber,
  PDFRawStream,
  PDFRef,
  PDFStream,
  decodePDFRawStream,
  type PDFObject,
} from 'pdf-lib';

const SKIP_KEYS = new Set([
  'Parent',
  'P',
  'StructParent',
  'StructParents',
  'Length',
  'Annots',
  'B',
  'Thumb',
  'PieceInfo',
  'LastModified',
  'Metadata',
  'ID',
]);
const RESOURCE_KINDS = ['Font', 'XObject', 'ExtGState', 'ColorSpace', 'Pattern', 'Shading', 'Properties'];

/** Decoded bytes of one stream that are hashed (and scanned for resource names) at most. */
const MAX_DECODED = 256 << 20;
/** Form XObjects are decoded in memory (synchronously), so at most this much. */
const MAX_FORM_DECODED = 32 << 20;
/** Resource names collected from one page's content; past this every resource of the page is hashed. */
const MAX_NAMES = 4096;

export interface PdfPageTree {
  hashes: string[];
  /** What the page tree root's /Count claims (a damaged or hostile file may claim a million). */
  claimedCount: number | null;
}

export async function pdfPageHashes(bytes: Uint8Array): Promise<string[]> {
  return (await pdfPageTree(bytes)).hashes;
}

export async function pdfPageTree(bytes: Uint8Array): Promise<PdfPageTree> {
  const doc = await PDFDocument.load(bytes, {
    ignoreEncryption: true,
    updateMetadata: false,
    throwOnInvalidObject: false,
  });
  const count = doc.catalog
    .lookupMaybe(PDFName.of('Pages'), PDFDict)
    ?.lookupMaybe(PDFName.of('Count'), PDFNumber)
    ?.asNumber();
  const hasher = new ObjectHasher(doc);
  const hashes: string[] = [];
  for (const page of doc.getPages()) hashes.push(await hasher.page(page.node));
  return { hashes, claimedCount: typeof count === 'number' && Number.isFinite(count) ? count : null };
}

class ObjectHasher {
  private readonly memo = new Map<string, string>();
  private readonly busy = new Set<string>();
  constructor(private readonly doc: PDFDocument) {}

  async page(node: PDFDict): Promise<string> {
    const h = createHash('sha256');
    const get = (key: string) => inherited(node, key);
    for (const key of ['MediaBox', 'CropBox', 'Rotate', 'UserUnit']) h.update(`${key}=${this.digest(get(key))};`);
    h.update('content:');
    // Only resources the content actually names: a resource dictionary shared by every page
    // would otherwise make every page change when one page's font changes.
    const names = new NameScanner();
    await this.hashContent(node.get(PDFName.of('Contents')), h, names);
    const res = this.resolve(get('Resources'));
    if (res instanceof PDFDict) {
      for (const kind of RESOURCE_KINDS) {
        const sub = this.resolve(res.get(PDFName.of(kind)));
        if (!(sub instanceof PDFDict)) continue;
        for (const [k, v] of sortedEntries(sub)) if (names.has(k)) h.update(`${kind}/${k}=${this.digest(v)};`);
      }
    }
    const annots = this.resolve(node.get(PDFName.of('Annots')));
    if (annots instanceof PDFArray) {
      for (const a of annots.asArray()) {
        const d = this.resolve(a);
        if (!(d instanceof PDFDict)) continue;
        for (const key of ['Subtype', 'Rect', 'AP', 'FT', 'V', 'Contents', 'F'])
          h.update(`annot.${key}=${this.digest(d.get(PDFName.of(key)))};`);
      }
    }
    return h.digest('hex');
  }

  private resolve(obj: PDFObject | undefined): PDFObject | undefined {
    return obj instanceof PDFRef ? this.doc.context.lookup(obj) : obj;
  }

  /** Feeds the decoded content stream(s) to the hash and the name scanner (array parts end with a newline). */
  private async hashContent(obj: PDFObject | undefined, h: Hash, names: NameScanner, depth = 0): Promise<void> {
    const v = this.resolve(obj);
    if (v instanceof PDFArray && depth === 0) {
      for (const x of v.asArray()) {
        await this.hashContent(x, h, names, 1);
        h.update('\n');
        names.feed(NEWLINE);
      }
    } else if (v instanceof PDFStream) {
      await decodeInto(v, MAX_DECODED, (chunk) => {
        h.update(chunk);
        names.feed(chunk);
      });
      if (depth === 0) names.feed(NEWLINE); // ends a name at the very end of the stream
    }
  }

  /** Canonical digest of any object; indirect objects are memoised so shared fonts hash once. */
  digest(obj: PDFObject | undefined): string {
    if (obj === undefined) return '-';
    if (obj instanceof PDFRef) {
      const tag = obj.toString();
      const hit = this.memo.get(tag);
      if (hit) return hit;
      if (this.busy.has(tag)) return 'cycle';
      this.busy.add(tag);
      const d = this.digest(this.doc.context.lookup(obj));
      this.busy.delete(tag);
      this.memo.set(tag, d);
      return d;
    }
    if (obj instanceof PDFDict && !(obj instanceof PDFStream)) {
      const h = createHash('sha1').update('<<');
      for (const [k, v] of sortedEntries(obj)) if (!SKIP_KEYS.has(k)) h.update(`/${k} ${this.digest(v)}`);
      return h.update('>>').digest('hex');
    }
    if (obj instanceof PDFArray) {
      const h = createHash('sha1').update('[');
      for (const v of obj.asArray()) h.update(this.digest(v) + ' ');
      return h.update(']').digest('hex');
    }
    if (obj instanceof PDFStream) {
      const h = createHash('sha1').update('stream');
      const form = obj.dict.get(PDFName.of('Subtype'))?.toString() === '/Form';
      for (const [k, v] of sortedEntries(obj.dict))
        if (!SKIP_KEYS.has(k) && !(form && k === 'Filter')) h.update(`/${k} ${this.digest(v)}`);
      // Form XObjects are content: decode them so a re-compressed copy hashes the same.
      return h.update(streamBytes(obj, form)).digest('hex');
    }
    return obj.toString();
  }
}

const NEWLINE = Buffer.from('\n');

/** A stream's bytes as the hash sees them: decoded when it is content (bounded), else as stored. */
function streamBytes(s: PDFStream, decode: boolean): Buffer {
  if (s instanceof PDFRawStream) {
    if (decode) {
      const flate = flateOnly(s);
      if (flate) {
        try {
          return inflateSync(s.contents, { finishFlush: zc.Z_SYNC_FLUSH, maxOutputLength: MAX_FORM_DECODED });
        } catch {
          return Buffer.from(s.contents); // over the cap or damaged: the encoded bytes identify it
        }
      }
      if (s.contents.length <= MAX_FORM_DECODED / 64) {
        try {
          return Buffer.from(decodePDFRawStream(s).decode());
        } catch {
          // Unsupported filter or damaged data: the raw bytes still identify the content.
        }
      }
    }
    return Buffer.from(s.contents);
  }
  try {
    return Buffer.from(s.getContents());
  } catch {
    return Buffer.alloc(0);
  }
}

/** Whether the stream's only filter is FlateDecode without a predictor (what zlib decodes as is). */
function flateOnly(s: PDFRawStream): boolean {
  const f = s.dict.get(PDFName.of('Filter'));
  const name = f instanceof PDFArray ? (f.size() === 1 ? f.get(0) : undefined) : f;
  if (name?.toString() !== '/FlateDecode') return false;
  const parms = s.dict.get(PDFName.of('DecodeParms'));
  return (
    parms === undefined ||
    parms.toString() === 'null' ||
    (parms instanceof PDFDict && !parms.has(PDFName.of('Predictor')))
  );
}

/**
 * Decodes a content stream into `sink` in chunks, at most `max` bytes (then the encoded bytes are
 * added, so two bombs that differ past the cap still hash apart). Without zlib (other filters) the
 * stream goes through pdf-lib's decoder when it is small, else its encoded bytes are used.
 */
async function decodeInto(s: PDFStream, max: number, sink: (chunk: Buffer) => void): Promise<void> {
  if (!(s instanceof PDFRawStream) || !flateOnly(s)) {
    sink(streamBytes(s, true));
    return;
  }
  const inflate = createInflate({ finishFlush: zc.Z_SYNC_FLUSH, chunkSize: 1 << 20 });
  let total = 0;
  let capped = false;
  try {
    inflate.end(Buffer.from(s.contents.buffer, s.contents.byteOffset, s.contents.byteLength));
    for await (const chunk of inflate as AsyncIterable<Buffer>) {
      const room = max - total;
      if (chunk.length > room) {
        sink(chunk.subarray(0, room));
        capped = true;
        break;
      }
      total += chunk.length;
      sink(chunk);
    }
  } catch {
    capped = true; // damaged data: what was decoded plus the encoded bytes identify it
  } finally {
    inflate.destroy();
  }
  if (capped) sink(Buffer.from(s.contents));
}

/** Collects `/Name` tokens from content bytes fed in chunks (a token may span two chunks). */
class NameScanner {
  private readonly names = new Set<string>();
  private overflow = false;
  private partial: number[] | null = null;

  /** True when the content names `name`, or when it named too many to track (then everything counts). */
  has(name: string): boolean {
    return this.overflow || this.names.has(name);
  }

  feed(chunk: Uint8Array): void {
    if (this.overflow) return;
    let cur = this.partial;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk[i]!;
      if (cur) {
        if (isDelimiter(c)) {
          if (cur.length) this.add(cur);
          cur = c === 0x2f ? [] : null;
        } else if (cur.length < 127) {
          cur.push(c);
        }
      } else if (c === 0x2f) {
        cur = [];
      }
    }
    this.partial = cur;
  }

  private add(bytes: number[]): void {
    this.names.add(String.fromCharCode(...bytes));
    if (this.names.size > MAX_NAMES) this.overflow = true;
  }
}

/** Whitespace and the delimiters that end a name: / [ ] < > ( ) { } % */
function isDelimiter(c: number): boolean {
  return (
    c <= 0x20 ||
    c === 0x2f ||
    c === 0x5b ||
    c === 0x5d ||
    c === 0x3c ||
    c === 0x3e ||
    c === 0x28 ||
    c === 0x29 ||
    c === 0x7b ||
    c === 0x7d ||
    c === 0x25
  );
}

function sortedEntries(d: PDFDict): Array<[string, PDFObject]> {
  return d
    .entries()
    .map(([k, v]) => [k.asString().slice(1), v] as [string, PDFObject])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function inherited(node: PDFDict, key: string): PDFObject | undefined {
  let cur: PDFDict | undefined = node;
  for (let depth = 0; cur && depth < 32; depth++) {
    const v = cur.get(PDFName.of(key));
    if (v !== undefined) return v;
    const parent: PDFObject | undefined = cur.get(PDFName.of('Parent'));
    const next: PDFObject | undefined = parent instanceof PDFRef ? cur.context.lookup(parent) : parent;
    cur = next instanceof PDFDict ? next : undefined;
  }
  return undefined;
}
