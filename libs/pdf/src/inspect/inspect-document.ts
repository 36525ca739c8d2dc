// inspectDocument: page count, per-page content hashes and the auto-backend decision, the
// three things the worker needs before it decides what to parse and what to charge.
import { createHash } from 'node:crypto';
import { DEFAULT_PAGE_BUDGET, type PageBudget } from '../budget';
import { closePdf, openPdf, readPdfBytes, toParseError, type PDFDocumentProxy } from '../pdfjs-loader';
import { ParseError, isParseError } from '../parse-error';
import { imagePageCount, loadImagePage, type DecodedImage, type ImagePage } from '../render/image-input';
import { walkOperators, readTextContent } from '../text-layer/operator-stream';
import { decidePdfBackend, type BackendDecision } from './backend-decision';
import { pdfPageTree } from './page-hash';

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
  /**
   * Images: page 1 already decoded by the caller (an image OCR head start's `decodedPage`), used
   * instead of decoding it again when it resolves to an image.
   */
  decodedPage1?: Promise<ImagePage | undefined>;
  /** Per-page budget for what pdf.js reads (backend decision, fallback hashes). Default DEFAULT_PAGE_BUDGET. */
  budget?: PageBudget;
  /** Stop once this time (Date.now()) has passed: ParseError 'page_timeout' (the job's own limit). */
  deadline?: number;
}

export interface InspectResult {
  kind: InputKind;
  pageCount: number;
  pageHashes: string[];
  backend: BackendDecision;
  /** With `keepImage`, for a single-page image: pass it to parsePages as `decodedImage`. */
  decodedImage?: DecodedImage;
}

export async function inspectDocument(
  path: string,
  kind: InputKind,
  opts: InspectOptions = {},
): Promise<InspectResult> {
  return kind === 'pdf' ? inspectPdf(path, opts) : inspectImage(path, opts);
}

async function inspectPdf(path: string, opts: InspectOptions): Promise<InspectResult> {
  const bytes = await readPdfBytes(path);
  const doc = await openPdf(path, bytes);
  const budget = opts.budget ?? DEFAULT_PAGE_BUDGET;
  try {
    const pageCount = doc.numPages;
    if (opts.maxPages !== undefined && pageCount > opts.maxPages) {
      throw new ParseError('too_many_pages', `The PDF has ${pageCount} pages; the limit is ${opts.maxPages}.`);
    }
    let pageHashes: string[];
    let claimedCount: number | null = null;
    try {
      const tree = await pdfPageTree(bytes);
      pageHashes = tree.hashes;
      claimedCount = tree.claimedCount;
      if (pageHashes.length !== pageCount) throw new Error('page tree mismatch');
    } catch {
      // pdf-lib could not walk this file the way pdf.js does: fall back to hashing what pdf.js sees.
      pageHashes = await pdfjsPageHashes(doc, budget, opts.deadline);
    }
    // pdf.js counts the pages a tree really holds; other readers (the rasteriser among them) trust
    // /Count, so a file that claims a million pages is refused here rather than half-parsed.
    if (claimedCount !== null && claimedCount !== pageCount) {
      throw new ParseError(
        'invalid_pdf',
        `The PDF's page tree claims ${claimedCount.toLocaleString('en-US')} page(s) but holds ${pageCount}; the file is damaged. Re-save or print it to a new PDF and upload that.`,
      );
    }
    checkDeadline(opts.deadline);
    const backend =
      opts.decideBackend === false
        ? { backend: 'text' as const, reasons: ['backend decision skipped'], pages: [] }
        : await decidePdfBackend(doc, { budget });
    checkDeadline(opts.deadline);
    return { kind: 'pdf', pageCount, pageHashes, backend };
  } finally {
    await closePdf(doc);
  }
}

function checkDeadline(deadline: number | undefined): void {
  if (deadline !== undefined && Date.now() > deadline)
    throw new ParseError('page_timeout', 'inspecting the pages took longer than the time limit');
}

async function pdfjsPageHashes(doc: PDFDocumentProxy, budget: PageBudget, deadline?: number): Promise<string[]> {
  const out: string[] = [];
  for (let n = 1; n <= doc.numPages; n++) {
    checkDeadline(deadline);
    try {
      const page = await doc.getPage(n);
      const h = createHash('sha256').update(JSON.stringify(page.view)).update(String(page.rotate));
      const limits = {
        maxOperators: budget.maxOperators,
        deadline: Date.now() + budget.maxSeconds * 1000,
        pageNumber: n,
      };
      try {
        // Streamed within the page budget; a page over it hashes what was read before the cap.
        await walkOperators(
          page,
          (chunk) => {
            h.update(Buffer.from(Int32Array.from(chunk.fnArray.slice(0, chunk.length)).buffer));
          },
          limits,
        );
        const text = await readTextContent(page, limits);
        for (const it of text.items as Array<{ str?: string; transform?: number[] }>) {
          if (typeof it.str === 'string')
            h.update(`${it.str}|${(it.transform ?? []).map((v) => v.toFixed(2)).join(',')}\n`);
        }
      } catch (err) {
        if (!(isParseError(err) && err.code === 'page_too_complex')) throw err;
        h.update('over-budget');
      }
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
    const img = (i === 0 ? await opts.decodedPage1 : undefined) ?? (await loadImagePage(path, i));
    pageHashes.push(
      createHash('sha256').update(`${img.width}x${img.height}x${img.channels}`).update(img.data).digest('hex'),
    );
    if (opts.keepImage && pageCount === 1) decodedImage = { path, pageIndex: i, image: img };
  }
  return {
    kind: 'image',
    pageCount,
    pageHashes,
    backend: { backend: 'ocr', reasons: ['image inputs always use OCR'], pages: [] },
    decodedImage,
  };
}
