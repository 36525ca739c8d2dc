// Phase 'text' for PDFs: every requested page through the chosen backend. On the text backend a
// page whose text layer is unusable (scanned page inside a digital PDF, glyphs without Unicode)
// is OCRed instead when page_fallback_ocr is on.
// A page over its budget (operators, time) takes the bounded path: a raster at a capped size, then
// OCR; if that is over budget too, the page comes back failed (`page_too_complex`) and the parse
// goes on with the next page.
import type { PDFDocumentProxy } from 'pdfjs-dist/types/src/display/api';
import path from 'node:path';
import { DEFAULT_PAGE_BUDGET, type PageBudget } from '../budget';
import { layoutPage } from '../layout/page-layout';
import { toParseError } from '../pdfjs-loader';
import { pageImageName } from '../render/page-renderer';
import { loadTextPage, type LoadedPage } from '../text-layer/load-page';
import { elementsToDisplay } from '../text-layer/reading-frame';
import { layerLeadsPage, layerReadsPage, type PlacedWord, type TextLayerInput } from '../ocr/text-layer-words';
import { centerInside } from '../geometry';
import { FIGURE_CAPTION } from '../layout/page-layout';
import type { LayoutElement, TextRun } from '../types';
import { finishPage } from './finish-page';
import { OcrRasterPrefetch, ocrPdfRaster, type OcrSettings, type PageLanguage } from './ocr-page';
import { chooseInstalled, languageFromLetters, readsOtherwise, scriptLetters } from '../ocr/ocr-language';
import { throwIfCancelled, withPageTimeout } from './page-guard';
import type { LaidOutPage, PageProgress, ParseBackend, ParsePhase } from './parse-types';
import { ParseError, isParseError } from '../parse-error';

/**
 * OCR pages make their page image and crops from their own OCR raster and are finished (grounding,
 * crops) as soon as they are laid out, while that raster is in memory.
 */
export interface OcrArtifacts {
  pdfPath: string;
  /** Page image / pixel box resolution; must not exceed the OCR resolution. */
  dpi: number;
  outDir: string;
  tmp: string;
  timeoutMs: number;
  renderPages: boolean;
  /** Whether this page's image is ours to make (false: the background renderer already has it). */
  claim(pageNumber: number): boolean;
  /** Page n's image resolution (`dpi`, capped by the pixel budget). */
  dpiOf(pageNumber: number): number;
}

export interface TextPhaseOptions {
  path: string;
  backend: ParseBackend;
  fallbackOcr: boolean;
  timeoutMs: number;
  ocr: OcrSettings;
  tmp: string;
  onProgress?: (done: number, total: number, phase: ParsePhase, page?: PageProgress) => void | Promise<void>;
  budget?: PageBudget;
  shouldCancel?: () => boolean | Promise<boolean>;
  /** Called as each page is laid out (lets the caller start crop rasters early). */
  onPage?: (page: LaidOutPage) => void;
  /** OCR rasters (the caller may have started the first one already). */
  prefetch?: OcrRasterPrefetch;
  ocrArtifacts?: OcrArtifacts;
  /** The page read after page n (OCR prefetch) when `pages` is one step of a longer list. */
  nextPage?: (n: number) => number | undefined;
}

export async function layoutPdfPages(
  doc: PDFDocumentProxy,
  pages: number[],
  o: TextPhaseOptions,
): Promise<LaidOutPage[]> {
  const prefetch = o.prefetch ?? new OcrRasterPrefetch(o.path, path.join(o.tmp, 'ocr'), o.ocr);
  const budget = o.budget ?? DEFAULT_PAGE_BUDGET;
  const out: LaidOutPage[] = [];
  for (const [i, n] of pages.entries()) {
    await throwIfCancelled(o.shouldCancel);
    const next = o.backend === 'ocr' ? (o.nextPage ? o.nextPage(n) : pages[i + 1]) : undefined;
    const page = await withPageTimeout(
      async () => {
        try {
          if (o.backend === 'ocr')
            return await overBudgetAsFailed(n, doc, () =>
              ocrPdfPage(
                doc,
                n,
                prefetch,
                o,
                next,
                loadTextPage(doc, n, budget).catch(() => undefined),
              ),
            );
          let loaded: LoadedPage;
          try {
            loaded = await loadTextPage(doc, n, budget);
          } catch (err) {
            if (!(isParseError(err) && err.code === 'page_too_complex')) throw err;
            // Too much for pdf.js: the bounded path (a raster at a capped size, then OCR).
            return await overBudgetAsFailed(n, doc, () => ocrPdfPage(doc, n, prefetch, o), err);
          }
          if (o.fallbackOcr && !usableTextLayer(loaded))
            return await overBudgetAsFailed(n, doc, () =>
              ocrPdfPage(doc, n, prefetch, o, undefined, Promise.resolve(loaded)),
            );
          const laid: LaidOutPage = {
            pageNumber: n,
            widthPt: vpWidth(loaded),
            heightPt: vpHeight(loaded),
            elements: layoutLoadedPage(loaded),
            source: 'text',
          };
          return laid;
        } catch (err) {
          if (err instanceof ParseError) throw err;
          throw toParseError(err, n);
        }
      },
      o.timeoutMs,
      n,
    );
    out.push(page);
    o.onPage?.(page);
    await o.onProgress?.(i + 1, pages.length, 'text', { pageNumber: n, failed: !!page.failed });
  }
  return out;
}

