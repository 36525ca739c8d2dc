// Bounded reads of a page's operator list and text layer. pdf.js' `getOperatorList()` keeps every
// operator of the page in two arrays until the last one arrives (a page of nine million `0 0 m 1 1 l S`
// took 4 GB), and cannot be stopped. pdf.js produces the list in chunks of ~1,000 operators over a
// stream with back-pressure (its worker waits until the previous chunk was read), so reading that
// stream ourselves lets each chunk be scanned and dropped, and counted. At the page budget the
// stream is left unread: pdf.js' evaluator produces at most one more chunk and then waits. A cancel
// right away would not stop it: one that reaches the worker while it may still produce a chunk
// leaves it walking the rest of the page (nine million operators of CPU on this thread). The
// waiting stream is cancelled when the document is closed (closePdf), which ends the evaluator
// (its pending `ready` rejects) so pdf.js' destroy can finish. The text layer is read the same way
// through the public `streamTextContent()`.
import type { PDFPageProxy } from 'pdfjs-dist/types/src/display/api';
import { ParseError, isParseError } from '../parse-error';
import { loadPdfjs } from '../pdfjs-loader';

/**
 * A cancel reason pdf.js accepts: it asserts `reason instanceof Error` with *its* Error, which under
 * jest is another realm's than ours (pdf.js is loaded by Node's own require), so the reason is made
 * by pdf.js' own AbortException.
 */
function cancelReason(message: string): Error {
  const Abort = (loadPdfjs() as unknown as { AbortException?: new (m: string) => Error }).AbortException;
  return Abort ? new Abort(message) : new Error(message);
}
import type { TextContentLike } from './text-runs';

export interface OperatorChunk {
  fnArray: number[];
  argsArray: unknown[];
  length: number;
  lastChunk?: boolean;
}

export interface WalkLimits {
  /** Operators (and text items) one page may produce before it is over budget. */
  maxOperators: number;
  /** Date.now() after which the page is over budget. */
  deadline: number;
  pageNumber: number;
}

/** The page exceeded its budget: operators or wall time while pdf.js walked it. */
export function overBudget(pageNumber: number, what: string): ParseError {
  return new ParseError('page_too_complex', `page ${pageNumber} is too complex to read: ${what}`, { pageNumber });
}

interface PdfjsTransport {
  getRenderingIntent(
    intent: string,
    annotationMode?: number,
    printStorage?: unknown,
    isEditing?: boolean,
    isOpList?: boolean,
  ): {
    renderingIntent: number;
    cacheKey: string;
    annotationStorageSerializable: { map: unknown; transfer?: unknown[] };
    modifiedIds: unknown;
  };
  messageHandler: { sendWithStream(action: string, data: unknown, strategy?: unknown): ReadableStream<OperatorChunk> };
}

/** What `page.getOperatorList()` sends for its request (pdfjs-dist 5.4, `_pumpOperatorList`), read chunk by chunk. */
function operatorStream(page: PDFPageProxy): ReadableStream<OperatorChunk> {
  const p = page as unknown as { _transport?: PdfjsTransport; _pageIndex?: number };
  const transport = p._transport;
  if (
    !transport?.messageHandler?.sendWithStream ||
    typeof transport.getRenderingIntent !== 'function' ||
    typeof p._pageIndex !== 'number'
  ) {
    throw new Error('pdf.js internals changed: cannot stream the operator list (see operator-stream.ts)');
  }
  // AnnotationMode.ENABLE (1), as getOperatorList() does by default; isOpList: no render optimiser.
  const intent = transport.getRenderingIntent('display', 1, null, false, true);
  return transport.messageHandler.sendWithStream(
    'GetOperatorList',
    {
      pageIndex: p._pageIndex,
      intent: intent.renderingIntent,
      cacheKey: intent.cacheKey,
      annotationStorage: intent.annotationStorageSerializable.map,
      modifiedIds: intent.modifiedIds,
    },
    intent.annotationStorageSerializable.transfer,
  );
}

