// Printed rows of a page's body read again where the page's own evidence says text was lost, kept
// per row where that reading is surer. Tesseract's automatic segmentation (psm 3) reads a receipt's
// rows well but loses, on some of them, exactly the short runs of figures that carry the values: a
// date at a row's left edge read at confidence 13 (and dropped as a mark), "27-04-18" read "7.
// 04-18", an amount standing alone at the right of its label not read at all. The same row cut out
// and read as a block of text (psm 6) reads them. Evidence, per row, from the first reading and the
// pixels: a word with digits read with doubt (or dropped as a mark); ink in the row's band under no
// word, as wide as a few characters (text the reading skipped); an inked band of text height with
// no row at all. Only those rows are cut out (at the page's width, in its own pixels: a larger size
// reads these fonts no better), stacked with white gaps and read in one Tesseract run; a page
// without such rows runs nothing.
import path from 'node:path';
import { crop, inkRows, otsuThreshold, type GrayImage, type Rect } from './preprocess';
import { noise, ocrRows } from './ocr-layout';
import { parseTsv, recognizeImage, type TesseractRun } from './tesseract-tsv';
import { startStackRun } from './band-reread';
import type { OcrWord } from './recognise';

export interface BodyRereadOptions {
  lang: string;
  timeoutSeconds: number;
  pageNumber: number;
  tmpDir: string;
  /** Otsu's threshold of `clean` when the caller has it (else computed). */
  threshold?: number;
  /** The evidence that puts a row in doubt (lostTextRows); 'all' unless given. */
  evidence?: BodyEvidence;
  /**
   * Tesseract started beforehand with this call's arguments (startTesseractTsv, psm 6, dpi 0, `lang`):
   * given the stack's file, or left to the caller to cancel when no row is read again.
   */
  run?: TesseractRun;
}

export interface BodyReread {
  words: OcrWord[];
  /** Rows read again. */
  rows: number;
  /** Of those, rows whose words were replaced by the surer reading. */
  replaced: number;
  ms: number;
}

/** Confidence under which a word with digits puts its row in doubt (dates, amounts, codes). */
export const DOUBTFUL_FIGURES = 60;
/** Unread ink in a row at least this many row heights wide is text the reading skipped. */
const UNREAD_WIDTH = 1.2;
/** Share of the page's height the rows read again may cover (the worst rows first). */
const MAX_SHARE = 0.3;
/** A line of the re-reading under this mean confidence is marks read as letters. */
const NOISE_LINE = 30;

interface Candidate {
  /** Band in the cleaned page's pixels (the row without margins). */
  y0: number;
  y1: number;
  /** How doubtful: lower first. */
  conf: number;
}

/**
 * Which evidence puts a row in doubt: 'all' (figures read with doubt, ink under no word, inked rows
 * with no row), or 'figures' only (the dates and amounts read with doubt: fewer rows on fewer pages).
 */
export type BodyEvidence = 'all' | 'figures';

const figures = (w: Pick<OcrWord, 'text'>) => /\p{N}/u.test(w.text);

/**
 * The rows of the page (cleaned page's pixels) whose first reading lost text, by the evidence
 * above, worst first and at most MAX_SHARE of the page's height.
 */
