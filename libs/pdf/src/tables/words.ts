// Runs → words with estimated boxes. Table cells are assigned word by word because a pdf.js
// text item can span two cells when the gap between them is narrow.
import type { TextRun } from '../types';

export interface Word {
  text: string;
  x0: number; y0: number; x1: number; y1: number;
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
        text: m[0], x0, x1: x0 + m[0].length * perChar, y0: r.y0, y1: r.y1, baseline: r.baseline, size: r.size, bold: r.bold, mono: r.mono,
        ...(r.conf === undefined ? {} : { conf: r.conf }),
      });
    }
  }
  return out;
}

/** Joins words into text: words grouped into visual lines top to bottom, left to right within a line. */
export function wordsToText(words: Word[]): string {
  const sorted = [...words].sort((a, b) => a.baseline - b.baseline || a.x0 - b.x0);
  const lines: Word[][] = [];
  for (const w of sorted) {
    const last = lines[lines.length - 1];
    if (last && Math.abs(last[0]!.baseline - w.baseline) <= 0.4 * Math.min(last[0]!.size, w.size)) last.push(w);
    else lines.push([w]);
  }
  return lines
    .map((l) => l.sort((a, b) => a.x0 - b.x0).map((w) => w.text).join(' '))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}
