// Reading one image page with Tesseract, the preprocessing chosen by evidence on the page itself:
// the page is read as it is (dark borders cropped, dashed separator rules whitened, `--dpi` only
// when the file states a real resolution); other variants are read only when that reading says
// they may do better (small text → upscaled; little or no text where there is ink → binarised,
// inverted, turned upright by Tesseract's orientation detection; low confidence → orientation
// check). The variant with the best confidence-weighted text wins, and the page reports which.
// Word boxes always come back in the original image's pixels.
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { RawImage } from '../render/ppm';
import {
  binarise,
  crop,
  inkRows,
  inkShare,
  invert,
  meanBrightness,
  otsuThreshold,
  paperRect,
  resizeGray,
  rowBands,
  toGray,
  whiten,
  writePgm,
  type GrayImage,
  type Rect,
  type RuleBand,
} from './preprocess';
import { readBands, type Band } from './band-reread';
import { rereadHeaderRows, startHeaderRuns } from './header-reread';
import { rereadBodyRows, startBodyRun } from './body-reread';
import { rereadRows, startRowRuns, type RowRuns } from './rows-reread';
import { mendHeaderWords, type LexiconFix } from './header-lexicon';
import { ocrRows } from './ocr-layout';
import type { CellRereadReport } from './cell-reread';
import {
  detectOrientation,
  parseTsv,
  pictureShare,
  runTesseractTsv,
  startTesseractTsv,
  type OsdResult,
  type TesseractRun,
} from './tesseract-tsv';
import { chooseInstalled, languageFromOsd, readsOtherwise, type OcrLanguageChoice } from './ocr-language';

export interface OcrWord {
  text: string;
  /** Tesseract's word confidence, 0-100. */
  conf: number;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  /** Tesseract's block / paragraph / line of the winning reading. */
  block: number;
  par: number;
  line: number;
}

export interface OcrVariantReport {
  name: string;
  words: number;
  meanConf: number;
  score: number;
  ms: number;
}

export interface OcrPageReport {
  /** The variant whose words the page uses. */
  chosen: string;
  tried: OcrVariantReport[];
  /** Dark scanner border cropped away (original pixels), when there was one. */
  paper?: Rect;
  /** Header rows read again at another size (header-reread.ts): how many, how many replaced, time. */
  header?: { rows: number; replaced: number; ms: number };
  /** Body rows that lost text read again (body-reread.ts): how many, how many replaced, time. */
  body?: { rows: number; replaced: number; ms: number };
  /** Words of the first rows mended to a known legal form or address word (header-lexicon.ts). */
  lexicon?: LexiconFix[];
  /** Table cells read again upscaled (cell-reread.ts): how many, how many replaced, Tesseract runs, time. */
  cells?: CellRereadReport;
  /** Dashed/dotted separator rules whitened before recognition. */
  rulesRemoved: number;
  /** --dpi handed to Tesseract (0: Tesseract estimated it). */
  dpi: number;
  /** Clockwise turn applied before the winning reading. */
  rotation: number;
  /** Scale of the winning reading (1: the image's own pixels). */
  scale: number;
  /** Problems a caller should see (a page with ink but no text). */
  warnings: Array<{ code: string; message: string }>;
}

export interface RecogniseOptions {
  lang: string;
  timeoutSeconds: number;
  pageNumber: number;
  tmpDir: string;
  /** Resolution the file states (undefined when it states none or a software default). */
  statedDpi?: number;
  /** Tesseract started early with the first variant's arguments (`startTesseractTsv({ dpi: firstReadDpi(...) })`). */
  tesseract?: TesseractRun;
  /**
   * The first reading prepared by the caller (prepareFirstReading on the same image) and already
   * handed to `tesseract` as `file`: it is not prepared or written again.
   */
  prepared?: { first: FirstReading; file: string };
  /**
   * Choose the language from the page's script when the reading with `lang` is doubtful (OSD names
   * another script): no language was asked for, `lang` is only the default.
   */
  autoLang?: boolean;
  /**
   * Read the first rows again at other sizes where in doubt (header-reread.ts; the smaller with
   * Tesseract's best model): a receipt's or letter's issuer and address read better (receipts'
   * company F1 0.559 -> 0.655) for two more Tesseract runs on most pages, started beside the first
   * reading (~0.15-0.2x raw Tesseract's time per image). Off unless asked.
   */
  headerReread?: boolean;
  /**
   * Mend words of the first rows a letter or two off a legal form or address word ("SON BHD" →
   * "SDN BHD"; header-lexicon.ts), reported as `lexicon`. On unless false.
   */
  headerLexicon?: boolean;
  /**
   * Read again the rows whose first reading lost text by the page's own evidence (body-reread.ts):
   * figures read with doubt, ink under no word, inked rows with no row. One more Tesseract run on
   * the pages that show a loss, on those rows only.
   */
  bodyReread?: boolean;
  /**
   * With both re-reads: their stacks read together, one Tesseract process per model (rows-reread.ts):
   * one process fewer for the same text. On unless false (false: each as it reads alone).
   */
  rowsTogether?: boolean;
}

