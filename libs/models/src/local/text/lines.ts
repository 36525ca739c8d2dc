// Lines and quotes. A citation quote must be verbatim segment text that contains the value, short
// enough to read: the markdown line holding it, cut down to the sentence for long paragraphs.
import type { Segment } from '@docfleet/contracts';
import { segmentPage } from '../../evidence';

export interface SegLine {
  seg: Segment;
  page: number;
  text: string;
  index: number;
}

const TABLE_RULE = /^\|?\s*:?-{3,}/;

/** Non-empty lines of every segment in reading order (table separator rows dropped). */
export function segmentLines(segments: Segment[]): SegLine[] {
  const out: SegLine[] = [];
  for (const seg of segments) {
    const page = segmentPage(seg);
    seg.markdown.split('\n').forEach((text, index) => {
      if (text.trim() && !TABLE_RULE.test(text.trim())) out.push({ seg, page, text, index });
    });
  }
  return out;
}

/** Markdown decoration removed (headings, emphasis, list bullets, table pipes → " | "). */
export function plain(line: string): string {
  return line
    .replace(/^#{1,6}\s+/, '')
    .replace(/^\s*[-*+]\s+/, '')
    .replace(/\*\*|__/g, '')
    .replace(/\\\|/g, '¦')
    .trim();
}

/** Cells of a markdown table row ("| a | b |" → ["a", "b"]); undefined when not a row. */
export function rowCells(line: string): string[] | undefined {
  const t = line.trim();
  if (!t.startsWith('|')) return undefined;
  return t
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.replace(/\\\|/g, '|').trim());
}

const MAX_QUOTE = 240;

/**
 * Verbatim quote around [start, end) of a line: the whole line when short, else the sentence (or
 * a window) containing the span. Always a substring of the line.
 */
export function quoteAround(line: string, start: number, end: number): string {
  if (line.length <= MAX_QUOTE) return line.trim();
  let a = start;
  while (a > 0 && !/[.;!?]\s/.test(line.slice(a - 2, a)) && start - a < MAX_QUOTE / 2) a--;
  let b = end;
  while (b < line.length && !/[.;!?]/.test(line[b - 1] ?? '') && b - end < MAX_QUOTE / 2) b++;
  return line.slice(a, b).trim();
}

/** First line of the segment containing `needle` (whitespace-insensitive); quote cut around it. */
export function quoteFor(seg: Segment, needle: string): string | undefined {
  const n = needle.replace(/\s+/g, ' ').trim();
  if (!n) return undefined;
  for (const line of seg.markdown.split('\n')) {
    const flat = line.replace(/\s+/g, ' ');
    const i = flat.toLowerCase().indexOf(n.toLowerCase());
    if (i >= 0) {
      // Map the index back onto the original line (only whitespace runs were collapsed).
      const j = line.toLowerCase().indexOf(n.toLowerCase());
      return j >= 0
        ? quoteAround(line, j, j + n.length)
        : quoteAround(flat, i, i + n.length) === flat.trim()
          ? line.trim()
          : line.trim();
    }
  }
  return undefined;
}