export function lostTextRows(
  words: OcrWord[],
  clean: GrayImage,
  paper: Rect,
  threshold = otsuThreshold(clean),
  evidence: BodyEvidence = 'all',
): Array<{ y0: number; y1: number }> {
  const rows = ocrRows(words).filter((r) => r.words.some((w) => /[\p{L}\p{N}]/u.test(w.text)));
  if (rows.length < 3) return [];
  const hs = rows.map((r) => r.y1 - r.y0).sort((a, b) => a - b);
  const rowH = hs[Math.floor(hs.length / 2)]!;
  const out: Candidate[] = [];
  const { width: W, data } = clean;
  for (const r of rows) {
    const y0 = Math.max(0, Math.round(r.y0 - paper.y)),
      y1 = Math.min(clean.height, Math.round(r.y1 - paper.y));
    const h = y1 - y0;
    if (h < 4 || h > 2.5 * rowH) continue;
    // Every word whose middle is in the row, the marks the layout leaves out included.
    const inRow = words.filter((w) => {
      const m = (w.y0 + w.y1) / 2 - paper.y;
      return m >= y0 && m < y1;
    });
    const doubtful = inRow.filter((w) => figures(w) && (w.conf < DOUBTFUL_FIGURES || noise(w)));
    let conf = doubtful.length ? Math.min(...doubtful.map((w) => w.conf)) : Infinity;
    if (!doubtful.length && evidence === 'all') {
      // Ink under no word (a margin of a fifth of the row's height around each word).
      const pad = 0.2 * h;
      const covered = new Uint8Array(W);
      for (const w of inRow)
        for (
          let x = Math.max(0, Math.floor(w.x0 - paper.x - pad));
          x < Math.min(W, Math.ceil(w.x1 - paper.x + pad));
          x++
        )
          covered[x] = 1;
      let run = 0,
        gap = 0,
        widest = 0;
      for (let x = 0; x < W; x++) {
        let ink = 0;
        if (!covered[x]) for (let y = y0; y < y1; y++) if (data[y * W + x]! <= threshold) ink++;
        if (ink >= 2) {
          run += gap + 1;
          gap = 0;
          widest = Math.max(widest, run);
        } else if (run && ++gap > 0.6 * h) {
          run = 0;
          gap = 0;
        }
      }
      if (widest >= UNREAD_WIDTH * h) conf = 50;
    }
    if (conf !== Infinity) out.push({ y0, y1, conf });
  }
  // Inked bands of text height where the reading found no row at all.
  const taken = rows.map((r) => ({ y0: r.y0 - paper.y, y1: r.y1 - paper.y }));
  for (const b of evidence === 'all' ? inkRows(clean, threshold) : []) {
    const h = b.y1 - b.y0;
    if (h < 0.6 * rowH || h > 1.6 * rowH) continue;
    if (taken.some((t) => Math.min(t.y1, b.y1) - Math.max(t.y0, b.y0) > 0.3 * h)) continue;
    out.push({ y0: b.y0, y1: b.y1, conf: 0 });
  }
  out.sort((a, b) => a.conf - b.conf);
  const kept: Candidate[] = [];
  let used = 0;
  for (const c of out) {
    if (used + (c.y1 - c.y0) > MAX_SHARE * clean.height) break;
    used += c.y1 - c.y0;
    kept.push(c);
  }
  return kept.sort((a, b) => a.y0 - b.y0).map(({ y0, y1 }) => ({ y0, y1 }));
}

interface Stat {
  chars: number;
  score: number;
  meanConf: number;
}

/** Letters and digits, and the confidence-weighted text the variant choice scores readings by. */
function stat(words: OcrWord[]): Stat {
  let chars = 0,
    score = 0,
    conf = 0;
  for (const w of words) {
    const k = (w.text.match(/[\p{L}\p{N}]/gu) ?? []).length;
    chars += k;
    conf += k * w.conf;
    score += k * (2 * (w.conf / 100) - 1);
  }
  return { chars, score, meanConf: chars ? conf / chars : 0 };
}

/**
 * `words` (a page's reading, boxes in the original image's pixels) with the rows that lost text
 * read again; undefined when no row shows a loss (nothing is run). `clean` is the page Tesseract
 * read, cropped to `paper` (its offset in the original pixels).
 */
export async function rereadBodyRows(
  words: OcrWord[],
  clean: GrayImage,
  paper: Rect,
  opts: BodyRereadOptions,
): Promise<BodyReread | undefined> {
  const t0 = Date.now();
  const lost = lostTextRows(words, clean, paper, opts.threshold, opts.evidence);
  if (!lost.length) return undefined;
  // Tesseract (started by the caller, or now) loads its model while the rows are cut and stacked.
  const run = opts.run ?? startBodyRun(opts);
  const stack = stackBodyRows(lost, clean);
  const tsv = await recognizeImage(run, path.join(opts.tmpDir, `body-${opts.pageNumber}.pgm`), stack.image);
  return { ...mergeBodyReading(words, stack, tsv, paper), ms: Date.now() - t0 };
}

