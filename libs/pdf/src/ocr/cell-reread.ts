// Reading a scanned table's cells again once its grid is known. The first reading of a table of
// tiny print (a cropped table image: letters 5-7 px) loses what the grid already got right to
// recognition: "0.839" read "ag39", "0.142" read "0142", lone figures not read at all. With the
// grid known, each cell that holds ink is cut out, upscaled to a size Tesseract reads well, and all
// of a table's cells are stacked one under the other in a single Tesseract run (band-reread.ts),
// each read as its own line(s) of text. A cell the first reading left empty takes a sure second
// reading; in a column of figures (most of its cells read as numbers) a cell takes the second
// reading where only it is a number, or both are and it is surer; a text cell keeps its first
// reading. The cells' boxes stay as the grid made them.
// The second reading uses Tesseract's best English model (tessdata-best.ts): on the PubTabNet crops
// it reads the exponents and single figures the fast model misreads. Then the table mends its own
// values: a misread cell of a column of figures whose ink matches a value the table reads well
// elsewhere takes that value (cell-templates.ts), a column printed to fixed decimals (its own, or
// the table's for a column of ranges with too few points to tell) gives back the decimal points a
// reading dropped (withColumnDecimals), and a column's ranges take the en dash their ink shows
// where the reading has a hyphen (range-dash.ts).
import { readRects, type PixelBox } from './band-reread';
import { otsuThreshold, type GrayImage } from './preprocess';
// Print whose median word height is at least SMALL_TEXT_PX is read well as it is (no second reading);
// smaller print is upscaled towards TARGET_TEXT_PX, as the first reading's upscale does.
import { SMALL_TEXT_PX, TARGET_TEXT_PX } from './recognise';
import type { TesseractRun } from './tesseract-tsv';
import { bestModelDir } from './tessdata-best';
import { cellInk, matchTemplate, type CellInk } from './cell-templates';
import { barWidthRatio, hasRangeHyphen, withRangeDashes } from './range-dash';
import { tableText } from '../layout/page-layout';
import type { LayoutElement, TableCellModel, TextRun } from '../types';

export interface CellRereadInput {
  /** The page in grey; `pxPerPt` of its pixels per point of the tables' boxes. */
  gray: GrayImage;
  pxPerPt: number;
  tables: LayoutElement[];
  /** The runs the tables were built from (points), for each cell's first-reading confidence. */
  runs: TextRun[];
  tmpDir: string;
  pageNumber: number;
  lang: string;
  timeoutSeconds: number;
  run?: TesseractRun;
  /** The model the cells are read again with: the best English one where installed (default), or the system's. */
  model?: 'best' | 'system';
}

export interface CellRereadReport {
  cells: number;
  replaced: number;
  /** Cells of a column of figures that took a value the table repeats (cell-templates.ts). */
  matched: number;
  /** Numbers of a column of figures given back the decimal point the reading dropped (withColumnDecimals). */
  decimals: number;
  /** Ranges of a column of figures whose dashes are en dashes by their ink (range-dash.ts). */
  dashes: number;
  /** Tesseract runs made (one per table read again). */
  runs: number;
  ms: number;
}

/** One reading of a cell: its text and the letter-weighted mean confidence (0-100) of its words. */
export interface CellReading {
  text: string;
  conf: number;
}

/** Largest upscale of a cell (beyond it the letters are shapes of a few pixels blown up). */
const MAX_SCALE = 6;
/** Margin around a cell's box, in word heights (the grid's boxes are tight to the words). */
const CELL_MARGIN = 0.2;
/** White gap between stacked cells, in upscaled word heights (keeps Tesseract from joining them). */
const CELL_GAP = 0.8;
/** Share of a column's filled cells that must read as numbers for it to be a column of figures. */
const NUMERIC_COLUMN = 0.5;
/** Least confidence of a second reading that fills a cell the first reading left empty. */
const FILL_CONF = 50;
/** Printings of one value kept as its templates (the surest). */
const TEMPLATES_PER_VALUE = 12;
/** Least confidence of a cell's number reading for its ink to stand for that number (cell-templates.ts). */
const TEMPLATE_CONF = 30;
/** Least confidence of a number read on the second reading that replaces a non-number in a column of figures. */
const NUMBER_CONF = 40;

