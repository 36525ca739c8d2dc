// The header rows of a page read again at a larger size, kept per row or per word where that
// reading is surer. A receipt, slip or letter names its issuer and address in its first rows, often
// in larger, bold, condensed or decorative type, and one misread letter there makes the key field
// wrong ("SDN BED" for "SDN BHD", "Jin" for "Jln"). Tesseract's reading of such a line changes with
// the size it is given, and its confidence tells a sure reading from a guess. So the first rows read
// with doubt are cut out at the page's width, scaled to a cap height of ~48 px, stacked under one
// another with white gaps and read in one Tesseract run (psm 6). A row takes the new reading when it
// reads as much text (no word dropped or invented), brings in no symbol the first did not have
// ("¥" for "Y") and is surer by a margin; otherwise single words are taken from it where the first
// reading had no known word (legal forms, address words) and the new one reads one there, or reads
// the same word (two letters apart at most) with much more confidence. (Reading each row at two sizes
// in the same run was tried: Tesseract drops the smaller rows of a stack of mixed sizes.)
import path from 'node:path';
import { crop, resizeGray, type GrayImage, type Rect } from './preprocess';
import { ocrRows } from './ocr-layout';
import { parseTsv, recognizeImage, startTesseractTsv } from './tesseract-tsv';
import type { OcrWord } from './recognise';

export interface HeaderRereadOptions {
  lang: string;
  timeoutSeconds: number;
  pageNumber: number;
  tmpDir: string;
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
/** Cap height (px) the rows are read again at. */
const SIZES = [48];
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
  const header = ocrRows(words)
    .filter((r) => stat(r.words).chars >= 3)
    .sort((a, b) => a.y0 - b.y0)
    .slice(0, HEADER_ROWS)
    .filter(
      (r) =>
        stat(r.words).meanConf < DOUBTFUL_HEADER ||
        r.words.some((w) => w.conf < DOUBTFUL_WORD && /[\p{L}]/u.test(w.text)),
    );
  if (!header.length) return undefined;
  // Tesseract started now loads its model while the rows are cut, scaled and stacked.
  const run = startTesseractTsv({
    dpi: 0,
    lang: opts.lang,
    psm: 6,
    timeoutSeconds: opts.timeoutSeconds,
    pageNumber: opts.pageNumber,
  });

