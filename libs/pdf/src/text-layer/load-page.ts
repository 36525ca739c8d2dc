// Loads one PDF page into the backend-neutral PageLayoutInput: text runs from the text layer
// and graphics (images, drawings, rulings) from the operator list, both read within the page budget
// (operator-stream.ts): a page over it throws ParseError('page_too_complex') and the caller takes
// the bounded path.
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api';
import { DEFAULT_PAGE_BUDGET, maxGraphicsItems, type PageBudget } from '../budget';
import { GraphicsScanner } from '../inspect/graphics-scan';
import type { PageLayoutInput } from '../types';
import { overBudget, readTextContent, walkOperators } from './operator-stream';
import { dominantTurn, graphicsIntoFrame, intoFrame, readingFrame, type ReadingFrame } from './reading-frame';
import { RtlItemRepairs } from './rtl-items';
import { RtlLigatureWords } from './rtl-ligatures';
import { RtlDroppedSigns } from './rtl-signs';
import { pageFontLookup, textRunsFromContent } from './text-runs';
import type { Matrix } from '../geometry';
import { multiply } from '../geometry';

/**
 * A page ready for layout. `width`, `height`, `runs` and `graphics` are in the page's reading
 * frame (reading-frame.ts): the displayed page itself unless most of its text runs sideways or
 * upside down; `frame` maps back to the page as displayed.
 */
export interface LoadedPage extends PageLayoutInput {
  /** Characters in the text layer, whitespace excluded (auto-backend floor). */
  textChars: number;
  frame: ReadingFrame;
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
    const ligatures = new RtlLigatureWords();
    const signs = new RtlDroppedSigns();
    const items = new RtlItemRepairs();
    await walkOperators(
      page,
      (chunk) => {
        scanner.push(chunk.fnArray, chunk.argsArray, chunk.length);
        ligatures.push(chunk.fnArray, chunk.argsArray, chunk.length);
        signs.push(chunk.fnArray, chunk.argsArray, chunk.length);
        items.push(chunk.fnArray, chunk.argsArray, chunk.length);
        if (scanner.overflowed)
          throw overBudget(pageNumber, `more than ${maxGraphicsItems(budget).toLocaleString('en-US')} drawn shapes`);
      },
      limits,
    );
    const content = await readTextContent(page, limits);
    const vt = vp.transform.slice(0, 6) as Matrix;
    const turn = dominantTurn(
      content.items.flatMap((raw) => {
        const it = raw as { str?: unknown; transform?: number[] };
        if (typeof it.str !== 'string' || !it.transform) return [];
        return [{ m: multiply(it.transform as Matrix, vt), chars: it.str.replace(/\s/g, '').length }];
      }),
    );
    const frame = readingFrame(turn, vp.width, vp.height);
    let runs = textRunsFromContent(content, intoFrame(vt, frame), pageFontLookup(page), mendItems(items, signs));
    if (ligatures.size) runs = runs.map((r) => ({ ...r, text: ligatures.fix(r.text) }));
    let textChars = 0;
    for (const r of runs) textChars += r.text.replace(/\s/g, '').length;
    return {
      width: frame.width,
      height: frame.height,
      runs,
      graphics: graphicsIntoFrame(scanner.graphics, frame),
      source: 'text',
      textChars,
      frame,
    };
  } finally {
    // Frees the page's decoded images; fonts stay cached on the document.
    page.cleanup();
  }
}

/**
 * pdf.js's right-to-left defects mended in an item's text: the whole item rebuilt from its glyphs
 * when pdf.js's pass is known to have got it wrong (rtl-items.ts), else a sign drawn as a word of
 * its own put back between its neighbours (rtl-signs.ts).
 */
function mendItems(
  items: RtlItemRepairs,
  signs: RtlDroppedSigns,
): ((text: string, rtl: boolean) => string) | undefined {
  const repairs = items.size > 0,
    restores = signs.size > 0;
  if (!repairs && !restores) return undefined;
  return (text, rtl) => {
    const repaired = repairs ? items.repair(text) : text;
    return repaired === text && restores ? signs.restore(text, rtl) : repaired;
  };
}
