// Second reading of a page whose first reading left printed text unread. Tesseract's automatic page
// segmentation (psm 3) finds text lines first and drops short isolated marks: the single digits and
// short numbers standing alone in the cells of a borderless table (a cropped table image reads as
// its row labels only). Such a page shows it: much of the ink inside its printed rows lies outside
// every word Tesseract returned. Only then is the page read again as one uniform block of text
// (psm 6), which keeps every mark on a row; its words where the first reading read nothing are
// added to the first reading's when they are read with some confidence.
import fs from 'node:fs/promises';
import path from 'node:path';
import { otsuThreshold, writePgm, type GrayImage } from './preprocess';
import { parseTsv, runTesseractTsv } from './tesseract-tsv';
import { ocrRows } from './ocr-layout';
import type { OcrWord } from './recognise';

/**
 * Share of the ink inside the page's printed rows that no word box covers, and how many rows have
 * unread ink at the one place where most rows do (a column of figures the reading dropped). Rows
 * only (the band between a row's top and bottom), so rules between rows, figures and margins do
 * not count. Nor does ink in a column that is about as dense in the white between the rows as
 * within them (at least half as dense): that is no text left unread but something running through
 * the rows — a scanner border or shadow down the side, a stripe, a background's speckle — which a
 * second reading finds no words in (receipts 027, 083, 273, 448: a whole extra reading each, no
 * word added). `px`: raster pixels per word-box unit.
 */
export function missedInk(
  gray: GrayImage,
  words: OcrWord[],
  px: number,
  threshold?: number,
): { share: number; rows: number; aligned: number } {
  const rows = ocrRows(words);
  if (rows.length < 3) return { share: 0, rows: rows.length, aligned: 0 };
  const t = threshold ?? otsuThreshold(gray);
  const w = gray.width;
  let ink = 0,
    rowPx = 0;
  // Per row, its unread ink per column; over all rows, per column.
  const unreadByRow: Uint16Array[] = [];
  const unreadAt = new Uint32Array(w);
  const inRow = new Uint8Array(gray.height);
  let top = gray.height,
    bottom = 0;
  for (const r of rows) {
    const y0 = Math.max(0, Math.floor(r.y0 * px)),
      y1 = Math.min(gray.height, Math.ceil(r.y1 * px));
    inRow.fill(1, y0, Math.max(y0, y1));
    top = Math.min(top, y0);
    bottom = Math.max(bottom, y1);
    rowPx += Math.max(0, y1 - y0);
    // Columns of this row covered by a word (with a margin of a tenth of the row's height).
    const pad = 0.1 * (r.y1 - r.y0) * px;
    const covered = new Uint8Array(w);
    for (const wd of r.words)
      for (let x = Math.max(0, Math.floor(wd.x0 * px - pad)); x < Math.min(w, Math.ceil(wd.x1 * px + pad)); x++)
        covered[x] = 1;
    const unread = new Uint16Array(w);
    for (let y = y0; y < y1; y++) {
      const row = y * w;
      for (let x = 0; x < w; x++) {
        if (gray.data[row + x]! > t) continue;
        ink++;
        if (!covered[x]) unread[x]!++;
      }
    }
    for (let x = 0; x < w; x++) unreadAt[x]! += unread[x]!;
    unreadByRow.push(unread);
  }
  // Ink per column in the white between the rows (pixel rows of no row, from the first row to the last).
  const gapInk = new Uint32Array(w);
  let gapPx = 0;
  for (let y = top; y < bottom; y++) {
    if (inRow[y]) continue;
    gapPx++;
    const row = y * w;
    for (let x = 0; x < w; x++) if (gray.data[row + x]! <= t) gapInk[x]!++;
  }
  const through = (x: number) => gapPx > 0 && gapInk[x]! / gapPx >= THROUGH_ROWS * (unreadAt[x]! / rowPx);
  let missed = 0;
  const rowsAt = new Uint16Array(w);
  for (let x = 0; x < w; x++) {
    if (!unreadAt[x] || through(x)) continue;
    missed += unreadAt[x]!;
    for (const unread of unreadByRow) if (unread[x]) rowsAt[x]!++;
  }
  return { share: ink ? missed / ink : 0, rows: rows.length, aligned: Math.max(...rowsAt) };
}

