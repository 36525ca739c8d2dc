// Loads one PDF page into the backend-neutral PageLayoutInput: text runs from the text layer
// and graphics (images, drawings, rulings) from the operator list.
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api';
import { scanGraphics } from '../inspect/graphics-scan';
import type { PageGraphics, PageLayoutInput } from '../types';
import { pageFontLookup, textRunsFromContent, type TextContentLike } from './text-runs';

export interface LoadedPage extends PageLayoutInput {
  /** Characters in the text layer, whitespace excluded (auto-backend floor). */
  textChars: number;
}

export async function loadTextPage(doc: PDFDocumentProxy, pageNumber: number): Promise<LoadedPage> {
  const page = await doc.getPage(pageNumber);
  try {
    const vp = page.getViewport({ scale: 1 });
    // The operator list first: it makes pdf.js load the fonts whose names give bold/mono flags.
    const ops = await page.getOperatorList();
    const graphics: PageGraphics = scanGraphics(ops, vp.transform, vp.width, vp.height);
    const content = (await page.getTextContent()) as unknown as TextContentLike;
    const runs = textRunsFromContent(content, vp.transform, pageFontLookup(page));
    let textChars = 0;
    for (const r of runs) textChars += r.text.replace(/\s/g, '').length;
    return { width: vp.width, height: vp.height, runs, graphics, source: 'text', textChars };
  } finally {
    // Frees the page's operator list and decoded images; fonts stay cached on the document.
    page.cleanup();
  }
}
