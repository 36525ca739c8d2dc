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
import { rereadMissedText } from '../ocr/missed-text-pass';
import { tablesWithRowsBelow } from '../ocr/table-rows-below';
import { rereadTableCells, type CellRereadReport } from '../ocr/cell-reread';
import { noise, ocrRows, rowsToElements, rowsToRuns } from '../ocr/ocr-layout';
import { resizeGray, toGray, type GrayImage } from '../ocr/preprocess';
import { takeTextLayer, type TextLayerInput } from '../ocr/text-layer-words';
import {
  firstReadDpi,
  quality,
  recogniseImage,
  type FirstReading,
  type OcrPageReport,
  type OcrWord,
  wordsOfTsv,
} from '../ocr/recognise';
import { DOUBTFUL_READING_CONF, chooseInstalled, languageFromOsd, type OcrLanguageChoice } from '../ocr/ocr-language';
import { detectOrientation, runTesseractTsv, startTesseractTsv, type TesseractRun } from '../ocr/tesseract-tsv';
import { statedOcrDpi, type ImagePage } from '../render/image-input';
import { pageSizeAt, resizeRaster, writePagePng } from '../render/page-image';
import { readPnm, type RawImage } from '../render/ppm';
import { rasterisePage } from '../render/rasterise';
import { mendNamesByVote } from '../ocr/page-name-vote';
import type { LayoutElement, PageGraphics, TableCellModel, TextRun } from '../types';

export interface OcrSettings {
  /** Nominal OCR resolution (Tesseract's --dpi); a page's raster may be made coarser (pixel budget). */
  dpi: number;
  lang: string;
  /**
   * No language was asked for: `lang` is the default, and a page whose script calls for another
   * language is read in it (ocr-language.ts).
   */
  autoLang?: boolean;
  timeoutSeconds: number;
  /** The page budget's time for making the raster (bounded path); over it the page is too complex. */
  rasterBudgetSeconds?: number;
  /** Image pages: read doubtful header rows again larger (RecogniseOptions.headerReread). */
  headerReread?: boolean;
  /** Image pages: mend header words to known legal forms and address words (RecogniseOptions.headerLexicon). */
  headerLexicon?: boolean;
  /** Image pages: read rows that lost text again (RecogniseOptions.bodyReread). */
  bodyReread?: boolean;
  /** Image pages, both re-reads on: read together (RecogniseOptions.rowsTogether). Default true. */
  rowsTogether?: boolean;
  /** Image pages: read the cells of tables of small print again, upscaled (cell-reread.ts). Default true. */
  cellReread?: boolean;
}

/** Resolution of page n's OCR raster (the nominal dpi capped by the pixel budget). */
export type DpiOf = (pageNumber: number) => number | Promise<number>;

export const emptyGraphics = (): PageGraphics => ({
  images: [],
  drawings: [],
  hRules: [],
  vRules: [],
  fillRects: [],
  shapes: [],
});

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
  constructor(
    private readonly pdfPath: string,
    private readonly dir: string,
    private readonly s: OcrSettings,
    private readonly dpiOf: DpiOf = () => s.dpi,
  ) {}

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
        dpi: d,
        gray: true,
        timeoutMs: this.s.timeoutSeconds * 1000,
        budgetMs: budget === undefined ? undefined : budget * 1000,
        signal: abort.signal,
      });
    });
    raster.catch(() => undefined);
    void raster.finally(() => this.abort.signal.removeEventListener('abort', stopAll)).catch(() => undefined);
    const tesseract = startTesseractTsv({
      dpi: this.s.dpi,
      lang: this.s.lang,
      timeoutSeconds: this.s.timeoutSeconds,
      pageNumber: n,
    });
    return {
      raster,
      dpi,
      tesseract,
      cancel: () => {
        abort.abort();
        tesseract.cancel();
        raster.then(
          (f) => fs.rm(f, { force: true }),
          () => undefined,
        );
      },
    };
  }
}

