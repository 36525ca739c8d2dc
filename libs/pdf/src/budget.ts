// The per-page budget: how much work one page may cost, whatever the file says. A page over it is
// read by the bounded path (a raster at a capped size, then OCR) or, when that fails too, comes back
// as a failed page (`page_too_complex`) while the rest of the document is parsed. The parse worker
// sets it from PARSE_PAGE_MAX_* (docs/operations.md).

export interface PageBudget {
  /** pdf.js operators (and text items) one page may produce. */
  maxOperators: number;
  /** Wall time to read one page with pdf.js, and to rasterise it on the bounded path. */
  maxSeconds: number;
  /** Pixels of any raster made of one page (OCR raster, page image, crops), in millions. */
  maxMegapixels: number;
  /** Pixels of the longer side of any raster of one page. */
  maxPixels: number;
}

export const DEFAULT_PAGE_BUDGET: Readonly<PageBudget> = Object.freeze({
  maxOperators: 2_000_000,
  maxSeconds: 30,
  maxMegapixels: 50,
  maxPixels: 16_384,
});

export function pageBudget(partial?: Partial<PageBudget>): PageBudget {
  const b = {
    ...DEFAULT_PAGE_BUDGET,
    ...Object.fromEntries(Object.entries(partial ?? {}).filter(([, v]) => v !== undefined)),
  } as PageBudget;
  for (const [k, v] of Object.entries(b))
    if (!(typeof v === 'number' && v > 0)) throw new RangeError(`page budget ${k} must be a positive number, got ${v}`);
  return b;
}

/**
 * Boxes (drawings, rulings, images) a page's graphics scan keeps before the page counts as too
 * complex for the text layer: layout compares them with each other, so they are capped well below
 * the operator budget (1 per 20 operators, at least 10,000).
 */
export const maxGraphicsItems = (b: PageBudget) => Math.max(10_000, Math.floor(b.maxOperators / 20));

/**
 * The resolution at which a page of `widthPt` × `heightPt` points (UserUnit included) renders
 * within the pixel budget: `dpi` itself when it fits, else scaled down so the longer side is at most
 * `maxPixels` and the area at most `maxMegapixels` (pdftoppm rounds sizes up, hence the margin).
 */
export function cappedDpi(widthPt: number, heightPt: number, dpi: number, b: PageBudget): number {
  const w = Math.max(widthPt, 1e-3),
    h = Math.max(heightPt, 1e-3);
  const bySide = ((b.maxPixels - 2) * 72) / Math.max(w, h);
  const byArea = 72 * Math.sqrt((b.maxMegapixels * 1e6 * 0.995) / (w * h));
  const capped = Math.min(dpi, bySide, byArea);
  if (capped >= dpi) return dpi;
  // pdftoppm takes a decimal resolution; 4 decimals keep the arguments short and the cap exact enough.
  return Math.max(Math.floor(capped * 1e4) / 1e4, 1e-4);
}
