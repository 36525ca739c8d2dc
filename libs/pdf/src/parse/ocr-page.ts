// OCR backend for one page: raster (pdftoppm for PDFs, sharp for images) → Tesseract TSV →
// runs in points → the same layout pipeline as the text layer. A PDF page is rasterised once, at
// the OCR resolution: Tesseract reads that file while the same pixels, downscaled to `dpi`, become
// the page image (and the source of crops), so no second pdftoppm run and no PNG decode.
// Tesseract itself is started together with pdftoppm and loads its model while the page renders.
import fs from 'node:fs/promises';
import path from 'node:path';
import { layoutPage } from '../layout/page-layout';
import { detectRasterLines, toRulings } from '../ocr/raster-rulings';
import { rereadTables } from '../ocr/table-structure-pass';
import { runTesseractTsv, startTesseractTsv, tsvToRuns, type TesseractRun } from '../ocr/tesseract-tsv';
import { toPgm, type ImagePage } from '../render/image-input';
import { pageSizeAt, resizeRaster, writePagePng } from '../render/page-image';
import { parsePnm, readPnm, type RawImage } from '../render/ppm';
import { rasterisePage } from '../render/rasterise';
import type { LayoutElement, PageGraphics, TextRun } from '../types';

export interface OcrSettings {
  /** Nominal OCR resolution (Tesseract's --dpi); a page's raster may be made coarser (pixel budget). */
  dpi: number;
  lang: string;
  timeoutSeconds: number;
  /** The page budget's time for making the raster (bounded path); over it the page is too complex. */
  rasterBudgetSeconds?: number;
}

/** Resolution of page n's OCR raster (the nominal dpi capped by the pixel budget). */
export type DpiOf = (pageNumber: number) => number | Promise<number>;

export const emptyGraphics = (): PageGraphics => ({ images: [], drawings: [], hRules: [], vRules: [], fillRects: [], shapes: [] });

const memo = <T>(f: () => Promise<T>): (() => Promise<T>) => {
  let p: Promise<T> | undefined;
  return () => (p ??= f());
};

/** One OCR page in flight: its raster being rendered and its Tesseract process loading. */
export interface OcrPageJob {
  raster: Promise<string>;
  /** The raster's resolution (boxes map back to points with it). */
  dpi: Promise<number>;
  tesseract: TesseractRun;
  /** Kills both (a page nobody will ask for); the raster file, if any, is removed. */
  cancel(): void;
}

/**
 * Starts PDF pages for OCR one step ahead: while Tesseract reads page n, pdftoppm renders page
 * n + 1 and the Tesseract process for n + 1 loads its model (it gets its raster when page n is
 * done, so one page is read at a time). Only files wait on disk; no raster of a page that is not
 * being processed is held in memory.
 */
export class OcrRasterPrefetch {
  private readonly pending = new Map<number, OcrPageJob>();
  private readonly abort = new AbortController();
  private readonly mkdir = memo(() => fs.mkdir(this.dir, { recursive: true }));
  constructor(private readonly pdfPath: string, private readonly dir: string, private readonly s: OcrSettings,
    private readonly dpiOf: DpiOf = () => s.dpi) {}

  /** Page n's job (started now unless it was prefetched); the caller owns it from here. */
  get(n: number, next?: number): OcrPageJob {
    const job = this.pending.get(n) ?? this.start(n);
    this.pending.delete(n);
    if (next !== undefined) this.warm(next);
    return job;
  }

  /**
   * Starts page n now. `eager`: Tesseract reads the raster as soon as it exists, before anyone asks
   * for the page (for the first OCR page, while pdf.js opens the file or the caller diffs pages).
   */
  warm(n: number, eager = false): void {
    let job = this.pending.get(n);
    if (!job) this.pending.set(n, (job = this.start(n)));
    if (eager) {
      const { raster, tesseract } = job;
      raster.then((f) => tesseract.recognize(f)).catch(() => undefined);
    }
  }

  /** Kills started pages that will not be asked for (a head start for a page this parse skips). */
  keepOnly(pages: Set<number>): void {
    for (const [n, job] of this.pending) {
      if (pages.has(n)) continue;
      this.pending.delete(n);
      job.cancel();
    }
  }

