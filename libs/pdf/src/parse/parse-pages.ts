// parsePages: the per-page parse the worker calls, on all pages or on the changed subset.
// Phase 'text' lays out every requested page; phase 'figures' writes page images and crops and
// builds grounding. Pages stream through: only layout elements are held between the phases.
// OCR pages and image inputs are the exception: their page image comes from the raster Tesseract
// reads, so they are finished in the text phase while that raster is in memory.
import fs from 'node:fs/promises';
import path from 'node:path';
import { cappedDpi, pageBudget, type PageBudget } from '../budget';
import { ParseError, isParseError } from '../parse-error';
import { closePdf, openPdf, readPdfBytes, type PDFDocumentProxy } from '../pdfjs-loader';
import { CropRasters } from '../render/crop-rasters';
import { imagePageCount, loadImagePage, statedOcrDpi } from '../render/image-input';
import { firstReadDpi } from '../ocr/recognise';
import { DEFAULT_OCR_LANG } from '../ocr/ocr-language';
import { writePagePng } from '../render/page-image';
import { makeScratchDir } from './scratch';
import { PageRenderer, pageImageName, type RenderedPage } from '../render/page-renderer';
import { finishPage } from './finish-page';
import { OcrRasterPrefetch, ocrImagePage, type OcrSettings } from './ocr-page';
import { throwIfCancelled, withPageTimeout } from './page-guard';
import type { ParsedPage, ParsePagesOptions, ParsePagesResult } from './parse-types';
import { layoutPdfPages, type OcrArtifacts } from './pdf-text-phase';

export type { ParsedPage, ParsePagesOptions, ParsePagesResult } from './parse-types';

export async function parsePages(opts: ParsePagesOptions): Promise<ParsePagesResult> {
  const dpi = opts.dpi ?? 150;
  if (!(dpi >= 36 && dpi <= 600)) throw new RangeError(`dpi must be between 36 and 600, got ${dpi}`);
  await fs.mkdir(path.join(opts.outDir, 'pages'), { recursive: true });
  await fs.mkdir(path.join(opts.outDir, 'imgs'), { recursive: true });
  const tmp = await makeScratchDir('pdf');
  try {
    return opts.kind === 'pdf' ? await parsePdf(opts, dpi, tmp) : await parseImage(opts, tmp);
  } finally {
    await opts.ocrHeadStart?.dispose();
    await fs.rm(tmp, { recursive: true, force: true });
  }
}

function settings(opts: ParsePagesOptions): { timeoutMs: number; ocr: OcrSettings; budget: PageBudget } {
  const timeoutSeconds = opts.timeoutSeconds ?? 120;
  const budget = pageBudget(opts.budget);
  return {
    timeoutMs: timeoutSeconds * 1000,
    budget,
    ocr: {
      dpi: opts.ocrDpi ?? 300,
      lang: opts.ocrLang ?? DEFAULT_OCR_LANG,
      autoLang: opts.ocrLang === undefined,
      timeoutSeconds,
      rasterBudgetSeconds: budget.maxSeconds,
      headerReread: opts.ocrHeaderReread ?? false,
      headerLexicon: opts.ocrHeaderLexicon ?? true,
      bodyReread: opts.ocrBodyReread ?? false,
      rowsTogether: opts.ocrRowsTogether ?? true,
      cellReread: opts.ocrCellReread ?? true,
    },
  };
}

/** Every requested page's size in points (UserUnit included), read before anything is rendered. */
async function pageSizes(
  doc: PDFDocumentProxy,
  pages: number[],
): Promise<Map<number, { width: number; height: number }>> {
  const out = new Map<number, { width: number; height: number }>();
  for (const n of pages) {
    const page = await doc.getPage(n);
    const vp = page.getViewport({ scale: 1 });
    out.set(n, { width: vp.width, height: vp.height });
  }
  return out;
}

function selectPages(requested: number[] | undefined, pageCount: number, maxPages?: number): number[] {
  if (maxPages !== undefined && pageCount > maxPages) {
    throw new ParseError('too_many_pages', `The document has ${pageCount} pages; the limit is ${maxPages}.`);
  }
  const pages = requested ?? Array.from({ length: pageCount }, (_, i) => i + 1);
  for (const n of pages) {
    if (!Number.isInteger(n) || n < 1 || n > pageCount) throw new RangeError(`page ${n} is outside 1..${pageCount}`);
  }
  return [...new Set(pages)].sort((a, b) => a - b);
}