/** The rows that lost text cut out of the cleaned page, stacked with white gaps in one image. */
export interface BodyStack {
  /** Each band (rows with their margins, neighbours merged) in the cleaned page and its top in the stack. */
  bands: Array<{ y0: number; y1: number; cores: Array<{ y0: number; y1: number }>; top: number }>;
  image: Pick<GrayImage, 'width' | 'height' | 'data'>;
}

/** `lost` (lostTextRows) each with a margin of a quarter of its height, stacked at the page's width. */
export function stackBodyRows(lost: Array<{ y0: number; y1: number }>, clean: GrayImage): BodyStack {
  const bands: BodyStack['bands'] = [];
  for (const r of lost) {
    const pad = Math.round(0.25 * (r.y1 - r.y0));
    const y0 = Math.max(0, r.y0 - pad),
      y1 = Math.min(clean.height, r.y1 + pad);
    const last = bands[bands.length - 1];
    if (last && y0 <= last.y1) {
      last.y1 = Math.max(last.y1, y1);
      last.cores.push(r);
    } else bands.push({ y0, y1, cores: [r], top: 0 });
  }
  const gap = Math.max(16, ...bands.map((b) => Math.round(0.6 * (b.y1 - b.y0))));
  const width = clean.width;
  const height = bands.reduce((y, b) => y + b.y1 - b.y0 + gap, gap);
  const data = Buffer.alloc(width * height, 255);
  let y = gap;
  for (const b of bands) {
    b.top = y;
    crop(clean, { x: 0, y: b.y0, width, height: b.y1 - b.y0 }).data.copy(data, y * width);
    y += b.y1 - b.y0 + gap;
  }
  return { bands, image: { width, height, data } };
}

/** `words` with the rows of `stack` merged word by word with their new reading (`tsv`, of the stack). */
export function mergeBodyReading(words: OcrWord[], stack: BodyStack, tsv: string, paper: Rect): Omit<BodyReread, 'ms'> {
  const { bands } = stack;
  // The re-read words, back in the page's pixels (by the band their middle falls in).
  const parsed = parseTsv(tsv).words.filter((w) => w.text.trim());
  const lineConf = new Map<string, number[]>();
  for (const w of parsed) {
    const k = `${w.block}.${w.par}.${w.line}`;
    lineConf.set(k, [...(lineConf.get(k) ?? []), w.conf]);
  }
  const fresh: OcrWord[] = [];
  for (const w of parsed) {
    const c = lineConf.get(`${w.block}.${w.par}.${w.line}`)!;
    if (c.reduce((a, x) => a + x, 0) / c.length < NOISE_LINE) continue;
    const mid = w.top + w.height / 2;
    const b = bands.find((o) => mid >= o.top && mid < o.top + o.y1 - o.y0);
    if (!b) continue;
    const dy = b.y0 - b.top + paper.y;
    fresh.push({
      text: w.text.trim(),
      conf: w.conf,
      x0: w.left + paper.x,
      x1: w.left + w.width + paper.x,
      y0: w.top + dy,
      y1: w.top + w.height + dy,
      block: BODY_BLOCK + w.block,
      par: w.par,
      line: w.line,
    });
  }

  let out = words;
  let replaced = 0;
  let rows = 0;
  for (const b of bands)
    for (const core of b.cores) {
      rows++;
      const mine = (w: OcrWord) => {
        const m = (w.y0 + w.y1) / 2 - paper.y;
        return m >= core.y0 && m < core.y1;
      };
      // A word of the band's margin read where a neighbouring row already has it is that row's, not this one's.
      // (Read with some confidence: marks of a dotted rule read as a row of their own do not count.)
      const theirs = out.filter((w) => !mine(w) && w.conf >= THEIRS_CONF);
      const merged = mergeRow(
        out.filter(mine),
        fresh.filter((f) => mine(f) && !theirs.some((w) => sameSpot(w, f))),
      );
      if (!merged) continue;
      out = out.filter((w) => !merged.gone.has(w)).concat(merged.added);
      replaced++;
    }
  return { words: out, rows, replaced };
}

