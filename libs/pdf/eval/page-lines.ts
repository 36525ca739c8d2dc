// The text lines of a PDF as the parse builds them (text layer → runs → lines, the code the worker
// runs), with boxes in fractions of the page as displayed: the line structure that grounding does
// not carry (an element's content is its lines joined), for rendering our text line by line
// (visual-order.ts).
import { buildLines } from '../src/layout/line-builder';
import { closePdf, openPdf } from '../src/pdfjs-loader';
import { loadTextPage } from '../src/text-layer/load-page';
import { elementsToDisplay } from '../src/text-layer/reading-frame';
import type { PageLine } from './visual-order';

export async function pageLines(file: string): Promise<Map<number, PageLine[]>> {
  const out = new Map<number, PageLine[]>();
  const doc = await openPdf(file);
  try {
    for (let n = 1; n <= doc.numPages; n++) {
      const vp = (await doc.getPage(n)).getViewport({ scale: 1 });
      const p = await loadTextPage(doc, n).catch(() => undefined);
      if (!p) continue;
      const lines = buildLines(p.runs).map((l) => ({ ...l, type: 'text' as const }));
      out.set(
        n,
        elementsToDisplay(lines, p.frame).map((l) => ({
          text: l.text,
          box: { x1: l.x0 / vp.width, y1: l.y0 / vp.height, x2: l.x1 / vp.width, y2: l.y1 / vp.height },
        })),
      );
    }
  } finally {
    await closePdf(doc);
  }
  return out;
}
