// A head start for OCR of a PDF: the worker knows a job is an OCR parse before it has hashed and
// diffed the pages, so it starts page 1 then (pdftoppm, and Tesseract reading the raster as soon
// as it exists); parsePages takes the page over when it OCRs that page of that file with the same
// settings, and otherwise it is killed.
import fs from 'node:fs/promises';
import { DEFAULT_PAGE_BUDGET, cappedDpi, type PageBudget } from '../budget';
import { pagePointSize } from '../pdfjs-loader';
import { OcrRasterPrefetch, type OcrSettings } from './ocr-page';
import { DEFAULT_OCR_LANG } from '../ocr/ocr-language';
import { makeScratchDirSync } from './scratch';

export interface OcrHeadStartOptions {
  /** Page to start (default 1, the page a first parse always parses). */
  pageNumber?: number;
  /** As parsePages' ocrDpi, ocrLang, timeoutSeconds (the head start is only used when they match). */
  ocrDpi?: number;
  ocrLang?: string;
  timeoutSeconds?: number;
  /** As parsePages' budget: the raster is made within its pixel cap (the page's size is read first). */
  budget?: PageBudget;
}

export class OcrHeadStart {
  private disposed?: Promise<void>;

  private constructor(
    readonly pdfPath: string,
    readonly settings: OcrSettings,
    readonly budget: PageBudget,
    readonly dir: string,
    readonly prefetch: OcrRasterPrefetch,
  ) {}

  static start(pdfPath: string, opts: OcrHeadStartOptions = {}): OcrHeadStart {
    const budget = opts.budget ?? DEFAULT_PAGE_BUDGET;
    const settings: OcrSettings = {
      dpi: opts.ocrDpi ?? 300,
      lang: opts.ocrLang ?? DEFAULT_OCR_LANG,
      timeoutSeconds: opts.timeoutSeconds ?? 120,
      rasterBudgetSeconds: budget.maxSeconds,
    };
    const dir = makeScratchDirSync('ocr');
    // The page's size decides its raster's resolution (a 200,000-pt page must not render at 300 dpi).
    const dpiOf = async (n: number) => {
      const size = await pagePointSize(pdfPath, n);
      return cappedDpi(size.width, size.height, settings.dpi, budget);
    };
    const head = new OcrHeadStart(pdfPath, settings, budget, dir, new OcrRasterPrefetch(pdfPath, dir, settings, dpiOf));
    const n = opts.pageNumber ?? 1;
    if (Number.isInteger(n) && n >= 1) head.prefetch.warm(n, true);
    return head;
  }

  /** Whether parsePages with these inputs can use it. */
  matches(pdfPath: string, s: OcrSettings, budget: PageBudget = DEFAULT_PAGE_BUDGET): boolean {
    const same = (a: PageBudget, b: PageBudget) =>
      a.maxOperators === b.maxOperators &&
      a.maxSeconds === b.maxSeconds &&
      a.maxMegapixels === b.maxMegapixels &&
      a.maxPixels === b.maxPixels;
    return (
      !this.disposed &&
      pdfPath === this.pdfPath &&
      s.dpi === this.settings.dpi &&
      s.lang === this.settings.lang &&
      s.timeoutSeconds === this.settings.timeoutSeconds &&
      same(budget, this.budget)
    );
  }

  /** Kills whatever was not taken and removes its files; safe to call more than once. */
  dispose(): Promise<void> {
    return (this.disposed ??= (async () => {
      await this.prefetch.stop();
      await fs.rm(this.dir, { recursive: true, force: true });
    })());
  }
}

/** Starts OCR of one page of a PDF ahead of parsePages; pass it as `ocrHeadStart` and dispose() it afterwards. */
export function startOcrHeadStart(pdfPath: string, opts?: OcrHeadStartOptions): OcrHeadStart {
  return OcrHeadStart.start(pdfPath, opts);
}
