import type { GroundingPage } from '@docfleet/contracts';
import type { PageBudget } from '../budget';
import type { LayoutElement } from '../types';
import type { DecodedImage } from '../render/image-input';
import type { ImageOcrHeadStart } from './image-head-start';
import type { OcrHeadStart } from './ocr-head-start';
import type { OcrPageReport } from '../ocr/recognise';
import type { TextLayerUse } from '../ocr/text-layer-words';
import type { OcrLanguageChoice } from '../ocr/ocr-language';

export type ParseBackend = 'text' | 'ocr';
export type ParsePhase = 'text' | 'figures';

/** A page that could not be read within the page budget, even by the bounded path. It is not charged. */
export interface FailedPage {
  code: 'page_too_complex';
  message: string;
}

/** With 'text' progress: the page just finished, and whether it failed (not charged). */
export interface PageProgress {
  pageNumber: number;
  failed: boolean;
}

export interface ParsePagesOptions {
  path: string;
  kind: 'pdf' | 'image';
  /** 1-based pages to parse; default every page. */
  pageNumbers?: number[];
  backend: ParseBackend;
  /** Resolution of page images and pixel_bbox (default 150). */
  dpi?: number;
  /** Write pages/page_NNNN.png (default true). */
  renderPages?: boolean;
  /** Artifact folder; pages/ and imgs/ are created inside it. */
  outDir: string;
  /** Text backend only: OCR pages whose text layer is unusable (default true). */
  pageFallbackOcr?: boolean;
  /** Per-page limit (default 120 s). */
  timeoutSeconds?: number;
  /** Raster resolution handed to Tesseract (default 300; boxes are still reported at `dpi`). */
  ocrDpi?: number;
  /**
   * Tesseract's language(s) for every OCR page ("eng", "ara+eng"). Unset: each page's language is
   * chosen from its own script (text layer, or script detection), the default being "eng".
   */
  ocrLang?: string;
  /**
   * Image pages: read the first rows again larger where in doubt, for documents whose key fields sit
   * in their header (receipts' issuer and address); one more Tesseract run per page. Default false.
   */
  ocrHeaderReread?: boolean;
  /**
   * Image pages: mend words of the first rows a letter off a known legal form or address word
   * (RecogniseOptions.headerLexicon). Default true; false for a before/after in one session.
   */
  ocrHeaderLexicon?: boolean;
  /**
   * Image pages: read again the body rows whose first reading lost text by the page's own evidence
   * (figures read with doubt, ink under no word, inked rows with no row): receipts' dates and totals.
   * One more Tesseract run on the pages that show a loss. Default false.
   */
  ocrBodyReread?: boolean;
  /**
   * Image pages with both re-reads on: their stacks read together, one Tesseract process per model
   * (RecogniseOptions.rowsTogether). Default true;
   * false reads each as it reads alone (a before/after in one session).
   */
  ocrRowsTogether?: boolean;
  /**
   * Image pages: once a table of small print has its grid, read each cell again upscaled with the
   * best English model (one more Tesseract run per such table), and mend values from the table
   * itself (repeated values, a column's decimals, the dash of its ranges). Default true: PubTabNet
   * crops 0.511 → 0.581, each crop as good or better (docs/benchmarks.md, 12.4, 2026-11-27 "values
   * mended"; ranges' dashes and the table's decimals: "last rows and ranges").
   */
  ocrCellReread?: boolean;
  /** Refuse documents with more pages than this. */
  maxPages?: number;
  /** Per-page budget (operators, time, pixels); default DEFAULT_PAGE_BUDGET. */
  budget?: Partial<PageBudget>;
  onProgress?: (done: number, total: number, phase: ParsePhase, page?: PageProgress) => void | Promise<void>;
  shouldCancel?: () => boolean | Promise<boolean>;
  /**
   * OCR work the caller started early (startOcrHeadStart) for this file; taken over when the path
   * and OCR settings match, else dropped. parsePages disposes it either way.
   */
  ocrHeadStart?: OcrHeadStart;
  /** Images: Tesseract the caller started early (startImageOcrHeadStart) for page 1 of this file; disposed by the caller. */
  imageOcrHeadStart?: ImageOcrHeadStart;
  /**
   * PDFs: pages go through the text and figures phases this many at a time (default: all at once).
   * With `onPageFinished`, 1 stores each page before the next is read (sharded parses).
   */
  stepPages?: number;
  /**
   * Called with each finished page instead of collecting it in `pages` (which then comes back
   * empty): the caller stores it and nothing accumulates in memory.
   */
  onPageFinished?: (page: ParsedPage) => Promise<void>;
  /** Images: pixels inspectDocument already decoded (`keepImage`), used for that page of this file. */
  decodedImage?: DecodedImage;
}

export interface ParsedPage {
  pageNumber: number;
  grounding: GroundingPage;
  markdown: string;
  /** Files written for this page, relative to outDir (pages/page_0001.png, imgs/p0001_figure_1.jpg). */
  files: string[];
  /** Backend that actually produced the page (the text backend may fall back to OCR per page). */
  source: ParseBackend;
  /** Image pages: which preprocessing won the OCR, what was tried, and any warning (no text read). */
  ocr?: OcrPageReport;
  /** OCR'd PDF pages that have a text layer: whether its characters were taken (it agreed with OCR). */
  textLayer?: TextLayerUse;
  /**
   * OCR pages whose script called for a language other than the default: the language read with
   * and the evidence (or the language that is not installed: a warning, see missingLanguageWarning).
   */
  ocrLanguage?: OcrLanguageChoice;
  /** Set when the page is over its budget: its grounding holds what could be read (often nothing). */
  failed?: FailedPage;
  /** Read, but its page image is over the page budget: no pages/page_NNNN.png (nor crops) for it. */
  noImage?: string;
}

export interface ParsePagesResult {
  pageCount: number;
  pages: ParsedPage[];
  timings: { textMs: number; figuresMs: number };
}

/** Output of the text phase for one page, before crops and ids. */
export interface LaidOutPage {
  pageNumber: number;
  widthPt: number;
  heightPt: number;
  elements: LayoutElement[];
  source: ParseBackend;
  /** Already finished in the text phase (OCR pages, from their raster in memory). */
  finished?: ParsedPage;
  failed?: FailedPage;
  /** Resolution of its page image and pixel boxes (the requested dpi capped by the pixel budget). */
  dpi?: number;
  textLayer?: TextLayerUse;
  ocrLanguage?: OcrLanguageChoice;
}