/**
 * A PDF page's OCR language beyond `OcrSettings.lang`: `detect` asks for the script to be detected
 * when the reading looks like another script (the page had no text layer to tell); `choice` is what
 * was chosen (from the layer, before the reading; or detected), left here for the page's report.
 */
export interface PageLanguage {
  detect: boolean;
  choice?: OcrLanguageChoice;
}

/** Letters (and digits) a reading needs before its confidence says anything about its script. */
const MIN_LETTERS_FOR_SCRIPT = 20;

/**
 * Tesseract + layout on a raster file (left in place). `raster` yields the same pixels in memory
 * (memoised, so a caller that already read them shares the copy); only pages whose words line up
 * like a table need them, for the ruling scan and the structure pass.
 */
export async function ocrRaster(
  file: string,
  pageNumber: number,
  widthPt: number,
  heightPt: number,
  s: OcrSettings,
  raster: () => Promise<RawImage> = memo(() => readPnm(file)),
  tesseract?: TesseractRun,
  textLayer?: TextLayerInput,
  language?: PageLanguage,
): Promise<LayoutElement[]> {
  const readWith = async (lang: string, run?: TesseractRun) =>
    wordsOfTsv(
      run
        ? await run.recognize(file)
        : await runTesseractTsv(file, { dpi: s.dpi, lang, timeoutSeconds: s.timeoutSeconds, pageNumber }),
    );
  let words = await readWith(s.lang, tesseract);
  if (language?.detect) {
    // No text layer said which script the page is in: a reading that is mostly low-confidence
    // garbage may be another script, which Tesseract's script detection names. The page is read
    // again in that script's language and keeps whichever reading reads better.
    const q = quality(words);
    const letters = words.reduce((n, w) => n + (w.text.match(/[\p{L}\p{N}]/gu)?.length ?? 0), 0);
    if (letters >= MIN_LETTERS_FOR_SCRIPT && q.meanConf < DOUBTFUL_READING_CONF) {
      const osd = await detectOrientation(file, { timeoutSeconds: s.timeoutSeconds, pageNumber });
      const c = osd?.script
        ? await chooseInstalled({ script: osd.script, scriptConfidence: osd.scriptConfidence ?? 0 }, languageFromOsd)
        : undefined;
      if (c && c.lang !== s.lang) {
        const again = await readWith(c.lang);
        if (quality(again).score > q.score) {
          words = again;
          s = { ...s, lang: c.lang };
          language.choice = c;
        }
      } else if (c?.missing) language.choice = c;
    }
  }
  return layoutOcrWords(words, {
    k: 72 / s.dpi,
    widthPt,
    heightPt,
    raster,
    rasterDpi: s.dpi,
    tmpDir: path.dirname(file),
    pageNumber,
    s,
    textLayer,
  });
}

interface OcrLayoutContext {
  /** Points per raster pixel (72 / the raster's resolution). */
  k: number;
  widthPt: number;
  heightPt: number;
  /** The page's pixels (the grid the words' boxes are in), for the ruling scan of tabular pages. */
  raster: () => Promise<RawImage>;
  rasterDpi: number;
  tmpDir: string;
  pageNumber: number;
  s: OcrSettings;
  /** The PDF page's own text layer: its characters replace the OCR words' where it agrees. */
  textLayer?: TextLayerInput;
  /** Read the page again as one block when its first reading left text unread (image pages). */
  rereadMissed?: boolean;
  /** The page in the pixels the words' boxes are in (when `raster` is another scale of it). */
  wordsImage?: () => Promise<GrayImage>;
  /** Read the cells of tables of small print again, upscaled (image pages). */
  rereadCells?: boolean;
  /** Told what the cell re-read did (when it ran). */
  cellReport?: (r: CellRereadReport) => void;
  /** Otsu's threshold of `raster()` when already known (the missed-text pass measures ink with it). */
  rasterThreshold?: number;
}

/**
 * OCR words → elements: printed rows in reading order (ocr-layout), and tables only where the page
 * gives table evidence. Only pages whose words already line up like a table pay for the ruling
 * scan and the structure pass; plain pages cost no more than their one Tesseract reading.
 */