/**
 * Streams the page's operators to `visit`, chunk by chunk; nothing is kept here. Throws
 * ParseError('page_too_complex') once more than `maxOperators` arrived or the deadline passed, and
 * cancels pdf.js' walk. Returns the number of operators read.
 */
export async function walkOperators(
  page: PDFPageProxy,
  visit: (chunk: OperatorChunk) => void,
  limits: WalkLimits,
): Promise<number> {
  const known = overBudgetPages.get(docKey(page))?.get(limits.pageNumber);
  if (known) throw known; // read once already on this document: not again
  const reader = operatorStream(page).getReader();
  let count = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return count;
      count += value.length;
      if (count > limits.maxOperators)
        throw overBudget(
          limits.pageNumber,
          `more than ${limits.maxOperators.toLocaleString('en-US')} drawing operators`,
        );
      if (Date.now() > limits.deadline)
        throw overBudget(limits.pageNumber, 'reading it took longer than the page time budget');
      visit(value);
      if (value.lastChunk) return count;
    }
  } catch (err) {
    if (isParseError(err) && err.code === 'page_too_complex') {
      remember(page, limits.pageNumber, err);
      abandon(page, reader);
      throw err;
    }
    await reader.cancel(cancelReason(err instanceof Error ? err.message : String(err))).catch(() => undefined);
    throw err;
  }
}

/** Pages found over budget, per document (keyed by a page proxy's document transport). */
const overBudgetPages = new WeakMap<object, Map<number, ParseError>>();
function docKey(page: PDFPageProxy): object {
  return (page as unknown as { _transport?: object })._transport ?? page;
}
const abandoned = new WeakMap<object, Array<ReadableStreamDefaultReader<unknown>>>();
function abandon(page: PDFPageProxy, reader: ReadableStreamDefaultReader<unknown>): void {
  const key = docKey(page);
  const list = abandoned.get(key) ?? [];
  list.push(reader);
  abandoned.set(key, list);
}

/**
 * Cancels the streams left unread on this document (their evaluators wait on a read), so that
 * `doc.destroy()` can finish: pdf.js waits for every running worker task. closePdf calls it.
 */
export async function releaseAbandoned(doc: object): Promise<void> {
  const key = (doc as { _transport?: object })._transport ?? doc;
  const list = abandoned.get(key);
  abandoned.delete(key);
  for (const r of list ?? []) await r.cancel(cancelReason('page over its budget')).catch(() => undefined);
}

function remember(page: PDFPageProxy, n: number, err: ParseError): void {
  const key = docKey(page);
  let m = overBudgetPages.get(key);
  if (!m) overBudgetPages.set(key, (m = new Map()));
  m.set(n, err);
}

/** The page's text layer, read in chunks under the same limits (text items count as operators). */
export async function readTextContent(page: PDFPageProxy, limits: WalkLimits): Promise<TextContentLike> {
  const reader = page.streamTextContent().getReader() as ReadableStreamDefaultReader<{
    items: unknown[];
    styles: Record<string, unknown>;
    lang?: string | null;
  }>;
  const content = {
    items: [] as unknown[],
    styles: Object.create(null) as Record<string, unknown>,
    lang: null as string | null,
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      content.lang ??= value.lang ?? null;
      Object.assign(content.styles, value.styles);
      for (const it of value.items) content.items.push(it);
      if (content.items.length > limits.maxOperators)
        throw overBudget(limits.pageNumber, `more than ${limits.maxOperators.toLocaleString('en-US')} text items`);
      if (Date.now() > limits.deadline)
        throw overBudget(limits.pageNumber, 'reading its text took longer than the page time budget');
    }
  } catch (err) {
    if (isParseError(err) && err.code === 'page_too_complex') {
      remember(page, limits.pageNumber, err);
      abandon(page, reader as ReadableStreamDefaultReader<unknown>);
      throw err;
    }
    await reader.cancel(cancelReason(err instanceof Error ? err.message : String(err))).catch(() => undefined);
    throw err;
  }
  reader.releaseLock();
  return content as unknown as TextContentLike;
}
