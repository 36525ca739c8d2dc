// The header rows of a page read again at larger sizes, kept per row or per word where those
// readings are surer or agree. A receipt, slip or letter names its issuer and address in its first
// rows, often in larger, bold, condensed or decorative type, and one misread letter there makes the
// key field wrong ("SDN BED" for "SDN BHD", "Jin" for "Jln"). Tesseract's reading of such a line
// changes with the size it is given, and its confidence tells a sure reading from a guess. So the
// first rows read with doubt are cut out at the page's width, scaled to a cap height of ~48 px and
// of ~32 px, stacked under one another with white gaps (one image and one Tesseract run per size,
// psm 6, the two side by side; the 32 px one with Tesseract's best English model, READINGS). A row
// takes the 48 px reading when it reads as much text (no word dropped or invented), brings in no
// symbol the first did not have ("¥" for "Y") and is surer by a margin; otherwise single words are
// taken from the re-readings where the first reading had no known word (legal forms, address words)
// and one reads one there, or reads the same word (two letters apart at most) with much more
// confidence. Then each word of the row is put to the vote
// of the three readings: a word the two others agree on in the same place, no less sure on average,
// replaces it ("Rimounan" where both re-readings read "Rimbunan"), whatever the word. (Reading each
// row at two sizes in the same stacked image was tried: Tesseract drops the smaller rows of a stack
// of mixed sizes.)
import path from 'node:path';
import { levenshtein } from '../edit-distance';
import { crop, resizeGray, type GrayImage, type Rect } from './preprocess';
import { ocrRows } from './ocr-layout';
import { parseTsv, recognizeImage, type TesseractRun } from './tesseract-tsv';
import { startStackRun } from './band-reread';
import { bestModelDir } from './tessdata-best';
import { KNOWN_WORDS } from './header-lexicon';
import type { OcrWord } from './recognise';

export interface HeaderRereadOptions {
  lang: string;
  timeoutSeconds: number;
  pageNumber: number;
  tmpDir: string;
  /** The re-readings (READINGS unless given: a before/after in one process, bench/eval). */
  readings?: HeaderReading[];
  /**
   * Tesseract started beforehand for each reading (startHeaderRuns with these options), so that
   * their models load beside the page's first reading; started here when not given.
   */
  runs?: TesseractRun[];
}

/** One re-reading of the doubtful rows: the cap height they are scaled to, and the model read with. */
export interface HeaderReading {
  capHeight: number;
  /** The system's (fast) model, or Tesseract's best English model (tessdata-best.ts; the system's when missing). */
  model: 'system' | 'best';
}

export interface HeaderReread {
  words: OcrWord[];
  /** Header rows read again. */
  rows: number;
  /** Of those, rows whose words were replaced by a surer reading. */
  replaced: number;
  ms: number;
}

/** Rows at the top of the page that count as its header. */
export const HEADER_ROWS = 5;
/** Mean confidence (per letter or digit) under which a header row is read again. */
export const DOUBTFUL_HEADER = 92;
/** Confidence under which one word with letters puts its header row in doubt. */
export const DOUBTFUL_WORD = 80;
/** How much surer (mean confidence, 0-100) a new reading of a row must be to replace the first. */
const MARGIN = 3;
/** A line of a re-reading under this mean confidence is marks between rows read as letters. */
const NOISE_LINE = 30;

interface Stat {
  chars: number;
  meanConf: number;
}

function stat(words: OcrWord[]): Stat {
  let chars = 0,
    conf = 0;
  for (const w of words) {
    const k = (w.text.match(/[\p{L}\p{N}]/gu) ?? []).length;
    chars += k;
    conf += k * w.conf;
  }
  return { chars, meanConf: chars ? conf / chars : 0 };
}

