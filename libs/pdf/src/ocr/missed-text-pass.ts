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
 * not count. `px`: raster pixels per word-box unit.
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
  let ink = 0,
    missed = 0;
  const rowsAt = new Uint16Array(gray.width);
  for (const r of rows) {
    const y0 = Math.max(0, Math.floor(r.y0 * px)),
      y1 = Math.min(gray.height, Math.ceil(r.y1 * px));
    // Columns of this row covered by a word (with a margin of a tenth of the row's height).
    const pad = 0.1 * (r.y1 - r.y0) * px;
    const covered = new Uint8Array(gray.width);
    for (const w of r.words)
      for (let x = Math.max(0, Math.floor(w.x0 * px - pad)); x < Math.min(gray.width, Math.ceil(w.x1 * px + pad)); x++)
        covered[x] = 1;
    const unread = new Uint8Array(gray.width);
    for (let y = y0; y < y1; y++) {
      const row = y * gray.width;
      for (let x = 0; x < gray.width; x++) {
        if (gray.data[row + x]! > t) continue;
        ink++;
        if (!covered[x]) {
          missed++;
          unread[x] = 1;
        }
      }
    }
    for (let x = 0; x < gray.width; x++) rowsAt[x]! += unread[x]!;
  }
  return { share: ink ? missed / ink : 0, rows: rows.length, aligned: Math.max(...rowsAt) };
}

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