  /** Kills the jobs nobody took (a failed or cancelled parse) and removes their files. */
  async stop(): Promise<void> {
    this.abort.abort();
    for (const job of this.pending.values()) {
      job.cancel();
      await job.raster.catch(() => undefined);
    }
    this.pending.clear();
  }

  private start(n: number): OcrPageJob {
    const abort = new AbortController();
    const stopAll = () => abort.abort();
    this.abort.signal.addEventListener('abort', stopAll, { once: true });
    const dpi = Promise.resolve().then(() => this.dpiOf(n));
    dpi.catch(() => undefined);
    const raster = Promise.all([this.mkdir(), dpi]).then(([, d]) => {
      if (abort.signal.aborted) throw new Error('OCR raster not needed');
      const budget = this.s.rasterBudgetSeconds;
      return rasterisePage(this.pdfPath, path.join(this.dir, `p${n}`), n, {
        dpi: d, gray: true, timeoutMs: this.s.timeoutSeconds * 1000, budgetMs: budget === undefined ? undefined : budget * 1000, signal: abort.signal,
      });
    });
    raster.catch(() => undefined);
    void raster.finally(() => this.abort.signal.removeEventListener('abort', stopAll)).catch(() => undefined);
    const tesseract = startTesseractTsv({ dpi: this.s.dpi, lang: this.s.lang, timeoutSeconds: this.s.timeoutSeconds, pageNumber: n });
    return {
      raster,
      dpi,
      tesseract,
      cancel: () => {
        abort.abort();
        tesseract.cancel();
        raster.then((f) => fs.rm(f, { force: true }), () => undefined);
      },
    };
  }
}

/**
 * Tesseract + layout on a raster file (left in place). `raster` yields the same pixels in memory
 * (memoised, so a caller that already read them shares the copy); only pages whose words line up
 * like a table need them, for the ruling scan and the structure pass.
 */
export async function ocrRaster(file: string, pageNumber: number, widthPt: number, heightPt: number, s: OcrSettings,
  raster: () => Promise<RawImage> = memo(() => readPnm(file)), tesseract?: TesseractRun): Promise<LayoutElement[]> {
  const tsv = tesseract ? await tesseract.recognize(file) : await runTesseractTsv(file, { dpi: s.dpi, lang: s.lang, timeoutSeconds: s.timeoutSeconds, pageNumber });
  let runs = tsvToRuns(tsv, s.dpi);
  let elements = layoutOcr(runs, emptyGraphics(), widthPt, heightPt);
  // Only pages whose words already line up like a table pay for the ruling scan and the
  // structure pass; plain text pages cost exactly one Tesseract run.
  if (elements.some((e) => e.table)) {
    const gray = toGray(await raster());
    const lines = detectRasterLines(gray, s.dpi);
    const graphics: PageGraphics = { ...emptyGraphics(), hRules: toRulings(lines.h, s.dpi), vRules: toRulings(lines.v, s.dpi) };
    elements = layoutOcr(runs, graphics, widthPt, heightPt);
    const tables = elements.filter((e) => e.table);
    if (tables.length && lines.h.length + lines.v.length > 0) {
      runs = await rereadTables({
        raster: gray, dpi: s.dpi, lines: [...lines.h, ...lines.v], tables, runs, tmpDir: path.dirname(file), pageNumber, lang: s.lang, timeoutSeconds: s.timeoutSeconds,
      });
      elements = layoutOcr(runs, graphics, widthPt, heightPt);
    }
  }
  return elements;
}

/** ocrRaster, then the raster file is deleted. */
export async function ocrRasterFile(file: string, pageNumber: number, widthPt: number, heightPt: number, s: OcrSettings,
  raster?: () => Promise<RawImage>, tesseract?: TesseractRun): Promise<LayoutElement[]> {
  try {
    return await ocrRaster(file, pageNumber, widthPt, heightPt, s, raster, tesseract);
  } finally {
    await fs.rm(file, { force: true });
  }
}

export interface OcrPageImage {
  /** Resolution of the page image and of pixel boxes (≤ the OCR resolution). */
  dpi: number;
  /** Where to write the page PNG; without it only crops are served from the raster. */
  pngFile?: string;
}