/**
 * Ink in a column counts as running through the rows (not unread text) when its density between
 * the rows is at least this share of its unread density within them. A dropped column of figures
 * has white between its rows (a table's rules, which cross every column, add little); a border,
 * a shadow or a speckled ground is as dense between the rows as in them.
 */
const THROUGH_ROWS = 0.5;

/** Share of the ink in the page's rows left unread (missedInk). */
export const missedInkShare = (gray: GrayImage, words: OcrWord[], px: number) => missedInk(gray, words, px).share;

/**
 * A reading that left a table's figures unread: a fifth or more of the ink in its rows unread, and
 * the unread ink lines up in a column over at least three rows and a third of them (noise, a logo
 * or a stamp does not).
 */
export function leftFiguresUnread(gray: GrayImage, words: OcrWord[], px: number, threshold?: number): boolean {
  const m = missedInk(gray, words, px, threshold);
  return m.share >= MISSED_INK && m.aligned >= Math.max(3, m.rows / 3);
}

/** Ink share left unread above which a page is read again as one block of text. */
const MISSED_INK = 0.2;

export interface MissedTextInput {
  /** The page at the scale of the first reading's winner; word boxes are `1 / px` of its pixels. */
  raster: GrayImage;
  px: number;
  dpi: number;
  words: OcrWord[];
  /** Otsu's threshold of `raster` when the caller has it already (else it is computed). */
  threshold?: number;
  tmpDir: string;
  pageNumber: number;
  lang: string;
  timeoutSeconds: number;
}

/** The page's words, read again as one block when the first reading left text unread (else as given). */
export async function rereadMissedText(inp: MissedTextInput): Promise<OcrWord[]> {
  if (!leftFiguresUnread(inp.raster, inp.words, inp.px, inp.threshold)) return inp.words;
  const file = path.join(inp.tmpDir, `block-${inp.pageNumber}.pgm`);
  await writePgm(file, inp.raster);
  try {
    const tsv = await runTesseractTsv(file, {
      dpi: inp.dpi,
      lang: inp.lang,
      psm: 6,
      timeoutSeconds: inp.timeoutSeconds,
      pageNumber: inp.pageNumber,
    });
    const fresh = parseTsv(tsv)
      .words.map((w) => ({
        text: w.text.trim(),
        conf: w.conf,
        x0: w.left / inp.px,
        y0: w.top / inp.px,
        x1: (w.left + w.width) / inp.px,
        y1: (w.top + w.height) / inp.px,
        block: w.block,
        par: w.par,
        line: w.line,
      }))
      .filter((w) => w.text);
    return withUnreadWords(inp.words, fresh);
  } finally {
    await fs.rm(file, { force: true });
  }
}

/**
 * The first reading keeps its words; the block reading adds the words that stand where the first
 * read nothing (as blocks of their own, so the printed rows join them where they stand), when
 * together they are read with more confidence than not.
 */
export function withUnreadWords(first: OcrWord[], block: OcrWord[]): OcrWord[] {
  const lastBlock = Math.max(0, ...first.map((w) => w.block));
  const overlaps = (a: OcrWord, b: OcrWord) =>
    Math.min(a.x1, b.x1) > Math.max(a.x0, b.x0) && Math.min(a.y1, b.y1) > Math.max(a.y0, b.y0);
  const added = block
    .filter((w) => !first.some((o) => overlaps(o, w)))
    .map((w) => ({ ...w, block: lastBlock + w.block }));
  return readingScore(added) > 0 ? [...first, ...added] : first;
}

/** Confidence-weighted text (as the variant choice scores readings): each letter or digit +1 at full confidence, −1 at none. */
export function readingScore(words: OcrWord[]): number {
  let score = 0;
  for (const w of words) {
    const k = (w.text.match(/[\p{L}\p{N}]/gu) ?? []).length;
    score += k * (2 * (w.conf / 100) - 1);
  }
  return score;
}