/** A header row read with doubt: its first reading's words and its band of the cleaned page. */
export interface HeaderRow {
  old: OcrWord[];
  /** The row without margins, and the band cut for it (with margins), in the cleaned page's pixels. */
  core: { y0: number; y1: number };
  y0: number;
  y1: number;
  /** Its words' median height (original pixels ≈ the cleaned page's). */
  h: number;
}

/** The header rows cut out and scaled for each reading: one stacked image per reading. */
export interface HeaderStacks {
  rows: HeaderRow[];
  parts: Array<{ row: number; reading: number; scale: number; image: GrayImage; top: number }>;
  /** One image per reading (READINGS' order), its parts' tops set. */
  stacks: Array<Pick<GrayImage, 'width' | 'height' | 'data'>>;
}

/**
 * The page's first rows (up to HEADER_ROWS with some text) read with doubt: a row mean confidence
 * under DOUBTFUL_HEADER or a word with letters under DOUBTFUL_WORD. Empty when none is in doubt.
 */
export function doubtfulHeaderRows(words: OcrWord[], clean: GrayImage, paper: Rect): HeaderRow[] {
  const header = ocrRows(words)
    .filter((r) => stat(r.words).chars >= 3)
    .sort((a, b) => a.y0 - b.y0)
    .slice(0, HEADER_ROWS)
    .filter(
      (r) =>
        stat(r.words).meanConf < DOUBTFUL_HEADER ||
        r.words.some((w) => w.conf < DOUBTFUL_WORD && /[\p{L}]/u.test(w.text)),
    );
  // Each row as a band of the cleaned page (its pixels), with a margin of a quarter of its height.
  return header.map((r) => {
    const hs = r.words.map((w) => w.y1 - w.y0).sort((a, b) => a - b);
    const h = Math.max(4, hs[Math.floor(hs.length / 2)]!);
    const pad = 0.25 * h;
    return {
      old: r.words,
      core: { y0: r.y0 - paper.y, y1: r.y1 - paper.y },
      y0: Math.max(0, Math.floor(r.y0 - paper.y - pad)),
      y1: Math.min(clean.height, Math.ceil(r.y1 - paper.y + pad)),
      h,
    };
  });
}

/**
 * The rows cut out of the cleaned page and scaled to each reading's cap height, one stacked image per
 * reading (Tesseract drops the smaller rows of a stack of mixed sizes).
 */
export async function stackHeaderRows(
  rows: HeaderRow[],
  clean: GrayImage,
  readings: HeaderReading[] = READINGS,
): Promise<HeaderStacks> {
  const parts: HeaderStacks['parts'] = [];
  for (const [i, r] of rows.entries()) {
    const band = crop(clean, { x: 0, y: r.y0, width: clean.width, height: Math.max(1, r.y1 - r.y0) });
    for (const [k, reading] of readings.entries()) {
      const s = Math.min(4, Math.max(0.25, reading.capHeight / r.h));
      const image = Math.abs(s - 1) < 0.02 ? band : await resizeGray(band, s);
      parts.push({ row: i, reading: k, scale: s, image, top: 0 });
    }
  }
  return { rows, parts, stacks: readings.map((_, k) => stacked(parts.filter((p) => p.reading === k))) };
}

/**
 * `words` (a page's reading, boxes in the original image's pixels) with its first rows read again
 * where they were read with doubt; undefined when no header row was in doubt (nothing is run).
 * `clean` is the page Tesseract read, cropped to `paper` (its offset in the original pixels).
 */
export async function rereadHeaderRows(
  words: OcrWord[],
  clean: GrayImage,
  paper: Rect,
  opts: HeaderRereadOptions,
): Promise<HeaderReread | undefined> {
  const t0 = Date.now();
  const rows = doubtfulHeaderRows(words, clean, paper);
  if (!rows.length) return undefined;
  // Tesseract started now (unless started beforehand) loads its models while the rows are cut,
  // scaled and stacked.
  const runs = opts.runs ?? (await startHeaderRuns(opts));
  let cut: HeaderStacks;
  try {
    cut = await stackHeaderRows(rows, clean, opts.readings ?? READINGS);
  } catch (err) {
    for (const t of runs) t.cancel();
    throw err;
  }
  const tsvs = await Promise.all(
    runs.map((t, k) => recognizeImage(t, path.join(opts.tmpDir, `header-${opts.pageNumber}-${k}.pgm`), cut.stacks[k]!)),
  );
  return { ...mergeHeaderReadings(words, cut, tsvs, paper), ms: Date.now() - t0 };
}

