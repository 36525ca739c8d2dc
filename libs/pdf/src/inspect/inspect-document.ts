// inspectDocument: page count, per-page content hashes and the auto-backend decision, the
// three things the worker needs before it decides what to parse and what to charge.
import { createHash } from 'node:crypto';
import { openPdf, readPdfBytes, toParseError } from '../pdfjs-loader';
import { ParseError } from '../parse-error';
import { imagePageCount, loadImagePage, type DecodedImage } from '../render/image-input';
import { decidePdfBackend, type BackendDecision } from './backend-decision';
import { pdfPageHashes } from './page-hash';

export type InputKind = 'pdf' | 'image';

export interface InspectOptions {
  /** Refuse documents with more pages than this (ParseError 'too_many_pages'). */
  maxPages?: number;
  /** Skip the backend decision (e.g. when the caller forces a backend). */
  decideBackend?: boolean;
  /**
   * Images: keep the decoded pixels of a single-page image (`decodedImage`) so parsePages can take
   * them instead of decoding the file a second time.
   */
  keepImage?: boolean;
}

export interface InspectResult {
  kind: InputKind;
  pageCount: number;
  pageHashes: string[];
  backend: BackendDecision;
  /** With `keepImage`, for a single-page image: pass it to parsePages as `decodedImage`. */
  decodedImage?: DecodedImage;
}

export async function inspectDocument(path: string, kind: InputKind, opts: InspectOptions = {}): Promise<InspectResult> {
  return kind === 'pdf' ? inspectPdf(path, opts) : inspectImage(path, opts);
}

async function inspectPdf(path: string, opts: InspectOptions): Promise<InspectResult> {
  const bytes = await readPdfBytes(path);
  const doc = await openPdf(path, bytes);
  try {
    const pageCount = doc.numPages;
    if (opts.maxPages !== undefined && pageCount > opts.maxPages) {
      throw new ParseError('too_many_pages', `The PDF has ${pageCount} pages; the limit is ${opts.maxPages}.`);
    }
    let pageHashes: string[];
    try {
      pageHashes = await pdfPageHashes(bytes);
      if (pageHashes.length !== pageCount) throw new Error('page tree mismatch');
    } catch {
      // pdf-lib could not walk this file the way pdf.js does: fall back to hashing what pdf.js sees.
      pageHashes = await pdfjsPageHashes(doc);
    }
    const backend = opts.decideBackend === false
      ? { backend: 'text' as const, reasons: ['backend decision skipped'], pages: [] }
      : await decidePdfBackend(doc);
    return { kind: 'pdf', pageCount, pageHashes, backend };
  } finally {
    await doc.destroy().catch(() => undefined);
  }
}

async function pdfjsPageHashes(doc: Awaited<ReturnType<typeof openPdf>>): Promise<string[]> {
  const out: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    try {
      const page = await doc.getPage(n);
      const [ops, text] = await Promise.all([page.getOperatorList(), page.getTextContent()]);
      const h = createHash('sha256').update(JSON.stringify(page.view)).update(String(page.rotate));
      h.update(Buffer.from(Int32Array.from(ops.fnArray).buffer));
      for (const it of text.items) if ('str' in it) h.update(`${it.str}|${it.transform.map((v) => v.toFixed(2)).join(',')}\n`);
      out.push(h.digest('hex'));
      page.cleanup();
    } catch (err) {
      throw toParseError(err, n);
    }
  }
  return out;
}

async function inspectImage(path: string, opts: InspectOptions): Promise<InspectResult> {
  const pageCount = await imagePageCount(path);
  if (opts.maxPages !== undefined && pageCount > opts.maxPages) {
    throw new ParseError('too_many_pages', `The image has ${pageCount} pages; the limit is ${opts.maxPages}.`);
  }
  const pageHashes: string[] = [];
  let decodedImage: DecodedImage | undefined;
  for (let i = 0; i < pageCount; i++) {
    // Hash decoded pixels, so the same picture re-encoded or in another file hashes the same.
    const img = await loadImagePage(path, i);
    pageHashes.push(createHash('sha256').update(`${img.width}x${img.height}x${img.channels}`).update(img.data).digest('hex'));
    if (opts.keepImage && pageCount === 1) decodedImage = { path, pageIndex: i, image: img };
  }
  return { kind: 'image', pageCount, pageHashes, backend: { backend: 'ocr', reasons: ['image inputs always use OCR'], pages: [] }, decodedImage };
}