export async function layoutOcrWords(words: OcrWord[], c: OcrLayoutContext): Promise<LayoutElement[]> {
  // The layout's tolerances are in points, set for printed text. A page whose text measures far
  // smaller (a screen-resolution crop taken as a 300-dpi scan: 7 px letters are 1.7 pt) is laid
  // out in a frame where its text has print size, and its elements are scaled back.
  const f = c.textLayer ? 1 : printScale(words, c.k);
  if (f === 1) return layoutOcrWordsAt(words, c);
  const els = await layoutOcrWordsAt(words, {
    ...c,
    k: c.k * f,
    widthPt: c.widthPt * f,
    heightPt: c.heightPt * f,
    rasterDpi: c.rasterDpi / f,
  });
  return els.map((e) => scaleElement(e, 1 / f));
}

/** Median height of the words of printed text, in points, under which a page is laid out larger. */
const MIN_PRINT_WORD_PT = 4;
/** The median word height such a page is laid out at (the words of 10-pt type). */
const PRINT_WORD_PT = 7;

/**
 * Scale that brings the page's median word height (words with a letter or digit read at some
 * confidence) to print size when it is below MIN_PRINT_WORD_PT; 1 otherwise.
 */
export function printScale(words: OcrWord[], k: number): number {
  const hs = words
    .filter((w) => w.conf >= 40 && /[\p{L}\p{N}]/u.test(w.text))
    .map((w) => (w.y1 - w.y0) * k)
    .sort((a, b) => a - b);
  if (hs.length < 5) return 1;
  const median = hs[Math.floor(hs.length / 2)]!;
  return median > 0 && median < MIN_PRINT_WORD_PT ? PRINT_WORD_PT / median : 1;
}

function scaleElement(e: LayoutElement, s: number): LayoutElement {
  const box = <B extends { x0: number; y0: number; x1: number; y1: number }>(b: B): B => ({
    ...b,
    x0: b.x0 * s,
    y0: b.y0 * s,
    x1: b.x1 * s,
    y1: b.y1 * s,
  });
  const out = box(e);
  if (e.table) out.table = { ...box(e.table), cells: e.table.cells.map(box) };
  return out;
}