/**
 * `words` with the header rows of `cut` mended from their re-readings (`tsvs`: one TSV per reading,
 * of its stacked image): a row taken whole from the larger reading where surer, else word by word,
 * then each word put to the vote of the readings.
 */
export function mergeHeaderReadings(
  words: OcrWord[],
  cut: HeaderStacks,
  tsvs: string[],
  paper: Rect,
): Omit<HeaderReread, 'ms'> {
  const { rows, parts } = cut;
  // Words of each part (by the middle of their box in its stack), back in the original image's pixels.
  const read: OcrWord[][] = parts.map(() => []);
  tsvs.forEach((tsv, k) => {
    const lineConf = new Map<string, number[]>();
    const parsed = parseTsv(tsv).words.filter((w) => w.text.trim());
    for (const w of parsed) {
      const key = `${w.block}.${w.par}.${w.line}`;
      lineConf.set(key, [...(lineConf.get(key) ?? []), w.conf]);
    }
    for (const w of parsed) {
      const c = lineConf.get(`${w.block}.${w.par}.${w.line}`)!;
      if (c.reduce((a, x) => a + x, 0) / c.length < NOISE_LINE) continue;
      const mid = w.top + w.height / 2;
      let j = -1,
        best = Infinity;
      parts.forEach((p, n) => {
        if (p.reading !== k) return;
        const d = mid < p.top ? p.top - mid : mid > p.top + p.image.height ? mid - p.top - p.image.height : 0;
        if (d < best) {
          best = d;
          j = n;
        }
      });
      const p = parts[j]!,
        r = rows[p.row]!;
      read[j]!.push({
        text: w.text.trim(),
        conf: w.conf,
        x0: w.left / p.scale + paper.x,
        x1: (w.left + w.width) / p.scale + paper.x,
        y0: r.y0 + (w.top - p.top) / p.scale + paper.y,
        y1: r.y0 + (w.top + w.height - p.top) / p.scale + paper.y,
        // Blocks of their own, so the layout joins them into rows where they stand.
        block: HEADER_BLOCK + j * 100 + w.block,
        par: w.par,
        line: w.line,
      });
    }
  });

  let out = words;
  let replaced = 0;
  rows.forEach((r, i) => {
    const old = stat(r.old);
    // Each reading of the row: only the row's own words (the margins may hold a neighbouring row cut in half).
    const readings = parts.flatMap((p, j) =>
      p.row === i
        ? [
            {
              first: p.reading === 0,
              words: read[j]!.filter((w) => {
                const m = (w.y0 + w.y1) / 2 - paper.y;
                return m >= r.core.y0 && m <= r.core.y1 && !STRAY.test(w.text);
              }),
            },
          ]
        : [],
    );
    let row = r.old;
    // The whole row from the larger reading (grey, as Tesseract reads a page) when it is surer.
    const larger = readings.find((x) => x.first)?.words ?? [];
    const s = stat(larger);
    // A reading that brings in symbols the first did not have ("¥" for "Y") is no surer reading.
    if (
      rare(larger) <= rare(r.old) &&
      s.chars >= 0.85 * old.chars &&
      s.chars <= 1.15 * old.chars &&
      s.meanConf >= old.meanConf + MARGIN
    )
      row = larger;
    else {
      // Word by word: a word the first reading did not read as a known word, read in the same place
      // at the other size as a known word or with much more confidence (the same word: at most two
      // letters apart).
      const others = readings.flatMap((x) => x.words);
      const fixed = new Map<OcrWord, OcrWord>();
      for (const w of r.old) {
        if (KNOWN_WORDS.has(bare(w.text)) || !bare(w.text)) continue;
        const alt = others
          .filter(
            (o) =>
              o.conf >= KNOWN_WORD_CONF &&
              rare([o]) <= rare([w]) &&
              (KNOWN_WORDS.has(bare(o.text)) || o.conf >= w.conf + SURER_WORD) &&
              Math.min(o.x1, w.x1) - Math.max(o.x0, w.x0) >= 0.6 * Math.min(o.x1 - o.x0, w.x1 - w.x0) &&
              levenshtein(bare(o.text), bare(w.text)) <= 2,
          )
          .sort((a, b) => b.conf - a.conf)[0];
        if (alt) fixed.set(w, { ...w, text: sameEdges(w.text, alt.text), conf: alt.conf });
      }
      if (fixed.size) row = r.old.map((w) => fixed.get(w) ?? w);
    }
    // Then each word by the majority of the readings (the first one's included): a word most of them
    // read otherwise in the same place is that word misread ("THN" where three read "TMN").
    // (A row mended word by word from the first reading is that reading: it does not vote twice.)
    const voters = [row === larger ? r.old : [], ...readings.map((x) => x.words)].filter((ws) => ws !== row);
    const voted = majority(row, voters);
    if (voted.size) row = row.map((w) => voted.get(w) ?? w);
    if (row !== r.old) {
      const gone = new Set(r.old);
      out = out.filter((w) => !gone.has(w)).concat(row);
      replaced++;
    }
  });
  return { words: out, rows: rows.length, replaced };
}