/** The cleaned page and the variant read first (prepareFirstReading). */
export interface FirstReading {
  /**
   * The whole page in grey (before the border crop): kept so that the layout's ruling scan of a
   * tabular page does not convert the colour image again (35 Mpx photos: ~0.1-0.3 s each time).
   */
  gray: GrayImage;
  paper: Rect;
  /** Otsu's threshold of the page inside `paper` (before the rules are whitened): the row bands' ink level. */
  paperThreshold: number;
  rules: RuleBand[];
  textRowPx?: number;
  clean: GrayImage;
  variant: Variant;
  /** Scale of the first reading (below 1 for pages wider than a 300-dpi page). */
  s0: number;
}

/**
 * The page Tesseract reads first: dark borders cropped, dashed rules whitened, wide pages downscaled
 * to a 300-dpi page's width. Pure on the pixels, so a caller can prepare it (and start Tesseract on
 * it) before the job knows it will parse the page.
 */
export async function prepareFirstReading(img: RawImage, statedDpi?: number): Promise<FirstReading> {
  const gray = toGray(img);
  const paper = paperRect(gray);
  const page = crop(gray, paper);
  const paperThreshold = otsuThreshold(page);
  const { rules, textRowPx } = rowBands(page, paperThreshold);
  const clean = whiten(page, rules);
  const dpi = firstReadDpi(statedDpi);
  // Photos and high-resolution scans wider than a 300-dpi page are read at that size first
  // (Tesseract's time grows with the pixels, not with the text); small text is read again larger.
  const s0 = clean.width > MAX_FIRST_WIDTH ? MAX_FIRST_WIDTH / clean.width : 1;
  const variant: Variant =
    s0 < 1
      ? {
          name: `downscaled x${s0.toFixed(2)}`,
          image: await resizeGray(clean, s0),
          scale: s0,
          rotation: 0,
          dpi: dpi ? dpi * s0 : 0,
        }
      : { name: 'as-is', image: clean, scale: 1, rotation: 0, dpi };
  return { gray, paper, paperThreshold, rules, textRowPx, clean, variant, s0 };
}

/** Cap height Tesseract reads best at; text much smaller than this is upscaled. */
export const SMALL_TEXT_PX = 18;
export const TARGET_TEXT_PX = 28;
/** Printed row height (ascender to descender) that upscaling aims at when no word could be measured. */
const TARGET_ROW_PX = 36;
/**
 * Mean word confidence at which a first reading is kept without a second, larger one. On the
 * receipts every first reading at 90 or more beat its upscaled re-read (which costs as much as the
 * first), and every upscaled winner came from a first reading under 89.
 */
const CONFIDENT_READING = 90;
/**
 * Mean word confidence under which a page's text is reported as unreliable. On the receipts the
 * two readings under it had CER 0.30 and 0.99; readings at 60 or more had CER at most 0.24.
 */
const LOW_CONFIDENCE = 55;
/**
 * Share of a page taken for one picture by its first reading's segmentation at which reading it
 * binarised is skipped (the binarised page is segmented the same way).
 */
const PICTURE_PAGE = 0.5;
/** Images narrower than this are crops or screenshots. */
const SMALL_IMAGE_PX = 1600;
/** First readings wider than this (a 300-dpi page) are downscaled to it. */
const MAX_FIRST_WIDTH = 2500;

/** The --dpi of the first reading: the stated resolution, or 0 for Tesseract's own estimate. */
export const firstReadDpi = (statedDpi?: number) => statedDpi ?? 0;