/**
 * A figure as tables print them: a number with decimals or thousands separators, a sign or
 * comparison, an exponent, a percentage, a range of two such ("0.310–2.268"), a footnote mark.
 */
const NUMBER =
  /^[(\[]?[<>≤≥±+\-−–~]?\d[\d.,]*(?:[eE][-+−–]?\d+)?%?(?:[-–—−/]\d[\d.,]*(?:[eE][-+−–]?\d+)?%?)?[)\]]?[*†‡§]*$/u;

export const isNumber = (text: string) => NUMBER.test(text.replace(/\s+/g, ''));

/**
 * Which reading a cell keeps. The second (upscaled) reading replaces the first when it read text
 * and: the first read nothing and the second is read with more confidence than not; or, in a
 * column of figures, only the second reading is a number (read with some confidence), or both are
 * and the second is read with more confidence. A number is never replaced by a non-number there.
 * A cell of another column that the first reading filled keeps it: a text cell's second reading,
 * however sure, is as often a surer misreading ("Tumor" read "Turmar" at 88) as a mend.
 */
export function chooseCellReading(first: CellReading, again: CellReading, figuresColumn: boolean): 'first' | 'again' {
  if (!again.text.trim()) return 'first';
  if (!first.text.trim()) return again.conf >= FILL_CONF ? 'again' : 'first';
  if (!figuresColumn) return 'first';
  const a = isNumber(again.text),
    f = isNumber(first.text);
  if (a && !f) return again.conf >= NUMBER_CONF ? 'again' : 'first';
  if (f && !a) return 'first';
  return again.conf > first.conf ? 'again' : 'first';
}

/**
 * A column of figures: most of its filled cells (either reading) read as numbers, over at least
 * three cells. `readings` are the column's cells' two readings.
 */
export function isFiguresColumn(readings: Array<[CellReading, CellReading]>): boolean {
  const filled = readings.filter(([f, a]) => f.text.trim() || a.text.trim());
  if (filled.length < 3) return false;
  const numeric = filled.filter(([f, a]) => isNumber(f.text) || isNumber(a.text)).length;
  return numeric > NUMERIC_COLUMN * filled.length;
}

/** A column's decimals are its own when at least this many of its numbers show a point ... */
const DECIMALS_SEEN = 3;
/** ... and at least this share of those have the same number of digits after it. */
const DECIMALS_AGREE = 0.8;

/** A cell that is a plain number or a range of two ("0.310–2.268"): digits with points or commas. */
const PLAIN_FIGURES = /^\d[\d.,]*(?:[-–—−]\d[\d.,]*)?$/u;
const RANGE_DASH = /([-–—−])/u;

/** The numbers of plain figures cells (each end of a range its own). */
const numbersOf = (texts: string[]) =>
  texts.filter((t) => PLAIN_FIGURES.test(t)).flatMap((t) => t.split(RANGE_DASH).filter((_, i) => i % 2 === 0));

/**
 * The number of decimals figures are printed to: that of most (DECIMALS_AGREE) of the numbers
 * that show a point, DECIMALS_SEEN of them at least; undefined when they are too few or disagree.
 */