const HEADER_BLOCK = 100_000;

/**
 * The Tesseract runs rereadHeaderRows reads its stacks with, one per reading (psm 6, each with its
 * model): started early, their models load beside the page's first reading (the best model is the
 * larger one to load).
 */
export async function startHeaderRuns(
  opts: Pick<HeaderRereadOptions, 'lang' | 'timeoutSeconds' | 'pageNumber' | 'readings'>,
): Promise<TesseractRun[]> {
  const sizes = opts.readings ?? READINGS;
  const best = sizes.some((r) => r.model === 'best') ? await bestModelDir(opts.lang) : undefined;
  const { lang, timeoutSeconds, pageNumber } = opts;
  return sizes.map((r) =>
    startStackRun({ lang, timeoutSeconds, pageNumber, ...(r.model === 'best' && best ? { tessdataDir: best } : {}) }),
  );
}

/**
 * The sizes each doubtful row is read again at, and the model each reads with: a cap height of
 * ~48 px with the system's model and of ~32 px with Tesseract's best English model (Tesseract's
 * reading of a line changes with the size and the model it is given). Each is one stacked image and
 * one Tesseract run (the two run side by side); their misreadings differ, so a word two of the three
 * readings (the first one's included) agree on is the word. The best model at 32 px mends letters
 * the fast model misreads at every size ("SANYO" for "SANYU", "BELD" for "BHD", "O.T.Y." for
 * "D.I.Y."): receipts' company F1 0.605 -> 0.655, no right value lost (docs/benchmarks.md, issue 23,
 * 2026-11-28). (Tried: the best model at 48 px, which also replaces whole rows, lost right
 * addresses ("Tampoi" read "Tampai"); a third reading with the best model: more mended, two lost,
 * one more run. Earlier: the same two sizes binarised as well, four readings and a majority of
 * three: fewer words mended in a simulation on the corpus.)
 */
export const READINGS: HeaderReading[] = [
  { capHeight: 48, model: 'system' },
  { capHeight: 32, model: 'best' },
];
/** Readings (the first one's and the READINGS) that must agree on another word for it to replace a row's word. */
const MAJORITY = 2;

