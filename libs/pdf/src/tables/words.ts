// Runs → words with estimated boxes. Table cells are assigned word by word because a pdf.js
// text item can span two cells when the gap between them is narrow.
import type { TextRun } from '../types';

export interface Word {
  text: string;
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  baseline: number;
  size: number;
  bold: boolean;
  mono: boolean;
  conf?: number;
}

export function toWords(runs: TextRun[]): Word[] {
  const out: Word[] = [];
  for (const r of runs) {
    if (r.rotated) continue;
    const text = r.text;
    const chars = text.length;
    if (!chars) continue;
    const perChar = (r.x1 - r.x0) / chars;
    const re = /\S+/g;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text))) {
      const x0 = r.x0 + m.index * perChar;
      out.push({
        text: m[0],
        x0,
        x1: x0 + m[0].length * perChar,
        y0: r.y0,
        y1: r.y1,
        baseline: r.baseline,
        size: r.size,
        bold: r.bold,
        mono: r.mono,
        ...(r.conf === undefined ? {} : { conf: r.conf }),
      });
    }
  }
  return out;
}

/**
 * Joins words into text: words grouped into visual lines top to bottom, left to right within a
 * line, with a space only where there is a gap. Text items split inside a word (a ligature glyph
 * drawn on its own, "E" "ff" "elsberg"; a subscript; a decimal point set in another font) join
 * without one.
 */
export function wordsToText(words: Word[]): string {
  const sorted = [...words].sort((a, b) => a.baseline - b.baseline || a.x0 - b.x0);
  const lines: Word[][] = [];
  for (const w of sorted) {
    const last = lines[lines.length - 1];
    if (last && Math.abs(last[0]!.baseline - w.baseline) <= 0.4 * Math.min(last[0]!.size, w.size)) last.push(w);
    else lines.push([w]);
  }
  return lines
    .map((l) => {
      let out = '';
      let prev: Word | undefined;
      for (const w of l.sort((a, b) => a.x0 - b.x0)) {
        if (prev) out += w.x0 - prev.x1 > 0.12 * Math.min(prev.size, w.size) ? ' ' : '';
        out += w.text;
        prev = w;
      }
      return out;
    })
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(
      /([\u00B4\u02DC\u00A8\u02C6\u02C7\u00AF\u02D9\u02DA\u02D8\u02DD])(\p{L})/gu,
      (_, acc: string, letter: string) => letter + (ACCENT_MARKS[acc] ?? ''),
    )
    .normalize('NFC');
}

const ACCENT_MARKS: Record<string, string> = {
  '\u00B4': '\u0301',
  '\u02DC': '\u0303',
  '\u00A8': '\u0308',
  '\u02C6': '\u0302',
  '\u02C7': '\u030C',
  '\u00AF': '\u0304',
  '\u02D9': '\u0307',
  '\u02DA': '\u030A',
  '\u02D8': '\u0306',
  '\u02DD': '\u030B',
};
