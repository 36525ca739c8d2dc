// Per-page content hashes for re-parse diffing. A page hash covers what the page shows: its
// geometry, its decoded content streams, the resources those streams name (fonts, images, forms,
// deeply) and its visible annotations. Object numbers, parents and lengths are left out so the
// same page in another file (or another version of this file) hashes the same.
import { createHash } from 'node:crypto';
import {
  PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef, PDFStream, decodePDFRawStream, type PDFObject,
} from 'pdf-lib';

const SKIP_KEYS = new Set(['Parent', 'P', 'StructParent', 'StructParents', 'Length', 'Annots', 'B', 'Thumb', 'PieceInfo', 'LastModified', 'Metadata', 'ID']);
const RESOURCE_KINDS = ['Font', 'XObject', 'ExtGState', 'ColorSpace', 'Pattern', 'Shading', 'Properties'];

export async function pdfPageHashes(bytes: Uint8Array): Promise<string[]> {
  const doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  const hasher = new ObjectHasher(doc);
  return doc.getPages().map((page) => hasher.page(page.node));
}

class ObjectHasher {
  private readonly memo = new Map<string, string>();
  private readonly busy = new Set<string>();
  constructor(private readonly doc: PDFDocument) {}

  page(node: PDFDict): string {
    const h = createHash('sha256');
    const get = (key: string) => inherited(node, key);
    for (const key of ['MediaBox', 'CropBox', 'Rotate', 'UserUnit']) h.update(`${key}=${this.digest(get(key))};`);
    const content = this.contentBytes(node.get(PDFName.of('Contents')));
    h.update('content:').update(content);
    // Only resources the content actually names: a resource dictionary shared by every page
    // would otherwise make every page change when one page's font changes.
    const names = new Set<string>();
    for (const m of content.toString('latin1').matchAll(/\/([^\s/[\]<>(){}%]+)/g)) names.add(m[1]!);
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
        for (const key of ['Subtype', 'Rect', 'AP', 'FT', 'V', 'Contents', 'F']) h.update(`annot.${key}=${this.digest(d.get(PDFName.of(key)))};`);
      }
    }
    return h.digest('hex');
  }

  private resolve(obj: PDFObject | undefined): PDFObject | undefined {
    return obj instanceof PDFRef ? this.doc.context.lookup(obj) : obj;
  }

  private contentBytes(obj: PDFObject | undefined): Buffer {
    const v = this.resolve(obj);
    if (v instanceof PDFArray) return Buffer.concat(v.asArray().map((x) => Buffer.concat([this.contentBytes(x), Buffer.from('\n')])));
    if (v instanceof PDFStream) return streamBytes(v, true);
    return Buffer.alloc(0);
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
      for (const [k, v] of sortedEntries(obj.dict)) if (!SKIP_KEYS.has(k) && !(form && k === 'Filter')) h.update(`/${k} ${this.digest(v)}`);
      // Form XObjects are content: decode them so a re-compressed copy hashes the same.
      return h.update(streamBytes(obj, form)).digest('hex');
    }
    return obj.toString();
  }
}

function streamBytes(s: PDFStream, decode: boolean): Buffer {
  if (s instanceof PDFRawStream) {
    if (decode) {
      try {
        return Buffer.from(decodePDFRawStream(s).decode());
      } catch {
        // Unsupported filter or damaged data: the raw bytes still identify the content.
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

function sortedEntries(d: PDFDict): Array<[string, PDFObject]> {
  return d.entries().map(([k, v]) => [k.asString().slice(1), v] as [string, PDFObject]).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
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