/**
 * The words of `row` that most of `others` (other readings of the row) read otherwise in the same
 * place, each with that reading: its text read by MAJORITY readings or more (the row's own
 * counting as one), more than read the row's, at a mean confidence no lower than the row's word,
 * bringing in no rarer symbol, and no word that is not a known word for one that is.
 */
function majority(row: OcrWord[], others: OcrWord[][]): Map<OcrWord, OcrWord> {
  const out = new Map<OcrWord, OcrWord>();
  for (const w of row) {
    const own = bare(w.text);
    if (!own) continue;
    const tally = new Map<string, OcrWord[]>([[own, [w]]]);
    for (const ws of others) {
      // The same word: one box covering most of both.
      const o = ws.find((o) => Math.min(o.x1, w.x1) - Math.max(o.x0, w.x0) >= 0.7 * Math.max(o.x1 - o.x0, w.x1 - w.x0));
      if (!o || !bare(o.text)) continue;
      tally.set(bare(o.text), [...(tally.get(bare(o.text)) ?? []), o]);
    }
    const [text, seen] = [...tally].sort((a, b) => b[1].length - a[1].length)[0]!;
    if (text === own || seen.length < MAJORITY || seen.length <= tally.get(own)!.length) continue;
    // Readings that agree by guessing (low confidence on each) do not outvote a sure first reading.
    if (seen.reduce((a, o) => a + o.conf, 0) / seen.length < w.conf) continue;
    const alt = seen.sort((a, b) => b.conf - a.conf)[0]!;
    // A known word (legal form, address word) is not outvoted by a word that is none ("Lot" by "Loi").
    if (rare([alt]) > rare([w]) || (KNOWN_WORDS.has(own) && !KNOWN_WORDS.has(text))) continue;
    out.set(w, { ...w, text: sameEdges(w.text, alt.text), conf: alt.conf });
  }
  return out;
}

/** One image of `parts` stacked under one another with white gaps; sets each part's top. */
function stacked(parts: Array<{ image: GrayImage; top: number }>): Pick<GrayImage, 'width' | 'height' | 'data'> {
  const width = Math.max(...parts.map((p) => p.image.width));
  const gap = Math.max(16, ...parts.map((p) => Math.round(0.6 * p.image.height)));
  const height = parts.reduce((y, p) => y + p.image.height + gap, gap);
  const data = Buffer.alloc(width * height, 255);
  let y = gap;
  for (const p of parts) {
    p.top = y;
    for (let k = 0; k < p.image.height; k++)
      p.image.data.copy(data, (y + k) * width, k * p.image.width, (k + 1) * p.image.width);
    y += p.image.height + gap;
  }
  return { width, height, data };
}

/** How much surer (0-100) a re-read word that is no known word must be to replace the first reading's. */
const SURER_WORD = 15;
/** Confidence a re-reading's known word needs to stand for a word the first reading did not know. */
const KNOWN_WORD_CONF = 60;

/** Marks read off the band's edges or rules (bars, brackets alone), never words of the row. */
const STRAY = /^[|!\[\]{}_~\\/'"‘’“”`.,:;-]+$/;
/** Symbols a misread letter often becomes on receipts and letterheads. */
const RARE = /[¥«»§¢£€©®°‘’“”|~{}\\]/g;
const rare = (ws: OcrWord[]) => ws.reduce((n, w) => n + (w.text.match(RARE) ?? []).length, 0);

/** A word without the punctuation at its edges, upper case. */
const bare = (t: string) => t.toUpperCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');

/** `word`'s letters with the punctuation `old` had at its edges ("BED," read again as "BHD" → "BHD,"). */
function sameEdges(old: string, word: string): string {
  const lead = /^[^\p{L}\p{N}]*/u.exec(old)![0],
    tail = /[^\p{L}\p{N}]*$/u.exec(old)![0];
  const core = word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
  return lead + core + tail;
}
