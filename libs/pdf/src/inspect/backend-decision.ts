// The auto-backend rule (docs/api.md, "Parse backend `auto`"): a PDF goes to the text-layer backend
// only if EVERY page has at least 150 text characters and less than 10% graphics coverage, and the document
// has no form fields and no stamp annotations. Anything else goes to OCR as a whole.
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api';
import { DEFAULT_PAGE_BUDGET, maxGraphicsItems, type PageBudget } from '../budget';
import { unionAreaFraction } from '../geometry';
import { isParseError } from '../parse-error';
import { toParseError } from '../pdfjs-loader';
import { overBudget, readTextContent, walkOperators } from '../text-layer/operator-stream';
import { GraphicsScanner, graphicsCoverageBoxes } from './graphics-scan';

export const TEXT_FLOOR_CHARS = 150;
export const GRAPHICS_CEILING = 0.1;

export type Backend = 'text' | 'ocr';

export interface PageMetrics {
  pageNumber: number;
  textChars: number;
  graphicsCoverage: number;
  formFields: number;
  stamps: number;
  /** Why the page is over its budget (pdf.js stopped reading it); such a page goes to OCR. */
  overBudget?: string;
}

export interface BackendDecision {
  backend: Backend;
  /** Human-readable reasons; for OCR the first rule that failed, for text the rule that passed. */
  reasons: string[];
  /** Metrics for the pages examined (evaluation stops at the first failing page). */
  pages: PageMetrics[];
}

export async function decidePdfBackend(
  doc: PDFDocumentProxy,
  opts: { exhaustive?: boolean; budget?: PageBudget } = {},
): Promise<BackendDecision> {
  const reasons: string[] = [];
  const pages: PageMetrics[] = [];
  const fields = await doc.getFieldObjects().catch(() => null);
  const fieldCount = fields ? Object.keys(fields).length : 0;
  if (fieldCount > 0) reasons.push(`document has ${fieldCount} form field(s)`);

  for (let n = 1; n <= doc.numPages; n++) {
    if (reasons.length && !opts.exhaustive) break;
    let m: PageMetrics;
    try {
      m = await pageMetrics(doc, n, opts.budget);
    } catch (err) {
      throw toParseError(err, n);
    }
    pages.push(m);
    if (m.overBudget) {
      reasons.push(`page ${n} is over the page budget (${m.overBudget})`);
      continue;
    }
    if (m.formFields > 0) reasons.push(`page ${n} has form field widgets`);
    if (m.stamps > 0) reasons.push(`page ${n} has a stamp annotation`);
    if (m.textChars < TEXT_FLOOR_CHARS)
      reasons.push(`page ${n} has ${m.textChars} text-layer characters (< ${TEXT_FLOOR_CHARS})`);
    if (m.graphicsCoverage >= GRAPHICS_CEILING) {
      reasons.push(
        `page ${n}: images and drawings cover ${(m.graphicsCoverage * 100).toFixed(1)}% of the page (>= ${GRAPHICS_CEILING * 100}%)`,
      );
    }
  }
  if (reasons.length) return { backend: 'ocr', reasons, pages };
  return {
    backend: 'text',
    reasons: [
      `all ${doc.numPages} page(s) have >= ${TEXT_FLOOR_CHARS} text characters and < ${GRAPHICS_CEILING * 100}% graphics; no form fields or stamps`,
    ],
    pages,
  };
}

export async function pageMetrics(
  doc: PDFDocumentProxy,
  pageNumber: number,
  budget: PageBudget = DEFAULT_PAGE_BUDGET,
): Promise<PageMetrics> {
  const page = await doc.getPage(pageNumber);
  try {
    const vp = page.getViewport({ scale: 1 });
    let formFields = 0,
      stamps = 0;
    for (const a of (await page.getAnnotations()) as Array<{ subtype?: string }>) {
      if (a.subtype === 'Widget') formFields++;
      else if (a.subtype === 'Stamp') stamps++;
    }
    // One after the other, each streamed within the page budget (never the whole operator list).
    const limits = { maxOperators: budget.maxOperators, deadline: Date.now() + budget.maxSeconds * 1000, pageNumber };
    const scanner = new GraphicsScanner(vp.transform, vp.width, vp.height, maxGraphicsItems(budget));
    let textChars = 0;
    try {
      await walkOperators(
        page,
        (chunk) => {
          scanner.push(chunk.fnArray, chunk.argsArray, chunk.length);
          if (scanner.overflowed)
            throw overBudget(pageNumber, `more than ${maxGraphicsItems(budget).toLocaleString('en-US')} drawn shapes`);
        },
        limits,
      );
      const text = await readTextContent(page, limits);
      for (const it of text.items as Array<{ str?: string }>)
        if (typeof it.str === 'string') textChars += it.str.replace(/\s/g, '').length;
    } catch (err) {
      if (!(isParseError(err) && err.code === 'page_too_complex')) throw err;
      return {
        pageNumber,
        textChars,
        graphicsCoverage: 1,
        formFields,
        stamps,
        overBudget: err.message.replace(/^page \d+ is too complex to read: /, ''),
      };
    }
    const graphicsCoverage = unionAreaFraction(graphicsCoverageBoxes(scanner.graphics), vp.width, vp.height);
    return { pageNumber, textChars, graphicsCoverage, formFields, stamps };
  } finally {
    page.cleanup();
  }
}