  // Each row as a band of the cleaned page (its pixels), with a margin of a quarter of its height.
  const rows = header.map((r) => {
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
  // The parts of the stacked image: each row at the size.
  const parts: Array<{ row: number; scale: number; image: GrayImage; top: number }> = [];
  try {
    for (const [i, r] of rows.entries()) {
      const band = crop(clean, { x: 0, y: r.y0, width: clean.width, height: Math.max(1, r.y1 - r.y0) });
      for (const size of SIZES) {
        const s = Math.min(4, Math.max(0.25, size / r.h));
        parts.push({ row: i, scale: s, image: Math.abs(s - 1) < 0.02 ? band : await resizeGray(band, s), top: 0 });
      }
    }
  } catch (err) {
    run.cancel();
    throw err;
  }
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
  const tsv = await recognizeImage(run, path.join(opts.tmpDir, `header-${opts.pageNumber}.pgm`), {
    width,
    height,
    data,
  });

  // Words of each part (by the middle of their box), back in the original image's pixels.
  const read: OcrWord[][] = parts.map(() => []);
  const lineConf = new Map<string, number[]>();
  const parsed = parseTsv(tsv).words.filter((w) => w.text.trim());
  for (const w of parsed) {
    const k = `${w.block}.${w.par}.${w.line}`;
    lineConf.set(k, [...(lineConf.get(k) ?? []), w.conf]);
  }
  for (const w of parsed) {
    const c = lineConf.get(`${w.block}.${w.par}.${w.line}`)!;
    if (c.reduce((a, x) => a + x, 0) / c.length < NOISE_LINE) continue;
    const mid = w.top + w.height / 2;
    let j = 0,
      best = Infinity;
    parts.forEach((p, n) => {
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

  let out = words;
  let replaced = 0;
  rows.forEach((r, i) => {
    const old = stat(r.old);
    let best: { words: OcrWord[]; s: Stat } | undefined;
    parts.forEach((p, j) => {
      if (p.row !== i) return;
      // Only the row's own words: the margins may hold a neighbouring row cut in half.
      const fresh = read[j]!.filter((w) => {
        const m = (w.y0 + w.y1) / 2 - paper.y;
        return m >= r.core.y0 && m <= r.core.y1 && !STRAY.test(w.text);
      });
      const s = stat(fresh);
      // A reading that brings in symbols the first did not have ("¥" for "Y") is no surer reading.
      if (rare(fresh) > rare(r.old)) return;
      if (s.chars < 0.85 * old.chars || s.chars > 1.15 * old.chars) return;
      if (!best || s.meanConf > best.s.meanConf) best = { words: fresh, s };
    });
    if (best && best.s.meanConf >= old.meanConf + MARGIN) {
      const gone = new Set(r.old);
      out = out.filter((w) => !gone.has(w)).concat(best.words);
      replaced++;
      return;
    }
    // Word by word: a word the first reading did not read as a known word, read in the same place
    // at the other size as a known word or with much more confidence (the same word: at most two
    // letters apart).
    const others = parts.flatMap((p, j) => (p.row === i ? read[j]! : []));
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
            editDistance(bare(o.text), bare(w.text)) <= 2,
        )
        .sort((a, b) => b.conf - a.conf)[0];
      if (alt) fixed.set(w, { ...w, text: sameEdges(w.text, alt.text), conf: alt.conf });
    }
    if (fixed.size) {
      out = out.map((w) => fixed.get(w) ?? w);
      replaced++;
    }
  });
  return { words: out, rows: rows.length, replaced, ms: Date.now() - t0 };
}

const HEADER_BLOCK = 100_000;

/** How much surer (0-100) a re-read word that is no known word must be to replace the first reading's. */
const SURER_WORD = 15;
/** Confidence a re-reading's known word needs to stand for a word the first reading did not know. */
const KNOWN_WORD_CONF = 60;

/**
 * Words a page's header is made of beyond names: legal forms of companies in many countries and
 * the words of postal addresses (street types, building parts, districts). A word read as one of
 * these at one size and as something else at another is that word misread.
 */
export const KNOWN_WORDS = new Set(
  // Legal forms.
  (
    'SDN BHD BERHAD LTD LIMITED PTE PVT PTY LLC LLP INC CORP CO COMPANY GMBH AG KG SARL SAS SA BV NV SPA SRL OY AB ' +
    'ENTERPRISE ENTERPRISES TRADING HOLDINGS INDUSTRIES INTERNATIONAL MARKETING SERVICES SUPPLY ' +
    // Street and place words (English, Malay, French, Spanish, German).
    'STREET ST ROAD RD AVENUE AVE LANE LN DRIVE DR BOULEVARD BLVD HIGHWAY SQUARE PLAZA BUILDING BLDG BLOCK BLK ' +
    'FLOOR FLR LEVEL UNIT SUITE LOT NO JALAN JLN LORONG LRG PERSIARAN TAMAN TMN KAMPUNG KG BANDAR BUKIT ' +
    'KAWASAN PERINDUSTRIAN SEKSYEN SECTION INDUSTRIAL PARK CENTRE CENTER MALL COMPLEX GROUND ' +
    'RUE ROUTE AUTOROUTE AVENIDA CALLE STRASSE STRAßE ' +
    // States and federal territories, cities named on many addresses.
    'SELANGOR JOHOR KEDAH KELANTAN MELAKA MALACCA PAHANG PERAK PERLIS PENANG SABAH SARAWAK TERENGGANU ' +
    'KUALA LUMPUR PUTRAJAYA LABUAN SHAH ALAM PETALING JAYA SUBANG KLANG BAHRU DARUL EHSAN TAKZIM ' +
    'SINGAPORE MALAYSIA'
  ).split(/\s+/),
);

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

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur.push(Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)));
    prev = cur;
  }
  return prev[b.length]!;
}