export interface Variant {
  name: string;
  image: GrayImage;
  scale: number;
  rotation: number;
  dpi: number;
  /** Tesseract's page segmentation mode; 3 (automatic) unless set. */
  psm?: number;
  /** Tesseract's language when not the page's `lang` (the page's script called for another). */
  lang?: string;
}

interface Reading {
  variant: Variant;
  words: OcrWord[];
  report: OcrVariantReport;
  /** Share of the page its segmentation took for a picture (pictureShare). */
  picture: number;
}

export async function recogniseImage(
  img: RawImage,
  opts: RecogniseOptions,
): Promise<{
  words: OcrWord[];
  report: OcrPageReport;
  gray: GrayImage;
  /** The winning reading was one uniform block of text (psm 6): it kept every mark on a row already. */
  readAsBlock: boolean;
  /** Otsu's threshold of `gray` (computed while the page was read). */
  grayThreshold: number;
  /**
   * `gray` at the winning reading's scale when the reading made it already: a page downscaled for
   * its first reading with no border cropped and no rule whitened was read from exactly
   * `resizeGray(gray, scale)`, so the layout's passes over the page at that scale take it instead
   * of resizing the whole photo again (35 Mpx: 0.14-0.2 s after Tesseract is done; issue 23 time).
   */
  scaledGray?: GrayImage;
  /** The page's script called for another language (read in it), or for one not installed. */
  language?: OcrLanguageChoice;
}> {
  const prep = opts.prepared?.first ?? (await prepareFirstReading(img, opts.statedDpi));
  // The body rows' re-read (when asked) loads its model now, beside the first reading: most pages
  // of receipts need it, and its model load is then off the page's critical path. Cancelled below
  // when the page shows no lost text or is read in another language.
  // Both asked for: their stacks are read together, one process per model (rows-reread.ts).
  const together = opts.headerReread && opts.bodyReread && opts.rowsTogether !== false;
  const bodyRun = opts.bodyReread && !together ? startBodyRun(opts) : undefined;
  // Likewise the header rows' re-readings (when asked): most pages have a header row in doubt, and
  // one of their models is the larger best model.
  const headerRuns = opts.headerReread && !together ? startHeaderRuns(opts) : undefined;
  headerRuns?.catch(() => undefined); // awaited where used, or below
  const rowRuns = together ? startRowRuns(opts) : undefined;
  rowRuns?.catch(() => undefined); // awaited where used, or below
  try {
    return await recogniseWith(img, opts, prep, bodyRun, headerRuns, rowRuns);
  } finally {
    bodyRun?.cancel(); // no-op once it has read
    for (const run of (await headerRuns?.catch(() => undefined)) ?? []) run.cancel();
    for (const run of (await rowRuns?.catch(() => undefined))?.values() ?? []) run.cancel();
  }
}

