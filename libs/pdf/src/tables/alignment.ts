// Column and row boundaries from text alignment alone: a column gap is an x-interval that
// (almost) no text row crosses; a row gap is a y-interval no word crosses.
import type { Box } from '../geometry';
import type { Word } from './words';

export function textRows(words: Word[]): Word[][] {
  const sorted = [...words].sort((a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2);
  const rows: Array<{ words: Word[]; y0: number; y1: number }> = [];
  for (const w of sorted) {
    const last = rows[rows.length - 1];
    const ov = last ? Math.min(last.y1, w.y1) - Math.max(last.y0, w.y0) : 0;
    if (last && ov > 0.4 * Math.min(last.y1 - last.y0, w.y1 - w.y0)) {
      last.words.push(w);
      last.y0 = Math.min(last.y0, w.y0);
      last.y1 = Math.max(last.y1, w.y1);
    } else rows.push({ words: [w], y0: w.y0, y1: w.y1 });
  }
  return rows.map((r) => r.words);
}

const NUMBER = /^[(+\-–−]?[$€£]?\d[\d,.]*%?\)?$/;

/** Phrases: words of one text row joined when closer than about half an em. */
export function rowPhrases(row: Word[], gapEm = 0.6): Box[] {
  const ws = [...row].sort((a, b) => a.x0 - b.x0);
  const out: Box[] = [];
  let prev: Word | undefined;
  for (const w of ws) {
    const last = out[out.length - 1];
    // Two numbers are two values unless only a word space parts them ("12 345" as thousands).
    const em = prev && NUMBER.test(prev.text) && NUMBER.test(w.text) ? Math.min(gapEm, 0.35) : gapEm;
    prev = w;
    if (last && w.x0 - last.x1 < em * w.size) {
      last.x1 = Math.max(last.x1, w.x1);
      last.y0 = Math.min(last.y0, w.y0);
      last.y1 = Math.max(last.y1, w.y1);
    } else out.push({ x0: w.x0, y0: w.y0, x1: w.x1, y1: w.y1 });
  }
  return out;
}

/**
 * Column separators inside [x0, x1]: middles of x-gaps crossed by at most `tolerance` of the
 * rows (a spanning header may cross a real column gap).
 */
export function columnSeparators(words: Word[], x0: number, x1: number, minRowsForTolerance = 6): number[] {
  const rows = textRows(words);
  if (rows.length === 0) return [];
  const res = 0.5;
  const n = Math.max(1, Math.ceil((x1 - x0) / res));
  const count = new Uint16Array(n);
  const any = new Uint8Array(n);
  const phrases = rows.map((row) => rowPhrases(row));
  for (const row of phrases) {
    for (const p of row) {
      const a = Math.max(0, Math.floor((p.x0 - x0) / res));
      // Slot i covers [x0 + i·res, x0 + (i + 1)·res): the phrase's last slot is the one holding x1.
      const b = Math.min(n - 1, Math.ceil((p.x1 - x0) / res) - 1);
      for (let i = a; i <= b; i++) {
        count[i]!++;
        any[i] = 1;
      }
    }
  }
  const allowed = rows.length >= minRowsForTolerance ? Math.floor(rows.length * 0.12) : 0;
  const sizes = words.map((w) => w.size).sort((a, b) => a - b);
  const minGap = Math.max(2, 0.4 * (sizes[Math.floor(sizes.length / 2)] ?? 8)) / res;
  // Content extent: separators only between the first and last covered positions.
  let first = 0;
  while (first < n && !any[first]) first++;
  let last = n - 1;
  while (last >= 0 && !any[last]) last--;
  const seps: number[] = [];
  let runStart = -1;
  for (let i = first; i <= last + 1; i++) {
    const open = i <= last && count[i]! <= allowed;
    if (open && runStart < 0) runStart = i;
    if (!open && runStart >= 0) {
      if (i - runStart >= minGap) {
        // Prefer the zero-crossing middle of the run when there is one.
        let z0 = -1,
          z1 = -1;
        for (let k = runStart; k < i; k++)
          if (count[k] === 0) {
            if (z0 < 0) z0 = k;
            z1 = k;
          }
        const mid = z0 >= 0 ? (z0 + z1) / 2 : (runStart + i - 1) / 2;
        // A gap that some row crosses must still part at least two rows into text on both sides:
        // the blank right part of a left-aligned column under a wide header parts none.
        const lo = x0 + runStart * res,
          hi = x0 + i * res;
        const crossed = z0 < 0 || z0 > runStart || z1 < i - 1;
        const parted = phrases.filter((r) => r.some((p) => p.x1 <= lo + res) && r.some((p) => p.x0 >= hi - res)).length;
        if (!crossed || parted >= 2) seps.push(x0 + mid * res);
      }
      runStart = -1;
    }
  }
  return seps;
}

/** Row separators inside [y0, y1]: middles of y-gaps that no word crosses. */
export function rowSeparators(words: Word[], y0: number, y1: number, minGap = 0.5): number[] {
  const spans = words.map((w) => [w.y0, w.y1] as [number, number]).sort((a, b) => a[0] - b[0]);
  const seps: number[] = [];
  let reach = -Infinity;
  for (const [a, b] of spans) {
    if (reach > -Infinity && a - reach > minGap && a > y0 && reach < y1) seps.push((a + reach) / 2);
    reach = Math.max(reach, b);
  }
  return seps;
}
