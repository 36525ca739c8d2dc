// References that write right-to-left text in visual order, and our text rendered the same way.
//
// docling's PDF backend writes glyphs in the order they are drawn, so its references hold Arabic and
// Hebrew lines in visual order (each word's letters reversed: "ةغلب" for "بلغة"), with a paragraph's
// visual lines joined top to bottom. Text in logical order, which a reader, a search index and a
// model need, cannot match such a reference, and the reference cannot be put back in logical order
// either: the boundaries of the visual lines it joined are lost, so reversing a paragraph scrambles
// its line order. The comparison that is fair to both sides renders OUR text the way the reference
// was made: each of our lines (the parse's own line structure) reordered by the Unicode
// Bidirectional Algorithm (UAX #9 levels and rules L1-L4, from bidi-js), glyph by glyph, and the
// lines of a paragraph joined with a space as docling joins them. Nothing is tuned to a document:
// whether a text is in visual order is decided by a property of the scripts (below), and peers'
// outputs are treated by the same test.
import bidiFactory from 'bidi-js';
import type { FractionBox, GroundingDocument } from '@docfleet/contracts';
import { isRightToLeft } from '../src/layout/bidi';

const bidi = bidiFactory();

/**
 * Letters that only ever end a word in logical order: Arabic teh marbuta and alef maksura, and the
 * five Hebrew final forms. Read in visual order, the words they end start with them instead.
 */
const WORD_FINAL_ONLY = /[\u0629\u0649\u05DA\u05DD\u05DF\u05E3\u05E5]/u;
/** A word of Arabic or Hebrew letters (marks and tatweel inside it dropped before the test). */
const RTL_WORD = /[\u0590-\u05FF\u0600-\u06FF\u0750-\u077F\u08A0-\u08FF]+/gu;
const MARKS = /[\p{M}\u0640]/gu;

export interface VisualOrderEvidence {
  /** Words that start with a word-final-only letter (visual order). */
  initial: number;
  /** Words that end with one (logical order). */
  final: number;
}

export function visualOrderEvidence(text: string): VisualOrderEvidence {
  const e = { initial: 0, final: 0 };
  // NFKC turns Arabic presentation forms (U+FB50-U+FEFF) into the base letters tested here.
  for (const m of text.normalize('NFKC').matchAll(RTL_WORD)) {
    const w = [...m[0].replace(MARKS, '')];
    if (w.length < 2) continue;
    if (WORD_FINAL_ONLY.test(w[0]!)) e.initial++;
    if (WORD_FINAL_ONLY.test(w[w.length - 1]!)) e.final++;
  }
  return e;
}

/**
 * Whether a text writes its right-to-left words in visual order: more words start than end with a
 * letter that can only end a word, with at least 3 such words (fewer decide nothing). In logical
 * Arabic or Hebrew no word starts with one, so any logical text, and any text without those
 * scripts, is `false`.
 */
export function isVisualOrder(text: string): boolean {
  const e = visualOrderEvidence(text);
  return e.initial >= 3 && e.initial > e.final;
}

const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });
const LAM = '\u0644';
const ALEF = /[\u0622\u0623\u0625\u0627]/u;
/** Explicit directional formatting characters, removed by the algorithm (X9) once levels are known. */
const BIDI_CONTROLS = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/gu;

/**
 * Glyphs of a line: grapheme clusters (a letter with its marks), and lam followed by alef as one
 * cluster, the ligature Arabic always draws as one glyph. Visual order reverses glyphs, not the
 * characters inside one: a PDF's lam-alef glyph maps to "لا" and its extraction keeps that order.
 */
function clusterIds(line: string): Int32Array {
  const id = new Int32Array(line.length);
  let k = -1;
  let prevEnd = '';
  for (const g of graphemes.segment(line)) {
    const joinsLam = prevEnd === LAM && ALEF.test(g.segment[0]!);
    if (!joinsLam) k++;
    for (let i = g.index; i < g.index + g.segment.length; i++) id[i] = k;
    prevEnd = g.segment.replace(MARKS, '').slice(-1);
  }
  return id;
}

/**
 * One line in visual order (as displayed, read left to right): UAX #9 levels with the given
 * paragraph direction, reordered by rule L2, glyph clusters kept whole, mirrored characters
 * (brackets) swapped in right-to-left runs (L4), directional controls removed.
 */
export function visualLine(line: string, direction: 'ltr' | 'rtl'): string {
  if (!line) return line;
  const levels = bidi.getEmbeddingLevels(line, direction);
  const order = bidi.getReorderedIndices(line, levels);
  const mirrored = bidi.getMirroredCharactersMap(line, levels.levels);
  const cluster = clusterIds(line);
  let out = '';
  for (let i = 0; i < order.length;) {
    // A cluster's characters come out contiguous (one level run), reversed in a right-to-left run.
    let j = i + 1;
    while (j < order.length && cluster[order[j]!] === cluster[order[i]!]) j++;
    const chars = order.slice(i, j).sort((a, b) => a - b);
    for (const c of chars) out += mirrored.get(c) ?? line[c];
    i = j;
  }
  return out.replace(BIDI_CONTROLS, '');
}