async function recogniseWith(
  img: RawImage,
  opts: RecogniseOptions,
  prep: FirstReading,
  bodyRun: TesseractRun | undefined,
  headerRuns: Promise<TesseractRun[]> | undefined,
  rowRuns: Promise<RowRuns> | undefined,
): ReturnType<typeof recogniseImage> {
  const size = { width: img.width, height: img.height };
  const { paper, rules, textRowPx, clean, s0 } = prep;
  const dpi = firstReadDpi(opts.statedDpi);
  const toOriginal = (v: Variant, w: OcrWord): OcrWord => {
    // Undo the turn (in the scaled variant's pixels), then the scale, then the crop.
    let { x0, y0, x1, y1 } = w;
    if (v.rotation) [x0, y0, x1, y1] = unrotate([x0, y0, x1, y1], v.rotation, v.image.width, v.image.height);
    const s = v.scale;
    return { ...w, x0: x0 / s + paper.x, y0: y0 / s + paper.y, x1: x1 / s + paper.x, y1: y1 / s + paper.y };
  };
  let n = 0;
  const read = async (v: Variant, started?: TesseractRun, given?: string): Promise<Reading> => {
    const t0 = Date.now();
    const file = given ?? path.join(opts.tmpDir, `ocr-${opts.pageNumber}-${n++}.pgm`);
    if (!given) await writePgm(file, v.image);
    try {
      const tsv = started
        ? await started.recognize(file)
        : await runTesseractTsv(file, {
            dpi: v.dpi,
            psm: v.psm,
            lang: v.lang ?? opts.lang,
            timeoutSeconds: opts.timeoutSeconds,
            pageNumber: opts.pageNumber,
          });
      const words = wordsOfTsv(tsv).map((w) => toOriginal(v, w));
      return {
        variant: v,
        words,
        picture: pictureShare(tsv),
        report: { name: v.name, ...quality(words), ms: Date.now() - t0 },
      };
    } finally {
      await fs.rm(file, { force: true });
    }
  };
  const reading = read(prep.variant, opts.tesseract, opts.tesseract ? opts.prepared?.file : undefined);
  reading.catch(() => undefined); // awaited just below
  // Pixel work that needs only the page is done while Tesseract reads it (off the page's critical path):
  // the share of ink, and the ink threshold of the whole page the missed-text pass measures against.
  // The same pixels have the same threshold: the cleaned page is the cropped one when no rule was
  // whitened, and the whole grey page when there was no border to crop.
  const uncropped = paper.width === prep.gray.width && paper.height === prep.gray.height;
  const ink = inkShare(clean, rules.length ? undefined : prep.paperThreshold);
  const grayThreshold = uncropped ? prep.paperThreshold : otsuThreshold(prep.gray);
  const first = await reading;
  const readings: Reading[] = [first];
  const textPx = medianTextHeight(first.words, s0);
  const goodWords = (r: Reading) => r.words.filter((w) => w.conf >= 50 && /[A-Za-z0-9]{2,}/.test(w.text)).length;

  // Small text: Tesseract wants letters of ~20-30 px, unless it already read this page confidently.
  if (textPx !== undefined && textPx * s0 < SMALL_TEXT_PX && first.report.meanConf < CONFIDENT_READING) {
    const s = Math.min(4, TARGET_TEXT_PX / textPx);
    // Read again larger on the rows read with doubt only, each row keeping its better reading; the
    // whole page when those rows are most of it (the stack would save little, the page keeps its
    // context: a table's columns).
    // Either way it is one Tesseract run with the same arguments (--psm 3, the scaled --dpi): it is
    // started now, loading its model while the rows are cut and stacked, and given the file once it
    // is written (the TSV is the one a run started then would give).
    const warm = startTesseractTsv({
      dpi: dpi ? dpi * s : 0,
      psm: 3,
      lang: opts.lang,
      timeoutSeconds: opts.timeoutSeconds,
      pageNumber: opts.pageNumber,
    });
    try {
      const rowsRead = await readRowsLarger(first, clean, paper, s, textPx, dpi, opts, warm);
      const name = s > 1 ? `upscaled x${s.toFixed(2)}` : s < 1 ? `downscaled x${s.toFixed(2)}` : 'as-is';
      readings.push(
        rowsRead ??
          (await read(
            {
              name,
              image: s === 1 ? clean : await resizeGray(clean, s),
              scale: s,
              rotation: 0,
              dpi: dpi ? dpi * s : 0,
            },
            warm,
          )),
      );
    } finally {
      warm.cancel(); // not needed after all (no rows to read), or the page failed; no-op once it has read
    }
  } else if (
    textPx === undefined &&
    goodWords(first) < 3 &&
    ink > 0.002 &&
    textRowPx !== undefined &&
    textRowPx * s0 < TARGET_ROW_PX
  ) {
    // Nearly nothing read and short printed rows: text too small to find. A small image (a crop,
    // a screenshot) is read at a page's width; a large one at the scale its rows call for.
    const s = Math.min(
      4,
      Math.max(1.5, clean.width < SMALL_IMAGE_PX ? SMALL_IMAGE_PX / clean.width : TARGET_ROW_PX / textRowPx),
    );
    readings.push(
      await read({
        name: `upscaled x${s.toFixed(2)}`,
        image: await resizeGray(clean, s),
        scale: s,
        rotation: 0,
        dpi: dpi ? dpi * s : 0,
      }),
    );
  }
  const oneBlock: Variant = { name: 'one block', image: clean, scale: 1, rotation: 0, dpi, psm: 6 };
  let blockRead: Promise<Reading> | undefined;
  // The orientation check of the cleaned page, started early (below) when it is likely needed.
  let earlyOsd: OrientationCheck | undefined;
  if (goodWords(pick(readings)) < 3 && ink > 0.002) {
    // Little or no text where there is ink: light text on a dark ground, faint or noisy scans.
    // These readings do not depend on one another, and the one-block reading below is needed
    // whenever they find nothing either: all run at once (separate Tesseract processes, one core
    // each), and a one-block reading that turns out not to be needed is dropped unseen, so the
    // words and the report are those of reading them one after the other.
    const variants: Variant[] = [];
    if (meanBrightness(clean) < 110)
      variants.push({ name: 'inverted', image: invert(clean), scale: 1, rotation: 0, dpi });
    // Binarised at Otsu's threshold, as Tesseract thresholds a grey page itself: the same page
    // segmentation, so no help when that segmentation is what failed, i.e. when the reading of this
    // very page took most of it for a picture (506.jpg, faint print: one picture block the size of
    // the page). The one-block reading below does not segment the page into pictures.
    if (!(first.variant.image === clean && first.picture >= PICTURE_PAGE))
      variants.push({ name: 'binarised', image: binarise(clean), scale: 1, rotation: 0, dpi });
    blockRead = read(oneBlock);
    blockRead.catch(() => undefined); // awaited below, or dropped when not needed
    // A page read this badly is usually read at low confidence in the end too, and then checked for
    // its orientation, on the one-block reading's page (the cleaned page) when that is the one kept.
    // That check depends on none of these readings: it starts now as well, and its answer is used
    // only when the page it checked is the one the check below is for (else it is dropped unseen).
    earlyOsd = checkOrientation(clean, path.join(opts.tmpDir, `osd-${opts.pageNumber}-early.pgm`), opts);
    try {
      readings.push(...(await Promise.all(variants.map((v) => read(v)))));
    } catch (err) {
      await blockRead.catch(() => undefined);
      await earlyOsd.drop();
      throw err;
    }
  }
  let foundText: Reading | undefined;
  if (goodWords(pick(readings)) < 3 && ink > 0.002) {
    // Still nearly nothing: the automatic segmentation (psm 3) may have taken the text for one picture
    // (a photo with a dark ground or a busy background around the paper). Read the page as one
    // uniform block of text (psm 6), which looks for text rows everywhere.
    // Its words are kept when it finds text at all, even at a low mean confidence, over readings
    // that found none (the low confidence is then reported below).
    const block = await (blockRead ?? read(oneBlock)).catch(async (err: unknown) => {
      await earlyOsd?.drop();
      throw err;
    });
    readings.push(block);
    if (goodWords(block) >= 3) foundText = block;
  } else if (blockRead) {
    await blockRead.catch(() => undefined); // its process and file are gone before the page is done
  }
  const bestSoFar = foundText ?? pick(readings);
  let language: OcrLanguageChoice | undefined;
  const needOsd = bestSoFar.report.meanConf < 45 || goodWords(bestSoFar) < 3;
  const early = earlyOsd && needOsd && bestSoFar.variant.image === clean ? earlyOsd : undefined;
  if (earlyOsd && !early) await earlyOsd.drop();
  if (needOsd) {
    // A page read at low confidence may be on its side or upside down, or in another script.
    const o = await (
      early ?? checkOrientation(bestSoFar.variant.image, path.join(opts.tmpDir, `osd-${opts.pageNumber}.pgm`), opts)
    ).result;
    let upright = bestSoFar.variant;
    if (o && o.rotate && o.confidence >= 1.5) {
      const v = bestSoFar.variant;
      const turned = await read({
        ...v,
        name: `${v.name}, turned ${o.rotate}°`,
        image: await rotate(v.image, o.rotate),
        rotation: o.rotate,
      });
      readings.push(turned);
      upright = turned.variant;
    }
    // OSD's script calls for another language: the page read upright again in it; it wins only by
    // reading better (its confidence-weighted text), as every other variant.
    const c =
      opts.autoLang && o?.script
        ? await chooseInstalled({ script: o.script, scriptConfidence: o.scriptConfidence ?? 0 }, languageFromOsd)
        : undefined;
    if (c) language = c;
    if (readsOtherwise(c, opts.lang))
      readings.push(await read({ ...upright, name: `${upright.name}, ${c.lang}`, lang: c.lang }));
  }
  // A reading that found text is only replaced by a later one (the page turned) that reads better.
  const win = foundText ? pick(readings.slice(readings.indexOf(foundText))) : pick(readings);
  const lang = win.variant.lang ?? opts.lang;
  // The script's language is reported when it was read with it, or when it is missing.
  if (language && language.lang !== lang && !language.missing) language = undefined;
  else if (language) language = { ...language, lang };
  // The first rows (a receipt's or letter's issuer and address) read again larger where in doubt.
  // Not on a page read turned or inverted (its rows are not the cleaned page's rows of dark ink).
  const reread = !win.variant.rotation && win.variant.name !== 'inverted';
  // Both re-reads asked for: read together (rows-reread.ts), one Tesseract process per model.
  const rows =
    rowRuns && reread
      ? await rereadRows(win.words, clean, paper, {
          ...opts,
          lang,
          runs: lang === opts.lang ? await rowRuns : undefined,
        })
      : undefined;
  const header =
    rows?.header ??
    (!opts.headerReread || rowRuns || !reread
      ? undefined
      : await rereadHeaderRows(win.words, clean, paper, {
          ...opts,
          lang,
          runs: lang === opts.lang ? await headerRuns : undefined,
        }));
  const body =
    rows?.body ??
    (opts.bodyReread && !rowRuns && reread
      ? await rereadBodyRows(header?.words ?? win.words, clean, paper, {
          ...opts,
          lang,
          run: lang === opts.lang ? bodyRun : undefined,
        })
      : undefined);
  // Last, words of the first rows a letter or two off a legal form or address word are mended
  // (header-lexicon.ts: "SON BHD" → "SDN BHD").
  const lastRead = rows?.words ?? body?.words ?? header?.words ?? win.words;
  const lexicon = opts.headerLexicon === false ? undefined : mendHeaderWords(lastRead, opts.pageNumber);
  const words = lexicon?.words ?? lastRead;
  const warnings: OcrPageReport['warnings'] = [];
  // No text: not one word read with some confidence (marks read off shapes do not count).
  if (!win.words.some((w) => w.conf >= 40 && /[\p{L}\p{N}]{2,}/u.test(w.text)) && ink > 0.002) {
    warnings.push({
      code: 'ocr_no_text',
      message: `Page ${opts.pageNumber}: the image has ink (${(ink * 100).toFixed(1)}% of pixels) but OCR read no text from it (tried: ${readings.map((r) => r.variant.name).join(', ')}).`,
    });
  } else if (ink > 0.002 && win.report.meanConf < LOW_CONFIDENCE) {
    // Some text, read badly (faint or coloured print): say so rather than return it as if it were whole.
    warnings.push({
      code: 'ocr_low_confidence',
      message: `Page ${opts.pageNumber}: OCR read ${win.words.length} words at a mean confidence of ${win.report.meanConf.toFixed(0)}% (tried: ${readings.map((r) => r.variant.name).join(', ')}); its text is likely incomplete or misread.`,
    });
  }
  const readGray = win.variant === prep.variant && prep.clean === prep.gray && s0 < 1;
  return {
    words,
    gray: prep.gray,
    readAsBlock: win.variant.psm === 6,
    grayThreshold,
    ...(readGray ? { scaledGray: win.variant.image } : {}),
    ...(language ? { language } : {}),
    report: {
      chosen: win.variant.name,
      tried: readings.map((r) => r.report),
      ...(paper.x || paper.y || paper.width !== size.width || paper.height !== size.height ? { paper } : {}),
      ...(header ? { header: { rows: header.rows, replaced: header.replaced, ms: header.ms } } : {}),
      ...(body ? { body: { rows: body.rows, replaced: body.replaced, ms: body.ms } } : {}),
      ...(lexicon?.fixes.length ? { lexicon: lexicon.fixes } : {}),
      rulesRemoved: rules.length,
      dpi,
      rotation: win.variant.rotation,
      scale: win.variant.scale,
      warnings,
    },
  };
}