/** Runs the page's bounded path; over the budget there too, the page comes back failed and empty. */
async function overBudgetAsFailed(
  n: number,
  doc: PDFDocumentProxy,
  work: () => Promise<LaidOutPage>,
  first?: ParseError,
): Promise<LaidOutPage> {
  try {
    return await work();
  } catch (err) {
    if (!(isParseError(err) && err.code === 'page_too_complex')) throw err;
    const page = await doc.getPage(n);
    const vp = page.getViewport({ scale: 1 });
    page.cleanup();
    const why = [first?.message, err.message].filter(Boolean).join('; ');
    return {
      pageNumber: n,
      widthPt: vp.width,
      heightPt: vp.height,
      elements: [],
      source: 'ocr',
      failed: { code: 'page_too_complex', message: sentence(why) },
    };
  }
}

const sentence = (s: string) => `${s.charAt(0).toUpperCase()}${s.slice(1)}.`;

async function ocrPdfPage(
  doc: PDFDocumentProxy,
  n: number,
  prefetch: OcrRasterPrefetch,
  o: TextPhaseOptions,
  next?: number,
  textLayer?: Promise<LoadedPage | undefined>,
): Promise<LaidOutPage> {
  const page = await doc.getPage(n);
  const vp = page.getViewport({ scale: 1 });
  page.cleanup();
  const job = prefetch.get(n, next);
  const a = o.ocrArtifacts;
  const own = !!a && a.claim(n);
  const relPath = `pages/${pageImageName(n)}`;
  const png = own && a!.renderPages ? path.join(a!.outDir, relPath) : undefined;
  // The page's own text layer (read while the raster is made) lends OCR its characters where it agrees.
  const layer = textLayer?.then(ocrTextLayer);
  layer?.catch(() => undefined);
  // The page's language, when no language was asked for: from its text layer's scripts (read
  // while the raster is made), else detected from the reading when that looks like another script.
  const language: PageLanguage | undefined = o.ocr.autoLang
    ? await pageLanguage(await textLayer?.catch(() => undefined))
    : undefined;
  let r;
  let pageDpi = a?.dpiOf(n) ?? o.ocr.dpi;
  try {
    const file = await job.raster;
    // The raster may be coarser than asked (pixel budget): boxes map back with its real resolution.
    const rasterDpi = await job.dpi;
    pageDpi = Math.min(pageDpi, rasterDpi);
    // A page in another script is read in its language: the process started with the default
    // (loading its model while the page rendered) is not used.
    const other = readsOtherwise(language?.choice, o.ocr.lang);
    if (other) job.tesseract.cancel();
    r = await ocrPdfRaster(
      file,
      n,
      vp.width,
      vp.height,
      { ...o.ocr, dpi: rasterDpi, ...(other ? { lang: language!.choice!.lang } : {}) },
      own ? { dpi: pageDpi, pngFile: png } : undefined,
      other ? undefined : job.tesseract,
      await layer,
      language,
    );
  } finally {
    job.tesseract.cancel(); // no-op once it has finished
  }
  const laid: LaidOutPage = {
    pageNumber: n,
    widthPt: vp.width,
    heightPt: vp.height,
    elements: r.elements,
    source: 'ocr',
    dpi: pageDpi,
  };
  const used = (await layer)?.use;
  if (used) laid.textLayer = used;
  if (language?.choice) laid.ocrLanguage = language.choice;
  // A layer that agrees with OCR and holds every word OCR read is the page's reading: the page is
  // laid out from it as the text backend would (OCR's own boxes split tables and columns otherwise).
  // OCR's words inside the layer's figures that the layer lacks (a raster chart's labels) are the
  // figures' text, as text drawn in a figure is on the text backend (not the reading flow).
  const input = await layer;
  if (layerReadsPage(used) && input?.elements) {
    laid.elements = withFigureWords(input.elements, input.figureWords ?? []);
    laid.source = 'text';
  } else if (layerLeadsPage(used) && input?.layoutWith && input.missingRuns?.length) {
    // Most of the page is the layer's: laid out from it and, where it has nothing, OCR's words.
    laid.elements = withFigureWords(input.layoutWith(input.missingRuns), input.figureWords ?? []);
    laid.source = 'text';
  }
  // A raster can come out blank where the file has text: poppler's rasteriser draws no glyphs on
  // pages of tens of thousands of points (measured: nothing at 100,000 pt, at any resolution). When
  // OCR read nothing, the page's own text layer (read within the budget) is used if it has text.
  if (!r.elements.some((e) => e.text.trim())) {
    const loaded = await loadTextPage(doc, n, o.budget).catch(() => undefined);
    if (loaded && loaded.textChars > 0) {
      laid.elements = layoutLoadedPage(loaded);
      laid.source = 'text';
    }
  }
  if (!own) return laid;
  const rendered =
    png && r.image ? { file: png, relPath, width: r.image.width, height: r.image.height, dpi: pageDpi } : undefined;
  laid.finished = await finishPage(laid, {
    pdfPath: a!.pdfPath,
    dpi: pageDpi,
    outDir: a!.outDir,
    tmp: a!.tmp,
    rendered,
    raster: r.pageRaster,
    timeoutMs: a!.timeoutMs,
  });
  return laid;
}