async function parsePdf(opts: ParsePagesOptions, dpi: number, tmp: string): Promise<ParsePagesResult> {
  const { timeoutMs, ocr, budget } = settings(opts);
  const budgetMs = budget.maxSeconds * 1000;
  // A head start from the caller (page 1 started while it diffed pages) is used when it fits.
  const head = opts.ocrHeadStart?.matches(opts.path, ocr, budget) ? opts.ocrHeadStart : undefined;
  if (opts.ocrHeadStart && !head) await opts.ocrHeadStart.dispose();
  // Rasters are sized from each page's points (the pixel budget); known once pdf.js has opened the file.
  let sizes = new Map<number, { width: number; height: number }>();
  const capped = (n: number, base: number) => {
    const s = sizes.get(n);
    return s ? cappedDpi(s.width, s.height, base, budget) : base;
  };
  let sizesKnown!: () => void;
  const sizesReady = new Promise<void>((resolve) => {
    sizesKnown = resolve;
  });
  const prefetch =
    head?.prefetch ??
    new OcrRasterPrefetch(opts.path, path.join(tmp, 'ocr'), ocr, async (n) => {
      await sizesReady;
      return capped(n, ocr.dpi);
    });
  // The first OCR page starts now: pdftoppm renders, Tesseract loads and then reads the raster,
  // while pdf.js opens the file (nothing else is OCRing yet, so it need not wait its turn).
  const first = opts.pageNumbers?.length ? Math.min(...opts.pageNumbers) : 1;
  if (opts.backend === 'ocr' && Number.isInteger(first) && first >= 1) prefetch.warm(first, true);
  let renderer: PageRenderer | undefined;
  const pageDpi = (n: number) => capped(n, dpi);
  const cropRasters = new CropRasters(opts.path, CropRasters.dirIn(tmp), pageDpi, timeoutMs, budgetMs);
  let doc: Awaited<ReturnType<typeof openPdf>> | undefined;
  try {
    const bytes = await readPdfBytes(opts.path);
    doc = await openPdf(opts.path, bytes);
    const pages = selectPages(opts.pageNumbers, doc.numPages, opts.maxPages);
    sizes = await pageSizes(doc, pages);
    sizesKnown();
    prefetch.keepOnly(new Set(opts.backend === 'ocr' ? pages : []));
    // OCR pages make their page image from their OCR raster when it is at least as fine as `dpi`.
    const ocrImages = dpi <= ocr.dpi;
    // Page images of text pages render in the background (pdftoppm + sharp) while this thread extracts text.
    if (opts.renderPages !== false && !(opts.backend === 'ocr' && ocrImages))
      renderer = new PageRenderer(opts.path, pages, pageDpi, tmp, opts.outDir, timeoutMs, budgetMs);
    const ocrArtifacts: OcrArtifacts | undefined = ocrImages
      ? {
          pdfPath: opts.path,
          dpi,
          outDir: opts.outDir,
          tmp,
          timeoutMs,
          renderPages: opts.renderPages !== false,
          claim: (n) => !renderer || renderer.claim(n),
          dpiOf: pageDpi,
        }
      : undefined;
    // Pages go through the text phase and then the figures phase in steps of `stepPages` (default:
    // all at once). A step of 1 finishes each page (onPageFinished) before the next one is read, so
    // a caller that stores each finished page loses at most one page to a crash.
    const step = Math.max(1, opts.stepPages ?? pages.length);
    const out: ParsedPage[] = [];
    let textMs = 0;
    let figuresMs = 0;
    let textDone = 0;
    let figuresDone = 0;
    for (let at = 0; at < pages.length; at += step) {
      const chunk = pages.slice(at, at + step);
      const t0 = Date.now();
      const laid = await layoutPdfPages(doc, chunk, {
        path: opts.path,
        backend: opts.backend,
        fallbackOcr: opts.pageFallbackOcr ?? true,
        timeoutMs,
        ocr,
        tmp,
        prefetch,
        nextPage: (n) => pages[pages.indexOf(n) + 1],
        ocrArtifacts,
        budget,
        onProgress: (_done, _total, phase, page) => opts.onProgress?.(++textDone, pages.length, phase, page),
        shouldCancel: opts.shouldCancel,
        onPage: (p) => {
          if (p.failed)
            renderer?.claim(p.pageNumber); // a failed page is not rendered again
          else if (!renderer && !p.finished && p.elements.some((e) => e.type === 'figure' || e.type === 'table'))
            cropRasters.schedule(p.pageNumber);
        },
      });
      const t1 = Date.now();
      textMs += t1 - t0;
      for (const page of laid) {
        await throwIfCancelled(opts.shouldCancel);
        let done: ParsedPage;
        if (page.finished) {
          done = page.finished;
        } else if (page.failed) {
          const finished = await finishPage(page, {
            pdfPath: opts.path,
            dpi: pageDpi(page.pageNumber),
            outDir: opts.outDir,
            tmp,
            timeoutMs,
          });
          done = { ...finished, failed: page.failed };
        } else {
          let rendered: RenderedPage | undefined;
          let noImage: string | undefined;
          try {
            rendered = renderer
              ? await withPageTimeout(() => renderer!.page(page.pageNumber), timeoutMs, page.pageNumber)
              : undefined;
          } catch (err) {
            // Its text was read (and is kept), but its image is over the budget: the page has none.
            if (!(isParseError(err) && err.code === 'page_too_complex')) throw err;
            noImage = `${err.message.charAt(0).toUpperCase()}${err.message.slice(1)}.`;
          }
          const finished = await finishPage(page, {
            pdfPath: opts.path,
            dpi: rendered?.dpi ?? page.dpi ?? pageDpi(page.pageNumber),
            outDir: opts.outDir,
            tmp,
            rendered,
            cropRasters: noImage ? undefined : cropRasters,
            timeoutMs,
          });
          done = noImage ? { ...finished, noImage } : finished;
        }
        if (opts.onPageFinished) await opts.onPageFinished(done);
        else out.push(done);
        await opts.onProgress?.(++figuresDone, pages.length, 'figures');
      }
      figuresMs += Date.now() - t1;
    }
    return { pageCount: doc.numPages, pages: out, timings: { textMs, figuresMs } };
  } finally {
    sizesKnown?.();
    await (head ? head.dispose() : prefetch.stop());
    await renderer?.stop();
    await cropRasters.stop();
    await closePdf(doc);
  }
}