interface OrientationCheck {
  /** detectOrientation's answer on the page (undefined when it could not tell); its file is gone by then. */
  result: Promise<OsdResult | undefined>;
  /** Stops the check (not needed after all) and waits until its process and file are gone. */
  drop(): Promise<void>;
}

/** Tesseract's orientation check of `image` (written to `file`), started now. */
function checkOrientation(
  image: GrayImage,
  file: string,
  opts: Pick<RecogniseOptions, 'timeoutSeconds' | 'pageNumber'>,
): OrientationCheck {
  const abort = new AbortController();
  const result = writePgm(file, image)
    .then(() =>
      abort.signal.aborted
        ? undefined
        : detectOrientation(file, {
            timeoutSeconds: opts.timeoutSeconds,
            pageNumber: opts.pageNumber,
            signal: abort.signal,
          }),
    )
    .finally(() => fs.rm(file, { force: true }));
  result.catch(() => undefined); // awaited by whoever uses or drops it
  return {
    result,
    async drop() {
      abort.abort();
      await result.catch(() => undefined);
    },
  };
}

/** Confidence-weighted text: each letter or digit counts +1 at full confidence, −1 at none. */
export function quality(words: OcrWord[]): { words: number; meanConf: number; score: number } {
  let score = 0,
    conf = 0,
    chars = 0;
  for (const w of words) {
    const k = (w.text.match(/[\p{L}\p{N}]/gu) ?? []).length;
    if (!k) continue;
    score += k * (2 * (w.conf / 100) - 1);
    conf += k * w.conf;
    chars += k;
  }
  return { words: words.length, meanConf: chars ? conf / chars : 0, score };
}

