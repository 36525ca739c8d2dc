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
  // A superscript or subscript is read in the line of the word it is attached to ("49′′", "s−1").
  const base = new Map(words.map((w) => [w, scriptAnchor(w, words) ?? w]));
  const sorted = [...words].sort((a, b) => base.get(a)!.baseline - base.get(b)!.baseline || a.x0 - b.x0);
  const lines: Word[][] = [];
  for (const w of sorted) {
    const last = lines[lines.length - 1];
    const b = base.get(w)!,
      l = last ? base.get(last[0]!)! : undefined;
    if (last && l && Math.abs(l.baseline - b.baseline) <= 0.4 * Math.min(l.size, b.size)) last.push(w);
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

/**
 * The word a superscript or subscript is attached to: one it touches on the left or right, in type
 * at least 1.25 times its size, off its baseline, overlapping it vertically (the one it overlaps
 * most). Undefined for a word of its line's own type. Only the tables' word boxes use it: rows
 * parted by baselines, cell text read line by line.
 */
export function scriptAnchor(w: Word, words: Word[]): Word | undefined {
  let best: Word | undefined,
    bestOverlap = 0;
  for (const o of words) {
    if (o === w || w.size > 0.8 * o.size || Math.abs(o.baseline - w.baseline) < 0.15 * o.size) continue;
    // Beside it (touching, or a third of an em apart), not under or over it as a line of its own.
    const gap = Math.max(w.x0 - o.x1, o.x0 - w.x1);
    if (gap > 0.3 * o.size || gap < -0.2 * o.size) continue;
    const ov = Math.min(o.y1, w.y1) - Math.max(o.y0, w.y0);
    if (ov > bestOverlap) {
      best = o;
      bestOverlap = ov;
    }
  }
  return best;
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