export function fixedDecimals(texts: string[]): number | undefined {
  const pointed = numbersOf(texts).filter((t) => /^\d+\.\d+$/.test(t));
  if (pointed.length < DECIMALS_SEEN) return undefined;
  const counts = new Map<number, number>();
  for (const t of pointed) {
    const k = t.length - t.indexOf('.') - 1;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const [k, n] = [...counts].sort((a, b) => b[1] - a[1])[0]!;
  return n >= DECIMALS_AGREE * pointed.length ? k : undefined;
}

/**
 * A column of figures printed to a fixed number of decimals ("1.000", "1.267", "0.839") gives back
 * the decimal point a reading of small print dropped: in a cell that is a number or a range of two
 * and nothing else, a number of bare digits longer than the column's decimals ("3140", "0381") is
 * read with its point before its last `k` digits, where `k` is the column's fixedDecimals, and the
 * cells that show a point or a leading zero (which no whole number has) outnumber those of bare
 * whole numbers. A column with too few points of its own to tell (a column of ranges read
 * "0310-2248", "0419-7026") takes `tableDecimals`, the decimals of the table's other columns of
 * figures, when DECIMALS_SEEN of its numbers have a leading zero. A column whose numbers show
 * points at mixed places, or that are mostly whole numbers, is left as read; so is a number with
 * a separator, or any other cell.
 */
export function withColumnDecimals(texts: string[], tableDecimals?: number): string[] {
  const cells = texts.filter((t) => PLAIN_FIGURES.test(t)).map((t) => numbersOf([t]));
  // Whole numbers are not printed with a leading zero: "0381" is a number that lost its point.
  const fraction = (n: string) => /^\d+\.\d+$/.test(n) || /^0\d+$/.test(n);
  const decimal = cells.filter((ns) => ns.some(fraction)).length;
  const whole = cells.filter((ns) => ns.every((n) => /^[1-9]\d*$/.test(n))).length;
  const zeroLed = numbersOf(texts).filter((n) => /^0\d+$/.test(n)).length;
  const pointed = numbersOf(texts).filter((t) => /^\d+\.\d+$/.test(t));
  // The table's decimals, for a column whose few points (if any) agree with them.
  const likeTable =
    tableDecimals !== undefined &&
    pointed.length < DECIMALS_SEEN &&
    zeroLed >= DECIMALS_SEEN &&
    pointed.every((t) => t.length - t.indexOf('.') - 1 === tableDecimals);
  const k = fixedDecimals(texts) ?? (likeTable ? tableDecimals : undefined);
  if (k === undefined || whole >= decimal) return texts;
  return texts.map((text) =>
    PLAIN_FIGURES.test(text)
      ? text
          .split(RANGE_DASH)
          .map((d, i) =>
            i % 2 === 0 && /^\d+$/.test(d) && d.length > k ? `${d.slice(0, d.length - k)}.${d.slice(-k)}` : d,
          )
          .join('')
      : text,
  );
}

/** Letter-weighted mean confidence of words (0-100), 0 for none. */
function readingOf(words: Array<{ text: string; conf: number }>): CellReading {
  let conf = 0,
    chars = 0;
  for (const w of words) {
    const k = Math.max(1, (w.text.match(/[\p{L}\p{N}]/gu) ?? []).length);
    conf += k * w.conf;
    chars += k;
  }
  return { text: words.map((w) => w.text).join(' '), conf: chars ? conf / chars : 0 };
}

/** Median height (pixels) of the words read in the tables, undefined when too few. */
function wordHeightPx(runs: TextRun[], tables: LayoutElement[], pxPerPt: number): number | undefined {
  const hs = runs
    .filter((r) => tables.some((t) => inside(r, t)) && /[\p{L}\p{N}]/u.test(r.text))
    .map((r) => (r.y1 - r.y0) * pxPerPt)
    .sort((a, b) => a - b);
  return hs.length >= 5 ? hs[Math.floor(hs.length / 2)] : undefined;
}

const inside = (r: TextRun, b: { x0: number; y0: number; x1: number; y1: number }) => {
  const cx = (r.x0 + r.x1) / 2,
    cy = (r.y0 + r.y1) / 2;
  return cx >= b.x0 && cx <= b.x1 && cy >= b.y0 && cy <= b.y1;
};

/** Whether the rectangle has dark pixels (some ink) in it. */
function hasInk(gray: GrayImage, b: PixelBox, threshold: number): boolean {
  let n = 0;
  for (let y = Math.max(0, Math.floor(b.y0)); y < Math.min(gray.height, Math.ceil(b.y1)); y++)
    for (let x = Math.max(0, Math.floor(b.x0)); x < Math.min(gray.width, Math.ceil(b.x1)); x++)
      if (gray.data[y * gray.width + x]! <= threshold && ++n >= 3) return true;
  return false;
}

/**
 * A copy of the page with the rules inside the boxes whitened: pixel rows (and columns) of a box
 * that are mostly ink across its width (height) are a ruling line the cell's box reaches, not text,
 * and a rule beside a cell's text makes Tesseract drop or misread it.
 */
export function withoutRules(gray: GrayImage, boxes: PixelBox[], threshold: number): GrayImage {
  const data = Buffer.from(gray.data);
  for (const b of boxes) {
    const x0 = Math.max(0, Math.floor(b.x0)),
      x1 = Math.min(gray.width, Math.ceil(b.x1)),
      y0 = Math.max(0, Math.floor(b.y0)),
      y1 = Math.min(gray.height, Math.ceil(b.y1));
    if (x1 - x0 < 2 || y1 - y0 < 2) continue;
    for (let y = y0; y < y1; y++) {
      let n = 0;
      for (let x = x0; x < x1; x++) if (gray.data[y * gray.width + x]! <= threshold) n++;
      if (n >= RULE_SHARE * (x1 - x0)) data.fill(255, y * gray.width + x0, y * gray.width + x1);
    }
    for (let x = x0; x < x1; x++) {
      let n = 0;
      for (let y = y0; y < y1; y++) if (gray.data[y * gray.width + x]! <= threshold) n++;
      if (n >= RULE_SHARE * (y1 - y0)) for (let y = y0; y < y1; y++) data[y * gray.width + x] = 255;
    }
  }
  return { ...gray, data };
}

/** Share of a box's width (height) in ink that makes a pixel row (column) of it a rule. */
const RULE_SHARE = 0.6;

/**
 * The tables' cells read again upscaled (one Tesseract run per table of small print); each cell
 * keeps the reading chooseCellReading picks. Tables of print at a readable size are left as they
 * are (no run). Returns the tables (cells' texts updated, boxes unchanged) and what was done.
 */
export async function rereadTableCells(
  inp: CellRereadInput,
): Promise<{ tables: LayoutElement[]; report: CellRereadReport }> {
  const t0 = Date.now();
  const report: CellRereadReport = { cells: 0, replaced: 0, matched: 0, decimals: 0, dashes: 0, runs: 0, ms: 0 };
  const hPx = wordHeightPx(inp.runs, inp.tables, inp.pxPerPt);
  if (hPx === undefined || hPx >= SMALL_TEXT_PX) return { tables: inp.tables, report };
  const scale = Math.min(MAX_SCALE, TARGET_TEXT_PX / hPx);
  const threshold = otsuThreshold(inp.gray);
  // The larger model reads these cells better than the system's fast one (tessdata-best.ts).
  const tessdataDir = inp.model === 'system' ? undefined : await bestModelDir(inp.lang);
  const out: LayoutElement[] = [];
  for (const [ti, el] of inp.tables.entries()) {
    const t = el.table;
    if (!t) {
      out.push(el);
      continue;
    }
    const pad = CELL_MARGIN * hPx;
    const boxes = t.cells.map((c) => ({
      x0: c.x0 * inp.pxPerPt - pad,
      y0: c.y0 * inp.pxPerPt - pad,
      x1: c.x1 * inp.pxPerPt + pad,
      y1: c.y1 * inp.pxPerPt + pad,
    }));
    const read = t.cells.map((_, i) => hasInk(inp.gray, boxes[i]!, threshold));
    const idx = t.cells.map((_, i) => i).filter((i) => read[i]);
    if (!idx.length) {
      out.push(el);
      continue;
    }
    const pageClean = withoutRules(
      inp.gray,
      idx.map((i) => boxes[i]!),
      threshold,
    );
    const again = await readRects(
      pageClean,
      idx.map((i) => boxes[i]!),
      scale,
      {
        lang: inp.lang,
        timeoutSeconds: inp.timeoutSeconds,
        pageNumber: inp.pageNumber,
        tmpDir: inp.tmpDir,
        name: `cells-${ti}`,
        psm: 6,
        ...(tessdataDir ? { tessdataDir } : {}),
        gap: CELL_GAP * hPx * scale,
      },
    );
    report.runs++;
    report.cells += idx.length;
    const second = new Map<number, CellReading>();
    idx.forEach((i, j) => second.set(i, readingOf(again[j]!)));
    const first = t.cells.map((c) =>
      readingOf(
        inp.runs
          .filter((r) => inside(r, c))
          .sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0)
          .map((r) => ({ text: r.text, conf: (r.conf ?? 1) * 100 })),
      ),
    );
    // The cell's own first text is the grid's (its words in reading order); its confidence is its runs'.
    first.forEach((f, i) => (f.text = t.cells[i]!.text));
    const byCol = new Map<number, number[]>();
    t.cells.forEach((c, i) => byCol.set(c.col, [...(byCol.get(c.col) ?? []), i]));
    const figures = new Map<number, boolean>();
    for (const [col, is] of byCol)
      figures.set(
        col,
        isFiguresColumn(
          is.map((i) => [first[i]!, second.get(i) ?? { text: '', conf: 0 }] as [CellReading, CellReading]),
        ),
      );
    const cells: TableCellModel[] = t.cells.map((c, i) => {
      const a = second.get(i);
      if (!a || chooseCellReading(first[i]!, a, figures.get(c.col)!) === 'first') return c;
      report.replaced++;
      return { ...c, text: a.text };
    });
    // A value the table repeats, misread here and read well elsewhere: the same ink, the same text.
    {
      const readingOfCell = (i: number) => {
        const a = second.get(i);
        return a && cells[i]!.text === a.text && cells[i]!.text !== first[i]!.text ? a : first[i]!;
      };
      const templates: Array<{ text: string; ink: CellInk; conf: number }> = [];
      t.cells.forEach((c, i) => {
        const r = readingOfCell(i);
        if (!figures.get(c.col) || !isNumber(c.text) || r.conf < TEMPLATE_CONF) return;
        const ink = cellInk(pageClean, boxes[i]!, threshold);
        if (ink) templates.push({ text: c.text.replace(/\s+/g, ''), ink, conf: r.conf });
      });
      // The surest few printings of each value stand for it.
      const perText = new Map<string, number>();
      const kept = templates
        .sort((a, b) => b.conf - a.conf)
        .filter((t) => perText.set(t.text, (perText.get(t.text) ?? 0) + 1).get(t.text)! <= TEMPLATES_PER_VALUE);
      t.cells.forEach((c, i) => {
        if (!figures.get(c.col) || isNumber(c.text) || !read[i]) return;
        const ink = cellInk(pageClean, boxes[i]!, threshold);
        const m = ink && matchTemplate(pageClean, ink, kept);
        if (!m) return;
        report.matched++;
        cells[i] = { ...c, text: m.text };
      });
    }
    // Each column of figures mended as a whole: `mend` returns the column's texts, changed or not.
    const mendColumns = (key: 'decimals' | 'dashes', mend: (texts: string[], is: number[]) => string[]) => {
      for (const [col, is] of byCol) {
        if (!figures.get(col)) continue;
        const mended = mend(
          is.map((i) => cells[i]!.text),
          is,
        );
        is.forEach((i, j) => {
          if (mended[j] === cells[i]!.text) return;
          report[key]++;
          cells[i] = { ...cells[i]!, text: mended[j]! };
        });
      }
    };
    // A column of figures printed to a fixed number of decimals gives back the points the reading dropped.
    const tableDecimals = fixedDecimals(
      [...byCol].filter(([col]) => figures.get(col)).flatMap(([, is]) => is.map((i) => cells[i]!.text)),
    );
    mendColumns('decimals', (texts) => withColumnDecimals(texts, tableDecimals));
    // A column's ranges take the dash their ink shows (range-dash.ts).
    mendColumns('dashes', (texts, is) =>
      withRangeDashes(
        texts,
        is.map((i, j) => (hasRangeHyphen(texts[j]!) ? barWidthRatio(pageClean, boxes[i]!) : undefined)),
      ),
    );
    out.push({ ...el, text: tableText({ cells }), table: { ...t, cells } });
  }
  report.ms = Date.now() - t0;
  return { tables: out, report };
}