function pick(readings: Reading[]): Reading {
  // The first reading keeps ties: a variant must read better, not as well.
  return readings.reduce((best, r) => (r.report.score > best.report.score * 1.02 + 1 ? r : best));
}

/** Median height in original pixels of confidently read words of three or more letters/digits (≈ cap height). */
function medianTextHeight(words: OcrWord[], _scale: number): number | undefined {
  const hs = words
    .filter((w) => w.conf >= 60 && /[A-Za-z0-9]{3,}/.test(w.text))
    .map((w) => w.y1 - w.y0)
    .sort((a, b) => a - b);
  return hs.length >= 3 ? hs[Math.floor(hs.length / 2)]! : undefined;
}

async function rotate(img: GrayImage, degrees: number): Promise<GrayImage> {
  const { data, info } = await sharp(img.data, { raw: { width: img.width, height: img.height, channels: 1 } })
    .rotate(degrees)
    .greyscale()
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: 1, data: data.subarray(0, info.width * info.height) };
}

/**
 * A box in an image turned `deg` clockwise (of size w×h after the turn) back into the unturned
 * image's pixels.
 */
export function unrotate(
  [x0, y0, x1, y1]: [number, number, number, number],
  deg: number,
  w: number,
  h: number,
): [number, number, number, number] {
  const pt = (x: number, y: number): [number, number] =>
    deg === 90 ? [y, w - x] : deg === 180 ? [w - x, h - y] : deg === 270 ? [h - y, x] : [x, y];
  const [ax, ay] = pt(x0, y0),
    [bx, by] = pt(x1, y1);
  return [Math.min(ax, bx), Math.min(ay, by), Math.max(ax, bx), Math.max(ay, by)];
}

