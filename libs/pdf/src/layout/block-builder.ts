// Lines → blocks (paragraph-like groups). A line joins the block directly above it when it is
// close in leading, overlaps it horizontally and has the same size and weight; list markers,
// first-line indents and widened gaps start new blocks.
import { overlap1d } from '../geometry';
import type { Block, Line } from '../types';
import { isMarkerText } from './line-builder';

const LIST_START = /^\s*([•◦▪▫●○■□►▶➢➤✓✔❖·∙*–-]\s+|\(?\d{1,3}[.)]\s+|\(?[a-z][.)]\s+|\(?[ivx]{1,4}[.)]\s+)/;

interface OpenBlock extends Block {
  gap: number | undefined;
  size: number;
  bold: boolean;
  mono: boolean;
}

export function buildBlocks(lines: Line[]): Block[] {
  const sorted = [...lines].sort((a, b) => a.y0 - b.y0 || a.x0 - b.x0);
  const blocks: OpenBlock[] = [];
  for (const line of sorted) {
    const target = findBlock(blocks, line);
    if (target) {
      const last = target.lines[target.lines.length - 1]!;
      target.gap = line.y0 - last.y0;
      target.lines.push(line);
      target.x0 = Math.min(target.x0, line.x0);
      target.x1 = Math.max(target.x1, line.x1);
      target.y0 = Math.min(target.y0, line.y0);
      target.y1 = Math.max(target.y1, line.y1);
    } else {
      blocks.push({
        lines: [line],
        x0: line.x0,
        y0: line.y0,
        x1: line.x1,
        y1: line.y1,
        gap: undefined,
        size: line.size,
        bold: line.bold,
        mono: line.mono,
      });
    }
  }
  return blocks.map(({ lines: ls, x0, y0, x1, y1 }) => ({ lines: ls, x0, y0, x1, y1 }));
}

function findBlock(blocks: OpenBlock[], line: Line): OpenBlock | undefined {
  let best: OpenBlock | undefined;
  let bestDist = Infinity;
  for (let i = blocks.length - 1; i >= 0 && i >= blocks.length - 40; i--) {
    const b = blocks[i]!;
    const last = b.lines[b.lines.length - 1]!;
    const dist = line.y0 - last.y0; // baseline-ish distance between consecutive lines
    if (dist <= 0.2 * line.size || dist > 2.0 * Math.max(line.size, last.size)) continue;
    if (!compatible(b, last, line, dist)) continue;
    if (dist < bestDist) {
      best = b;
      bestDist = dist;
    }
  }
  return best;
}

function compatible(b: OpenBlock, last: Line, line: Line, dist: number): boolean {
  const size = Math.max(line.size, last.size);
  if (Math.abs(line.size - b.size) > 0.12 * size) return false;
  if (line.mono !== b.mono) return false;
  // A fully bold block (heading) does not absorb the regular paragraph below it.
  if (b.bold !== line.bold && (b.bold || line.text.length < 80)) return false;
  const hov = overlap1d(line.x0, line.x1, b.x0, b.x1);
  const narrow = Math.min(line.x1 - line.x0, b.x1 - b.x0);
  // A right-to-left line starts at its right edge: alignment and indents are measured from there.
  const rtl = Boolean(line.rtl && last.rtl);
  const start = (x: { x0: number; x1: number }) => (rtl ? -x.x1 : x.x0);
  const end = (x: { x0: number; x1: number }) => (rtl ? -x.x0 : x.x1);
  const sameLeft = Math.abs(start(line) - start(b)) < 1.5 * size;
  if (!(sameLeft || hov > 0.5 * narrow)) return false;
  // Leading must stay consistent once the block has an established rhythm.
  if (b.gap !== undefined && dist > b.gap * 1.3 + 0.5) return false;
  if (b.gap === undefined && dist > 2.0 * size) return false;
  if (LIST_START.test(line.text) || isMarkerText(line.runs[0]?.text ?? '')) return false;
  // First-line indent after a full-width line starts a new paragraph; a list item's own text
  // edge after its marker ("(a) Example …" continued under "Example") is its hanging indent.
  const indent = start(line) - start(b);
  if (
    b.lines.length >= 1 &&
    !hangingIndent(b.lines[0]!, line) &&
    indent > 0.8 * size &&
    indent < 6 * size &&
    end(line) > end(last) - 2 * size &&
    Math.abs(start(last) - start(b)) < 0.5 * size &&
    b.x1 - b.x0 > 15 * size
  ) {
    return false;
  }
  return true;
}

/** The line starts where the text after the list marker of the block's first line starts. */
function hangingIndent(first: Line, line: Line): boolean {
  const marker = first.runs[0];
  const text = first.runs[1];
  if (!marker || !text || !isMarkerText(marker.text)) return false;
  return Math.abs(line.x0 - text.x0) < 0.5 * line.size;
}

/**
 * A block's lines as one paragraph. A line ending in a hyphen is joined to the next line of the
 * same block (so never across columns) by `joinHyphenated`.
 */
export function blockText(b: Block, vocab?: Set<string>): string {
  let out = '';
  for (const line of b.lines) {
    const t = line.text;
    if (!out) {
      out = t;
      continue;
    }
    out = joinHyphenated(out, t, vocab) ?? out + ' ' + t;
  }
  return out.trim();
}

/**
 * `before` (ending in a word broken by a hyphen) continued by `after` (starting with a lower-case
 * word), or undefined when that is not how they meet. Without the hyphen when the joined word occurs
 * in `vocab` (the words of the page, or of the pages around a page break) or the hyphenated one does
 * not ("imple-" + "mentation"), with it when the hyphenated form occurs and the joined one does not,
 * or the part before the hyphen is a short capital, digit or symbol run ("C-" + "rich", "3-" +
 * "dimensional").
 */
export function joinHyphenated(before: string, after: string, vocab?: Set<string>): string | undefined {
  // endsWith first: the regex scans the whole growing paragraph, the layout's hottest spot.
  if (!before.endsWith('-')) return undefined;
  const hy = /(\S*?)(\p{L}|\p{N})-$/u.exec(before);
  const next = /^(\p{Ll}[\p{L}\p{M}]*)/u.exec(after);
  if (!hy || !next) return undefined;
  const head = (hy[1]! + hy[2]!).replace(/^[^\p{L}\p{N}]+/u, '');
  const tail = next[1]!;
  const joined = (head + tail).toLowerCase();
  const hyphenated = `${head}-${tail}`.toLowerCase();
  const keepHyphen = vocab
    ? (vocab.has(hyphenated) && !vocab.has(joined)) ||
      (!vocab.has(joined) && /[\p{Lu}\p{N}]$/u.test(head) && head.length <= 3)
    : /[\p{Lu}\p{N}]$/u.test(head) && head.length <= 3;
  return keepHyphen ? before + after : before.slice(0, -1) + after;
}

/** Lower-cased words of lines (letters, digits, inner hyphens), for hyphen decisions. */
export const pageVocabulary = (lines: Line[]): Set<string> => textVocabulary(lines.map((l) => l.text));

/** Lower-cased words of texts (letters, digits, inner hyphens), for hyphen decisions. */
export function textVocabulary(texts: Iterable<string>, into = new Set<string>()): Set<string> {
  for (const t of texts)
    for (const m of t.matchAll(/[\p{L}\p{N}][\p{L}\p{M}\p{N}]*(?:-[\p{L}\p{N}][\p{L}\p{M}\p{N}]*)*/gu))
      into.add(m[0].toLowerCase());
  return into;
}

export const startsLikeListItem = (text: string): boolean => LIST_START.test(text);