async function layoutOcrWordsAt(words: OcrWord[], c: OcrLayoutContext): Promise<LayoutElement[]> {
  const layer = c.textLayer?.runs;
  if (layer && c.textLayer) {
    const taken = takeTextLayer(words, c.k, layer, c.textLayer.figures, (w) => w.conf / 100);
    words = taken.items;
    c.textLayer.use = taken.use;
    c.textLayer.figureWords = taken.inFigures
      .filter((w) => !noise(w))
      .map((w) => ({ text: w.text, conf: w.conf, x0: w.x0 * c.k, y0: w.y0 * c.k, x1: w.x1 * c.k, y1: w.y1 * c.k }));
    const missing = taken.missing.filter((w) => !noise(w));
    c.textLayer.missingRuns = missing.length ? rowsToRuns(ocrRows(missing), c.k) : [];
  }
  if (c.rereadMissed) {
    // A first reading that left much of the ink in its rows unread (a table's lone figures) is
    // read again as one block (missed-text-pass.ts).
    const raster = toGray(await c.raster());
    words = await rereadMissedText({
      raster,
      px: (c.rasterDpi * c.k) / 72,
      dpi: c.rasterDpi,
      words,
      threshold: c.rasterThreshold,
      tmpDir: c.tmpDir,
      pageNumber: c.pageNumber,
      lang: c.s.lang,
      timeoutSeconds: c.s.timeoutSeconds,
    });
  }
  const rows = ocrRows(words);
  let runs = rowsToRuns(rows, c.k);
  const plain = layoutOcr(runs, emptyGraphics(), c.widthPt, c.heightPt);
  let tables: LayoutElement[] = [];
  if (plain.some((e) => e.table)) {
    const gray = toGray(await c.raster());
    const lines = detectRasterLines(gray, c.rasterDpi);
    const graphics: PageGraphics = {
      ...emptyGraphics(),
      hRules: toRulings(lines.h, c.rasterDpi),
      vRules: toRulings(lines.v, c.rasterDpi),
    };
    const ruled = (rs: TextRun[]) =>
      layoutOcr(rs, graphics, c.widthPt, c.heightPt).filter((e) => e.table && hasRulingEvidence(e, graphics));
    // No rules around it: a table only where the page is a grid (its rules are no evidence).
    const grid = (rs: TextRun[], els = layoutOcr(rs, emptyGraphics(), c.widthPt, c.heightPt)) =>
      gridTables(
        els.filter((e) => e.table && keepsRows(e, rs)),
        rs,
      );
    const hasLines = lines.h.length + lines.v.length > 0;
    // The page laid out again with its rules only when they are enough for some table's evidence.
    const byRules = mayHaveRulingEvidence(graphics) ? ruled(runs) : [];
    tables = byRules.length ? byRules : grid(runs, plain);
    if (tables.length && hasLines) {
      // Tables on a page with rules are read again with the rules erased (the structure pass).
      let again = await rereadTables({
        raster: gray,
        dpi: c.rasterDpi,
        lines: [...lines.h, ...lines.v],
        tables,
        runs,
        tmpDir: c.tmpDir,
        pageNumber: c.pageNumber,
        lang: c.s.lang,
        timeoutSeconds: c.s.timeoutSeconds,
      });
      // The table's second reading takes the agreeing text layer's characters too.
      if (layer && c.textLayer?.use?.used) again = takeTextLayer(again, 1, layer, [], (r) => r.conf ?? 1).items;
      // A second reading whose words no longer make the table (a borderless table under a rule
      // or two, read as lines of another shape) does not lose the table the first reading found.
      const rebuilt = byRules.length ? ruled(again) : grid(again);
      if (rebuilt.length) {
        runs = again;
        tables = rebuilt;
      }
    }
    // A last row set off by a rule or with its figures unread joins the table it lines up with.
    if (tables.length) tables = tablesWithRowsBelow({ gray, pxPerPt: c.rasterDpi / 72, tables, runs });
  }
  if (tables.length && c.rereadCells) {
    // Tables of small print: each cell read again upscaled, once the grid is known (cell-reread.ts).
    const px = (c.rasterDpi * c.k) / 72;
    const done = await rereadTableCells({
      // The page in the words' own pixels (an image page's, not the upscaled copy it was read at).
      gray: c.wordsImage
        ? await c.wordsImage()
        : px === 1
          ? toGray(await c.raster())
          : await resizeGray(toGray(await c.raster()), 1 / px),
      pxPerPt: 1 / c.k,
      tables,
      runs,
      tmpDir: c.tmpDir,
      pageNumber: c.pageNumber,
      lang: c.s.lang,
      timeoutSeconds: c.s.timeoutSeconds,
    });
    tables = done.tables;
    c.cellReport?.(done.report);
  }
  return rowsToElements(rows, c.k, tables);
}

/**
 * Table evidence on a scanned page: ruling lines along the table (two across and one down at
 * least, inside its box), or a page that is a grid (gridTables). Label–value lists (receipts'
 * totals, forms) and item lines between a receipt's header and its totals stay lines of text.
 */
export function hasRulingEvidence(el: LayoutElement, g: PageGraphics): boolean {
  const inside = (r: { x0: number; y0: number; x1: number; y1: number }) =>
    r.x1 >= el.x0 - 3 && r.x0 <= el.x1 + 3 && r.y1 >= el.y0 - 3 && r.y0 <= el.y1 + 3;
  const h = g.hRules.filter((r) => inside(r) && r.x1 - r.x0 >= 0.5 * (el.x1 - el.x0)).length;
  const v = g.vRules.filter((r) => inside(r) && r.y1 - r.y0 >= 0.3 * (el.y1 - el.y0)).length;
  return h >= RULED_TABLE_H_RULES && v >= RULED_TABLE_V_RULES;
}