/**
 * The rows the first reading read with doubt, and the inked pixel rows where it found no row (text
 * it missed), read again larger (`s`) in one Tesseract run on those rows alone (band-reread.ts):
 * cut at the page's width with a small margin and stacked without the white space between them.
 * Each band keeps whichever of its two readings scores better; rows read with confidence stay as
 * first read. Boxes in the original pixels.
 */
async function readRowsLarger(
  first: Reading,
  clean: GrayImage,
  paper: Rect,
  s: number,
  textPx: number,
  dpi: number,
  opts: RecogniseOptions,
  run?: TesseractRun,
): Promise<Reading | undefined> {
  const t0 = Date.now();
  const rows = ocrRows(first.words);
  const inRows = (b: { y0: number; y1: number }) =>
    rows.some((r) => Math.min(r.y1 - paper.y, b.y1) - Math.max(r.y0 - paper.y, b.y0) >= 0.5 * (b.y1 - b.y0));
  const spans = [
    // Rows read with doubt, in the cleaned page's pixels.
    ...rows
      .filter((r) => quality(r.words).meanConf < DOUBTFUL_ROW)
      .map((r) => ({ y0: r.y0 - paper.y, y1: r.y1 - paper.y })),
    // Inked rows where the first reading found no row at all (text it missed).
    ...inkRows(clean).filter((b) => b.y1 - b.y0 >= 3 && !inRows(b)),
  ].sort((a, b) => a.y0 - b.y0);
  const bands: Band[] = [];
  // The rows each band was cut for, without its margins: a word read in a margin is a neighbouring
  // row cut in half by the band's edge (read as noise), never one of the band's own.
  const cores: Band[] = [];
  for (const r of spans) {
    const pad = Math.min(BAND_MARGIN * textPx, 0.35 * (r.y1 - r.y0));
    const b = { y0: Math.max(0, r.y0 - pad), y1: Math.min(clean.height, r.y1 + pad) };
    const last = bands[bands.length - 1];
    if (last && b.y0 <= last.y1) {
      last.y1 = Math.max(last.y1, b.y1);
      cores[cores.length - 1]!.y1 = Math.max(cores[cores.length - 1]!.y1, r.y1);
    } else {
      bands.push(b);
      cores.push({ y0: r.y0, y1: r.y1 });
    }
  }
  const share = bands.reduce((a, b) => a + b.y1 - b.y0, 0) / clean.height;
  if (share > MAX_BAND_SHARE) return undefined;
  const again = await readBands(clean, bands, s, {
    lang: opts.lang,
    timeoutSeconds: opts.timeoutSeconds,
    pageNumber: opts.pageNumber,
    tmpDir: opts.tmpDir,
    psm: 3,
    dpi: dpi ? dpi * s : 0,
    gap: BAND_GAP * textPx * s,
    run,
  });
  const lastBlock = Math.max(0, ...first.words.map((w) => w.block));
  const inBand = (w: OcrWord, b: Band) => {
    const m = (w.y0 + w.y1) / 2 - paper.y;
    return m >= b.y0 && m < b.y1;
  };
  let words = first.words.filter((w) => !bands.some((b) => inBand(w, b)));
  bands.forEach((b, i) => {
    const old = first.words.filter((w) => inBand(w, b));
    const core = cores[i]!;
    // Mean word confidence of each line of the band's reading.
    const lines = new Map<string, number[]>();
    for (const w of again[i]!) {
      const k = `${w.block}.${w.par}.${w.line}`;
      lines.set(k, [...(lines.get(k) ?? []), w.conf]);
    }
    const lineConf = (w: OcrWord) => {
      const c = lines.get(`${w.block}.${w.par}.${w.line}`)!;
      return c.reduce((a, x) => a + x, 0) / c.length;
    };
    const fresh = again[i]!.filter((w) => {
      const m = (w.y0 + w.y1) / 2;
      return m >= core.y0 && m <= core.y1 && lineConf(w) >= NOISE_LINE;
    }).map((w) => ({
      // Blocks of their own per band, so the layout's rows join them where they stand.
      ...w,
      x0: w.x0 + paper.x,
      x1: w.x1 + paper.x,
      y0: w.y0 + paper.y,
      y1: w.y1 + paper.y,
      block: lastBlock + 1 + i * 1000 + w.block,
    }));
    words = words.concat(quality(fresh).score > quality(old).score * 1.02 + 1 ? fresh : old);
  });
  const variant: Variant = { name: `upscaled x${s.toFixed(2)}, rows`, image: clean, scale: 1, rotation: 0, dpi };
  return { variant, words, picture: 0, report: { name: variant.name, ...quality(words), ms: Date.now() - t0 } };
}

