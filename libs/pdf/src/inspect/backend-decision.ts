// The spec's auto-backend rule: a PDF goes to the text-layer backend only if EVERY page has at
// least 150 text characters and less than 10% graphics coverage, and the document has no form
// fields and no stamp annotations. Anything else goes to OCR as a whole.
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api';
import { unionAreaFraction } from '../geometry';
import { toParseError } from '../pdfjs-loader';
import { graphicsCoverageBoxes, scanGraphics } from './graphics-scan';

export const TEXT_FLOOR_CHARS = 150;
export const GRAPHICS_CEILING = 0.1;

export type Backend = 'text' | 'ocr';

export interface PageMetrics { pageNumber: number; textChars: number; graphicsCoverage: number; formFields: number; stamps: number }

export interface BackendDecision {
  backend: Backend;
  /** Human-readable reasons; for OCR the first rule that failed, for text the rule that passed. */
  reasons: string[];
  /** Metrics for the pages examined (evaluation stops at the first failing page). */
  pages: PageMetrics[];
}

export async function decidePdfBackend(doc: PDFDocumentProxy, opts: { exhaustive?: boolean } = {}): Promise<BackendDecision> {
  const reasons: string[] = [];
  const pages: PageMetrics[] = [];
  const fields = await doc.getFieldObjects().catch(() => null);
  const fieldCount = fields ? Object.keys(fields).length : 0;
  if (fieldCount > 0) reasons.push(`document has ${fieldCount} form field(s)`);

  for (let n = 1; n <= doc.numPages; n++) {
    if (reasons.length && !opts.exhaustive) break;
    let m: PageMetrics;
    try {
      m = await pageMetrics(doc, n);
    } catch (err) {
      throw toParseError(err, n);
    }
    pages.push(m);
    if (m.formFields > 0) reasons.push(`page ${n} has form field widgets`);
    if (m.stamps > 0) reasons.push(`page ${n} has a stamp annotation`);
    if (m.textChars < TEXT_FLOOR_CHARS) reasons.push(`page ${n} has ${m.textChars} text-layer characters (< ${TEXT_FLOOR_CHARS})`);
    if (m.graphicsCoverage >= GRAPHICS_CEILING) {
      reasons.push(`page ${n}: images and drawings cover ${(m.graphicsCoverage * 100).toFixed(1)}% of the page (>= ${GRAPHICS_CEILING * 100}%)`);
    }
  }
  if (reasons.length) return { backend: 'ocr', reasons, pages };
  return {
    backend: 'text',
    reasons: [`all ${doc.numPages} page(s) have >= ${TEXT_FLOOR_CHARS} text characters and < ${GRAPHICS_CEILING * 100}% graphics; no form fields or stamps`],
    pages,
  };
}

export async function pageMetrics(doc: PDFDocumentProxy, pageNumber: number): Promise<PageMetrics> {
  const page = await doc.getPage(pageNumber);
  try {
    const vp = page.getViewport({ scale: 1 });
    const [ops, text, annots] = await Promise.all([page.getOperatorList(), page.getTextContent(), page.getAnnotations()]);
    let textChars = 0;
    for (const it of text.items) if ('str' in it) textChars += it.str.replace(/\s/g, '').length;
    const g = scanGraphics(ops, vp.transform, vp.width, vp.height);
    const graphicsCoverage = unionAreaFraction(graphicsCoverageBoxes(g), vp.width, vp.height);
    let formFields = 0, stamps = 0;
    for (const a of annots as Array<{ subtype?: string }>) {
      if (a.subtype === 'Widget') formFields++;
      else if (a.subtype === 'Stamp') stamps++;
    }
    return { pageNumber, textChars, graphicsCoverage, formFields, stamps };
  } finally {
    page.cleanup();
  }
}