export interface OcrPageResult {
  elements: LayoutElement[];
  /** Size of the page image written (pngFile given). */
  image?: { width: number; height: number };
  /** The page at `image.dpi`, kept only when the page has figures or tables to crop. */
  pageRaster?: RawImage;
}

const CROPPED = new Set(['figure', 'table']);

/**
 * One OCR'd PDF page from its single raster (deleted afterwards): Tesseract reads the file while
 * the same pixels are read once into memory, downscaled to `image.dpi` and written as the page PNG
 * on the other core. At most this page's two rasters (OCR and page resolution) are in memory.
 */
export async function ocrPdfRaster(file: string, pageNumber: number, widthPt: number, heightPt: number, s: OcrSettings,
  image?: OcrPageImage, tesseract?: TesseractRun): Promise<OcrPageResult> {
  const raster = memo(() => readPnm(file));
  const atPageDpi = memo(async () => {
    const r = await raster();
    const size = pageSizeAt(widthPt, heightPt, image!.dpi, r, s.dpi);
    return resizeRaster(r, size.width, size.height);
  });
  const png = image?.pngFile ? atPageDpi().then(async (r) => { await writePagePng(r, image.pngFile!); return r; }) : undefined;
  png?.catch(() => undefined);
  try {
    const elements = await ocrRaster(file, pageNumber, widthPt, heightPt, s, raster, tesseract);
    if (!image) return { elements };
    const pageImage = png ? await png : undefined;
    const crops = elements.some((e) => CROPPED.has(e.type));
    return {
      elements,
      image: pageImage && { width: pageImage.width, height: pageImage.height },
      pageRaster: crops ? pageImage ?? (await atPageDpi()) : undefined,
    };
  } finally {
    await png?.catch(() => undefined); // never leave a write running once the page has failed
    await fs.rm(file, { force: true });
  }
}

function toGray(img: RawImage): RawImage {
  if (img.channels === 1) return img;
  const out = Buffer.alloc(img.width * img.height);
  for (let i = 0, j = 0; i < out.length; i++, j += 3) out[i] = (img.data[j]! * 299 + img.data[j + 1]! * 587 + img.data[j + 2]! * 114) / 1000;
  return { width: img.width, height: img.height, channels: 1, data: out };
}

/** Small images (table crops, screenshots) are upscaled for Tesseract, which wants ~20 px letters. */
const MIN_OCR_WIDTH = 1600;

export async function ocrImagePage(img: ImagePage, pageNumber: number, tmpDir: string, s: OcrSettings): Promise<LayoutElement[]> {
  const file = path.join(tmpDir, `ocr-image-${pageNumber}.pgm`);
  const scale = img.width < MIN_OCR_WIDTH ? Math.min(4, MIN_OCR_WIDTH / img.width) : 1;
  // The raster's resolution grows with the upscale, so boxes still map back to image pixels.
  const ocr = { ...s, dpi: img.density * scale };
  // Tesseract loads its model while sharp makes the greyscale raster.
  const tesseract = startTesseractTsv({ dpi: ocr.dpi, lang: ocr.lang, timeoutSeconds: ocr.timeoutSeconds, pageNumber });
  try {
    const pgm = await toPgm(img, scale);
    await fs.writeFile(file, pgm);
    const k = 72 / img.density;
    // A tabular page's ruling scan reuses the PGM bytes in memory instead of reading the file back.
    return await ocrRasterFile(file, pageNumber, img.width * k, img.height * k, ocr, async () => parsePnm(pgm), tesseract);
  } finally {
    tesseract.cancel(); // no-op once it has finished
  }
}

function layoutOcr(runs: TextRun[], graphics: PageGraphics, widthPt: number, heightPt: number): LayoutElement[] {
  const elements = layoutPage({ width: widthPt, height: heightPt, runs, graphics, source: 'ocr' });
  for (const el of elements) {
    if (el.table && el.table.cellsSource === 'grid-estimate' && !el.table.cellsEstimateReason) {
      el.table.cellsEstimateReason = 'scanned page: no column gaps in the word alignment, columns split uniformly';
    }
  }
  return elements;
}