/** Rules across and down that a table's ruling evidence needs at least (hasRulingEvidence). */
const RULED_TABLE_H_RULES = 2;
const RULED_TABLE_V_RULES = 1;

/**
 * False when the page's rules are too few for any table to have ruling evidence (hasRulingEvidence
 * counts a subset of them), so laying the page out with them cannot give a ruled table (issue 23:
 * most receipts have a dashed rule or two across and none down).
 */
export function mayHaveRulingEvidence(g: PageGraphics): boolean {
  return g.hRules.length >= RULED_TABLE_H_RULES && g.vRules.length >= RULED_TABLE_V_RULES;
}

/**
 * Tables of a page that is a grid: tables of three or more columns with at least three rows holding
 * three or more filled cells, kept only when together they hold most of the page's words.
 */
export function gridTables(cands: LayoutElement[], runs: TextRun[]): LayoutElement[] {
  const grids = cands.filter((el) => {
    const t = el.table!;
    if (t.cols < 3) return false;
    const filled = new Map<number, number>();
    for (const cell of t.cells) if (cell.text.trim()) filled.set(cell.row, (filled.get(cell.row) ?? 0) + 1);
    return [...filled.values()].filter((n) => n >= 3).length >= 3;
  });
  const inside = runs.filter((r) =>
    grids.some(
      (el) =>
        (r.x0 + r.x1) / 2 >= el.x0 &&
        (r.x0 + r.x1) / 2 <= el.x1 &&
        (r.y0 + r.y1) / 2 >= el.y0 &&
        (r.y0 + r.y1) / 2 <= el.y1,
    ),
  ).length;
  return inside >= 0.6 * runs.length ? grids : [];
}

/**
 * The table keeps the page's printed rows apart: no table row holds two printed rows that each fill
 * three or more of its cells (that is two records run together, not a cell's wrapped text).
 */
export function keepsRows(el: LayoutElement, runs: TextRun[]): boolean {
  const t = el.table!;
  const byRow = new Map<number, TableCellModel[]>();
  for (const c of t.cells) byRow.set(c.row, [...(byRow.get(c.row) ?? []), c]);
  for (const cells of byRow.values()) {
    const filled = new Map<string, Set<TableCellModel>>();
    for (const r of runs) {
      const cx = (r.x0 + r.x1) / 2,
        cy = (r.y0 + r.y1) / 2;
      const cell = cells.find((c) => cx >= c.x0 && cx <= c.x1 && cy >= c.y0 && cy <= c.y1);
      if (!cell) continue;
      const key = r.ocrLine ?? '';
      filled.set(key, (filled.get(key) ?? new Set()).add(cell));
    }
    if ([...filled.values()].filter((set) => set.size >= 3).length >= 2) return false;
  }
  return true;
}

