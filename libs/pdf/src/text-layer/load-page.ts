// Loads one PDF page into the backend-neutral PageLayoutInput: text runs from the text layer
// and graphics (images, drawings, rulings) from the operator list, both read within the page budget
// (operator-stream.ts): a page over it throws ParseError('page_too_complex') and the caller takes
// the bounded path.
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api';
import { DEFAULT_PAGE_BUDGET, maxGraphicsItems, type PageBudget } from '../budget';
import { GraphicsScanner } from '../inspect/graphics-scan';
import type { PageLayoutInput } from '../types';
import { overBudget, readTextContent, walkOperators } from './operator-stream';
import { pageFontLookup, textRunsFromContent } from './text-runs';

export interface LoadedPage extends PageLayoutInput {
  /** Characters in the text layer, whitespace excluded (auto-backend floor). */
  textChars: number;
}

export async function loadTextPage(
  doc: PDFDocumentProxy,
  pageNumber: number,
  budget: PageBudget = DEFAULT_PAGE_BUDGET,
): Promise<LoadedPage> {
  const page = await doc.getPage(pageNumber);
  try {
    const limits = { maxOperators: budget.maxOperators, deadline: Date.now() + budget.maxSeconds * 1000, pageNumber };
    const vp = page.getViewport({ scale: 1 });
    // The operator list first: it makes pdf.js load the fonts whose names give bold/mono flags.
    const scanner = new GraphicsScanner(vp.transform, vp.width, vp.height, maxGraphicsItems(budget));
    await walkOperators(
      page,
      (chunk) => {
        scanner.push(chunk.fnArray, chunk.argsArray, chunk.length);
        if (scanner.overflowed)
          throw overBudget(pageNumber, `more than ${maxGraphicsItems(budget).toLocaleString('en-US')} drawn shapes`);
      },
      limits,
    );
    const content = await readTextContent(page, limits);
    const runs = textRunsFromContent(content, vp.transform, pageFontLookup(page));
    let textChars = 0;
    for (const r of runs) textChars += r.text.replace(/\s/g, '').length;
    return { width: vp.width, height: vp.height, runs, graphics: scanner.graphics, source: 'text', textChars };
  } finally {
    // Frees the page's decoded images; fonts stay cached on the document.
    page.cleanup();
  }
}