/**
 * Mean confidence of a printed row under which it is read again larger. On the nine receipts with
 * small text read with doubt, 5–22 of their 24–34 rows; reading every row instead cost ~20% more
 * Tesseract time on them for CER 0.01 better (docs/benchmarks.md, issue 23, 2026-11-27).
 */
const DOUBTFUL_ROW = 85;
/** Share of the page's height above which its doubtful rows are read again as the whole page. */
const MAX_BAND_SHARE = 0.7;
/**
 * Mean word confidence under which a line of a band's reading is noise (marks between or at the
 * edge of the band's rows read as letters: "AOAK..~9N40 a) Oun~-..-" at 0-35 on bill.png), dropped.
 */
const NOISE_LINE = 30;
/** Margin above and below a row band, and the white gap between stacked bands, in cap heights. */
const BAND_MARGIN = 0.15;
const BAND_GAP = 0.4;

/** The words of a Tesseract TSV reading, in the reading's own pixels (empty words left out). */
export function wordsOfTsv(tsv: string): OcrWord[] {
  return parseTsv(tsv)
    .words.map((w) => ({
      text: w.text.trim(),
      conf: w.conf,
      x0: w.left,
      y0: w.top,
      x1: w.left + w.width,
      y1: w.top + w.height,
      block: w.block,
      par: w.par,
      line: w.line,
    }))
    .filter((w) => w.text);
}