const HAS_RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
const directionOf = (text: string): 'ltr' | 'rtl' => (isRightToLeft([text]) ? 'rtl' : 'ltr');

/**
 * A paragraph given as its lines, in visual order: each line reordered on its own with the
 * paragraph's direction, the lines joined with a space (top to bottom).
 */
export function visualParagraph(lines: string[]): string {
  const dir = directionOf(lines.join(' '));
  return lines
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => (HAS_RTL.test(l) ? visualLine(l, dir) : l.replace(BIDI_CONTROLS, '')))
    .join(' ');
}

/** An extractor's plain text (one line per text line) in visual order, line by line; text already in visual order is returned as it is. */
export function visualText(text: string): string {
  if (!HAS_RTL.test(text) || isVisualOrder(text)) return text;
  return text
    .split('\n')
    .map((l) => (HAS_RTL.test(l) ? visualLine(l, directionOf(l)) : l.replace(BIDI_CONTROLS, '')))
    .join('\n');
}

/** One text line of a parse: its text in logical order and its box in fractions of the displayed page. */
export interface PageLine {
  text: string;
  box: FractionBox;
}

/**
 * An element's text cut into its lines: the page's lines whose centre lies in the element's box,
 * top to bottom, each found in the text after the previous one (lines are joined with a space, or
 * without a hyphen, so each line's text starts where its line starts). A line not found (text
 * changed after line building) makes no cut, and the lines around it are rendered as one.
 */
export function splitAtLines(
  content: string,
  box: FractionBox,
  lines: PageLine[],
): { parts: string[]; found: number; candidates: number } {
  const eps = 0.002;
  const inside = lines
    .filter((l) => {
      const cx = (l.box.x1 + l.box.x2) / 2,
        cy = (l.box.y1 + l.box.y2) / 2;
      return cx >= box.x1 - eps && cx <= box.x2 + eps && cy >= box.y1 - eps && cy <= box.y2 + eps;
    })
    .sort((a, b) => a.box.y1 - b.box.y1 || b.box.x2 - a.box.x2);
  const cuts: number[] = [];
  let cursor = 0;
  for (const l of inside) {
    const at = l.text ? content.indexOf(l.text, cursor) : -1;
    if (at < 0) continue;
    if (at > 0) cuts.push(at);
    cursor = at + l.text.length;
  }
  const parts: string[] = [];
  let from = 0;
  for (const c of cuts) {
    parts.push(content.slice(from, c));
    from = c;
  }
  parts.push(content.slice(from));
  return { parts, found: cuts.length + (inside.length ? 1 : 0), candidates: inside.length };
}

export interface VisualRendering {
  text: string;
  /** Elements with right-to-left text rendered, and how many of their page lines were found in them. */
  elements: number;
  /** Elements with right-to-left text whose content was not found verbatim in the text (left in logical order). */
  missed: number;
  linesFound: number;
  lines: number;
}

/**
 * Our text (the markdown, or the whole plain text made from the same grounding) with every element
 * that holds right-to-left text rendered in visual order line by line (`lines`: the parse's lines
 * of each page, by page number). Everything else is left byte for byte, so a document without
 * right-to-left text comes back unchanged. Table cells are rendered one cell at a time.
 */
export function visualRendering(text: string, g: GroundingDocument, lines: Map<number, PageLine[]>): VisualRendering {
  const res: VisualRendering = { text: '', elements: 0, missed: 0, linesFound: 0, lines: 0 };
  let out = '';
  let cursor = 0;
  const replace = (original: string, rendered: string): boolean => {
    const at = text.indexOf(original, cursor);
    if (at < 0) return false;
    out += text.slice(cursor, at) + rendered;
    cursor = at + original.length;
    return true;
  };
  for (const p of g.pages)
    for (const e of p.elements) {
      if (e.type === 'figure') continue;
      if (e.type === 'table' && e.cells?.length) {
        for (const c of [...e.cells].sort((a, b) => a.row - b.row || a.col - b.col))
          if (c.text && HAS_RTL.test(c.text)) replace(c.text, visualParagraph([c.text]));
        continue;
      }
      if (!e.content || !HAS_RTL.test(e.content)) continue;
      const split = splitAtLines(e.content, e.bbox, lines.get(p.page_number) ?? []);
      if (!replace(e.content, visualParagraph(split.parts))) {
        res.missed++;
        continue;
      }
      res.elements++;
      res.linesFound += split.found;
      res.lines += split.candidates;
    }
  res.text = out + text.slice(cursor);
  return res;
}

/**
 * Characters two texts do not share, order and whitespace aside: the size of the multiset
 * difference both ways. Beside a visual-order score it tells order (0 here, a low score anyway) from
 * text (letters, marks, punctuation missing or extra).
 */
export function unsharedCharacters(a: string, b: string): number {
  const count = new Map<string, number>();
  for (const c of a.replace(/\s+/g, '')) count.set(c, (count.get(c) ?? 0) + 1);
  for (const c of b.replace(/\s+/g, '')) count.set(c, (count.get(c) ?? 0) - 1);
  let n = 0;
  for (const v of count.values()) n += Math.abs(v);
  return n;
}