/** Letters a text layer needs to say which scripts its page is in (fewer: the reading decides). */
const MIN_LAYER_LETTERS = 20;

/**
 * What a page's text layer says about its OCR language: a language when its letters are in another
 * script (and whether that language is installed); nothing to detect when they are Latin; detection
 * from the reading when it has (nearly) no letters. The characters are the layer's as pdf.js gives
 * them (an unusable layer's private-use glyphs are letters of no script).
 */
async function pageLanguage(p: LoadedPage | undefined): Promise<PageLanguage> {
  const letters = scriptLetters(p?.runs.map((r) => r.text) ?? []);
  const total = Object.values(letters).reduce((a, b) => a + b, 0);
  if (total < MIN_LAYER_LETTERS) return { detect: true };
  const choice = await chooseInstalled(letters, languageFromLetters);
  return { detect: false, ...(choice ? { choice } : {}) };
}

/**
 * A loaded page's text layer as OCR's helper: upright pages with text only (OCR reads them as
 * displayed), with the page laid out from it (used as is when OCR confirms the layer) and the
 * figures of that layout.
 */
function ocrTextLayer(p: LoadedPage | undefined): TextLayerInput | undefined {
  if (!p || p.frame.turn !== 0 || p.textChars === 0) return undefined;
  const elements = layoutLoadedPage(p);
  const figures = elements
    .filter((e) => e.type === 'figure')
    .map((f) => ({ x0: f.x0, y0: f.y0, x1: f.x1, y1: f.y1, captioned: captioned(f, elements) }));
  const layoutWith = (runs: TextRun[]) => layoutLoadedPage({ ...p, runs: [...p.runs, ...runs] });
  return { runs: p.runs, elements, figures, layoutWith };
}

/**
 * A "Figure n" caption starts an element just above or below the figure, across its width, or
 * starts the figure's own text (a caption set inside the figure's box, over an image's margin, is
 * laid out as the figure's text: a screenshot's caption).
 */
const captioned = (fig: LayoutElement, els: LayoutElement[]) =>
  FIGURE_CAPTION.test(fig.text.trim()) ||
  els.some(
    (e) =>
      e.type !== 'figure' &&
      e.x1 > fig.x0 &&
      e.x0 < fig.x1 &&
      (Math.abs(e.y0 - fig.y1) < 30 || Math.abs(fig.y0 - e.y1) < 30) &&
      FIGURE_CAPTION.test(e.text.trim()),
  );

/** Each figure's text followed by the OCR words inside it (in Tesseract's reading order). */
function withFigureWords(elements: LayoutElement[], words: PlacedWord[]): LayoutElement[] {
  if (!words.length) return elements;
  return elements.map((e) => {
    if (e.type !== 'figure') return e;
    const inside = words.filter((w) => centerInside(w, e)).map((w) => w.text);
    return inside.length ? { ...e, text: [e.text, ...inside].filter(Boolean).join(' ') } : e;
  });
}

/** Lays a loaded page out in its reading frame; the elements come back on the page as displayed. */
export function layoutLoadedPage(p: LoadedPage) {
  return elementsToDisplay(layoutPage(p), p.frame);
}
const quarter = (p: LoadedPage) => p.frame.turn === 90 || p.frame.turn === 270;
const vpWidth = (p: LoadedPage) => (quarter(p) ? p.height : p.width);
const vpHeight = (p: LoadedPage) => (quarter(p) ? p.width : p.height);

/**
 * A text layer is unusable when it is (nearly) empty, mostly undecodable glyphs, or a thin
 * layer over a page-sized scan.
 */
export function usableTextLayer(p: LoadedPage): boolean {
  if (p.textChars < 10) return false;
  let bad = 0,
    total = 0;
  for (const r of p.runs)
    for (const ch of r.text) {
      if (/\s/.test(ch)) continue;
      total++;
      if (/[\uE000-\uF8FF\uFFFD\u0000-\u001F]/.test(ch)) bad++;
    }
  if (total > 0 && bad / total > 0.3) return false;
  const pageArea = p.width * p.height;
  const scanLike = p.graphics.images.some((b) => (b.x1 - b.x0) * (b.y1 - b.y0) > 0.8 * pageArea);
  return !(scanLike && p.textChars < 150);
}