const alnum = (w: Pick<OcrWord, 'text'>) => (w.text.match(/[\p{L}\p{N}]/gu) ?? []).length;
/** Two words on the same printed line (most of the shorter height shared). */
const sameLine = (a: OcrWord, b: OcrWord) =>
  Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) >= 0.5 * Math.min(a.y1 - a.y0, b.y1 - b.y0);
/** Two boxes that share a third of the smaller one's width and height. */
const sameSpot = (a: OcrWord, b: OcrWord) =>
  Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) >= 0.3 * Math.min(a.x1 - a.x0, b.x1 - b.x0) &&
  Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0) >= 0.3 * Math.min(a.y1 - a.y0, b.y1 - b.y0);
/** Two readings of the same place: on the same line, overlapping across. */
const overlapX = (a: OcrWord, b: OcrWord) =>
  sameLine(a, b) && Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0) >= 0.3 * Math.min(a.x1 - a.x0, b.x1 - b.x0);

/**
 * One row's two readings merged word by word: the words of the two that stand in the same place
 * (overlapping, transitively) are compared as groups, and the new group replaces the first when it
 * reads as much text, surer; a word read where the first reading read nothing is taken when it is
 * read with some confidence and carries text (two letters or digits: a stray mark does not). The
 * words taken join the first reading's lines (the nearest word's), so the row stays one row.
 * Undefined when nothing changes.
 */
export function mergeRow(old: OcrWord[], now: OcrWord[]): { gone: Set<OcrWord>; added: OcrWord[] } | undefined {
  const fresh = now.filter((w) => alnum(w) > 0);
  // Groups: connected by overlap across the two readings.
  const seen = new Set<OcrWord>();
  const gone = new Set<OcrWord>();
  const added: OcrWord[] = [];
  for (const start of fresh) {
    if (seen.has(start)) continue;
    const n: OcrWord[] = [],
      o: OcrWord[] = [];
    const queue = [start];
    seen.add(start);
    while (queue.length) {
      const w = queue.pop()!;
      const isNew = fresh.includes(w);
      (isNew ? n : o).push(w);
      for (const other of isNew ? old : fresh)
        if (!seen.has(other) && overlapX(w, other)) {
          seen.add(other);
          queue.push(other);
        }
    }
    const sn = stat(n),
      so = stat(o.filter((w) => !noise(w)));
    const take = o.length
      ? so.chars === 0
        ? sn.chars >= 2 && sn.meanConf >= MISSED_WORD_CONF
        : sn.chars >= 0.8 * so.chars && sn.chars <= 1.5 * so.chars + 2 && sn.meanConf >= stat(o).meanConf + SURER
      : sn.chars >= 2 && sn.meanConf >= MISSED_WORD_CONF;
    if (!take) continue;
    for (const w of o) gone.add(w);
    added.push(...n);
  }
  if (!added.length) return undefined;
  // Each word taken joins the line of the first reading's nearest word on its line (else its own).
  return {
    gone,
    added: added.map((w) => {
      const near = old
        .filter((a) => sameLine(a, w))
        .map((a) => ({ a, d: Math.max(0, a.x0 - w.x1, w.x0 - a.x1) }))
        .sort((p, q) => p.d - q.d)[0]?.a;
      return near ? { ...w, block: near.block, par: near.par, line: near.line } : w;
    }),
  };
}

/** Confidence a neighbouring row's word needs to keep a re-read word that stands on it out of this row. */
const THEIRS_CONF = 40;
/** Mean confidence (0-100) a group of the new reading needs over the first's to replace it. */
const SURER = 5;
/** Confidence of a word read where the first reading read nothing, to be taken. */
const MISSED_WORD_CONF = 60;

/** The Tesseract run rereadBodyRows reads its stack with (start it early to load the model beforehand). */
export const startBodyRun = (opts: Pick<BodyRereadOptions, 'lang' | 'timeoutSeconds' | 'pageNumber'>) =>
  startStackRun({ lang: opts.lang, timeoutSeconds: opts.timeoutSeconds, pageNumber: opts.pageNumber });

const BODY_BLOCK = 200_000;