async function parseImage(opts: ParsePagesOptions, tmp: string): Promise<ParsePagesResult> {
  const { timeoutMs, ocr } = settings(opts);
  const pageCount = await imagePageCount(opts.path);
  const pages = selectPages(opts.pageNumbers, pageCount, opts.maxPages);
  const t0 = Date.now();
  const out: ParsedPage[] = [];
  for (const [i, n] of pages.entries()) {
    await throwIfCancelled(opts.shouldCancel);
    // Decoded once (or not at all here, when inspectDocument kept its pixels): the same pixels
    // feed Tesseract, the page image and the crops.
    const kept = opts.decodedImage;
    const img =
      kept && kept.path === opts.path && kept.pageIndex === n - 1 ? kept.image : await loadImagePage(opts.path, n - 1);
    const k = 72 / img.density;
    // The page image of an image input is the image itself, normalised; pixel boxes use its grid.
    // It is encoded on the other core while Tesseract runs.
    const relPath = `pages/${pageImageName(n)}`;
    const png = opts.renderPages !== false ? writePagePng(img, path.join(opts.outDir, relPath)) : undefined;
    png?.catch(() => undefined);
    const head =
      n === 1
        ? await opts.imageOcrHeadStart?.take(opts.path, {
            dpi: firstReadDpi(statedOcrDpi(img)),
            lang: ocr.lang,
            timeoutSeconds: ocr.timeoutSeconds,
          })
        : undefined;
    const { elements, report, language } = await withPageTimeout(
      () => ocrImagePage(img, n, tmp, ocr, head),
      timeoutMs,
      n,
    ).finally(() => png?.catch(() => undefined)); // no encode left running if the page failed
    await png;
    const rendered: RenderedPage | undefined = png
      ? { file: path.join(opts.outDir, relPath), relPath, width: img.width, height: img.height }
      : undefined;
    const page = await finishPage(
      {
        pageNumber: n,
        widthPt: img.width * k,
        heightPt: img.height * k,
        elements,
        source: 'ocr',
        ...(language ? { ocrLanguage: language } : {}),
      },
      {
        imagePath: opts.path,
        imageDensity: img.density,
        dpi: img.density,
        outDir: opts.outDir,
        tmp,
        rendered,
        raster: img,
        timeoutMs,
      },
    );
    out.push({ ...page, ocr: report });
    // The page is named as the PDF path names its pages: the worker charges a page on this call.
    await opts.onProgress?.(i + 1, pages.length, 'text', { pageNumber: n, failed: false });
  }
  const t1 = Date.now();
  for (const [i] of out.entries()) {
    await throwIfCancelled(opts.shouldCancel);
    await opts.onProgress?.(i + 1, out.length, 'figures');
  }
  return { pageCount, pages: out, timings: { textMs: t1 - t0, figuresMs: Date.now() - t1 } };
}