/** ocrRaster, then the raster file is deleted. */
export async function ocrRasterFile(
  file: string,
  pageNumber: number,
  widthPt: number,
  heightPt: number,
  s: OcrSettings,
  raster?: () => Promise<RawImage>,
  tesseract?: TesseractRun,
): Promise<LayoutElement[]> {
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
export async function ocrPdfRaster(
  file: string,
  pageNumber: number,
  widthPt: number,
  heightPt: number,
  s: OcrSettings,
  image?: OcrPageImage,
  tesseract?: TesseractRun,
  textLayer?: TextLayerInput,
  language?: PageLanguage,
): Promise<OcrPageResult> {
  const raster = memo(() => readPnm(file));
  const atPageDpi = memo(async () => {
    const r = await raster();
    const size = pageSizeAt(widthPt, heightPt, image!.dpi, r, s.dpi);
    return resizeRaster(r, size.width, size.height);
  });
  const png = image?.pngFile
    ? atPageDpi().then(async (r) => {
        await writePagePng(r, image.pngFile!);
        return r;
      })
    : undefined;
  png?.catch(() => undefined);
  try {
    const elements = await ocrRaster(file, pageNumber, widthPt, heightPt, s, raster, tesseract, textLayer, language);
    if (!image) return { elements };
    const pageImage = png ? await png : undefined;
    const crops = elements.some((e) => CROPPED.has(e.type));
    return {
      elements,
      image: pageImage && { width: pageImage.width, height: pageImage.height },
      pageRaster: crops ? (pageImage ?? (await atPageDpi())) : undefined,
    };
  } finally {
    await png?.catch(() => undefined); // never leave a write running once the page has failed
    await fs.rm(file, { force: true });
  }
}

/**
 * An image page: recognised with the preprocessing its own pixels call for (recognise.ts), laid
 * out from Tesseract's boxes. Boxes are in the image's pixels; points use the image's resolution.
 */
export async function ocrImagePage(
  img: ImagePage,
  pageNumber: number,
  tmpDir: string,
  s: OcrSettings,
  started?: TesseractRun & { prepared?: { first: FirstReading; file: string } },
): Promise<{ elements: LayoutElement[]; report: OcrPageReport; language?: OcrLanguageChoice }> {
  const statedDpi = statedOcrDpi(img);
  // Tesseract loads its model while the raster is prepared (or was started by the caller even earlier).
  const tesseract =
    started ??
    startTesseractTsv({
      dpi: firstReadDpi(statedDpi),
      lang: s.lang,
      timeoutSeconds: s.timeoutSeconds,
      pageNumber,
    });
  try {
    const {
      words: read,
      report,
      gray,
      readAsBlock,
      grayThreshold,
      scaledGray,
      language,
    } = await recogniseImage(img, {
      lang: s.lang,
      autoLang: s.autoLang,
      timeoutSeconds: s.timeoutSeconds,
      pageNumber,
      tmpDir,
      statedDpi,
      tesseract,
      headerReread: s.headerReread,
      headerLexicon: s.headerLexicon,
      bodyReread: s.bodyReread,
      rowsTogether: s.rowsTogether,
      // Page 1 of an image may already be prepared and being read (the worker's head start).
      ...(started?.prepared ? { prepared: { first: started.prepared.first, file: started.prepared.file } } : {}),
    });
    // A letterhead's name read one letter off the spelling the page's other mentions agree on
    // (page-name-vote.ts: "SANYO" above "SANYU SUPPLY" and "Sanyu.Stationery"); off with the lexicon.
    const vote = s.headerLexicon === false ? undefined : mendNamesByVote(read, pageNumber);
    const words = vote?.words ?? read;
    if (vote?.fixes.length) report.lexicon = [...(report.lexicon ?? []), ...vote.fixes];
    const k = 72 / img.density;
    // Tabular pages scan for rules and re-read tables on the pixels at the scale the page was read at.
    const scale = report.rotation ? 1 : report.scale;
    const elements = await layoutOcrWords(words, {
      k,
      widthPt: img.width * k,
      heightPt: img.height * k,
      // The grey page the reading was prepared from (not the colour image converted again), resized
      // once however many passes ask for it (the missed-text pass and the ruling scan both do); a
      // downscaled page's first reading already is that page when nothing was cropped or whitened.
      raster: memo(async () => (scale === 1 ? gray : (scaledGray ?? resizeGray(gray, scale)))),
      rasterDpi: img.density * scale,
      tmpDir,
      pageNumber,
      // The passes over the page (missed text, tables) read in the language the page was read in.
      s: language ? { ...s, lang: language.lang } : s,
      // The missed-text pass reads the page again as one block (psm 6) to find the marks the automatic
      // segmentation dropped; a page whose words are already a one-block reading has none to find
      // (506.jpg: the pass, as long as a whole reading, added no word).
      rereadMissed: !readAsBlock,
      // The reading measured the grey page's ink threshold while Tesseract read it; a resized page has its own.
      ...(scale === 1 ? { rasterThreshold: grayThreshold } : {}),
      // Tables of small print: each cell read again upscaled (cell-reread.ts; on unless OcrPageOptions.cellReread is false).
      rereadCells: s.cellReread ?? true,
      wordsImage: async () => gray,
      cellReport: (r) => {
        if (r.runs) report.cells = r;
      },
    });
    return { elements, report, ...(language ? { language } : {}) };
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
