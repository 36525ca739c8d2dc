// OCR keeps a trustworthy text layer (issue 21.7). When the OCR backend reads a PDF page that has
// a text layer, each OCR word that text-layer words overlap takes the text layer's characters
// ("2012_2" where Tesseract read "2012.2"), provided the page's text layer agrees with what OCR
// read: over every overlapped word, at least AGREEMENT character similarity. A layer that
// disagrees (a broken ToUnicode map, invisible text that is not what the image shows) is ignored
// whole, and words no layer word overlaps are OCR's own, except marks without a letter or digit
// under an agreeing layer: those are rules OCR read as "|" and the like (a table's column rules
// would otherwise become columns). Boxes, lines and layout stay OCR's, unless the layer holds
// (nearly) every word OCR read: then the page is laid out from the layer (layerReadsPage).
// OCR words are matched to the layer's lines (its runs joined as the text backend joins them: a
// word a font draws glyph by glyph, "com"+"p"+"arison", or a formula set symbol by symbol is one
// piece of one line), and the agreement is counted on letters and digits (dot leaders, rules and
// math symbols OCR reads differently say nothing about whether the layer's letters are the page's;
// nor do the letters OCR reads into a row of leader dots, "cece eee"), over the words OCR is sure of
// (CONFIDENT_WORD): Tesseract misreads a formula's subscripts, Greek letters and sums ("Z,/By" for
// "Zn/Bn", "o" for "σ") and says so by its confidence, and those misreadings say nothing about
// the layer; a layer that is not the page's disagrees with the words OCR reads confidently.
// Words inside the layer's own figures (a raster chart's labels) that the layer lacks are the
// figure's, as the text backend treats figure text: they do not keep a page from its layer reading.
// A page whose layer holds most but not all of what OCR read (a list set in a font whose glyphs the
// layer cannot decode, an image of prose) is laid out per region: from the layer's runs and, where
// the layer has nothing, OCR's words as runs of their own (layerLeadsPage).
import { centerInside, type Box } from '../geometry';
import { logicalRunOrder, runDirection } from '../layout/bidi';
import { buildLines } from '../layout/line-builder';
import type { LayoutElement, TextRun } from '../types';

/** Share of characters the overlapped OCR words and the text layer must have in common. */
export const AGREEMENT = 0.8;
/**
 * OCR confidence (0-1) from which a word's characters count in the agreement: the words Tesseract
 * reads at lower confidence on a born-digital page are mostly mathematics it cannot read.
 */
export const CONFIDENT_WORD = 0.8;

export interface TextLayerUse {
  /** The layer's characters were taken (it agreed with OCR). */
  used: boolean;
  /** Character similarity between the OCR words read at CONFIDENT_WORD and the layer words over them (0-1). */
  agreement: number;
  /** OCR words a layer word overlaps. */
  overlapped: number;
  /** OCR words whose text changed to the layer's. */
  replaced: number;
  /** OCR words without a letter or digit that no layer word overlaps, left out as drawn marks (layer used). */
  dropped: number;
  /**
   * OCR words with a letter or digit, and how many of them a layer line overlaps. Words the layer
   * lacks inside a figure of the layer's layout (figureWords) are not counted in `words`.
   */
  words: number;
  covered: number;
  /** OCR words with a letter or digit the layer lacks that lie inside one of its figures. */
  figureWords: number;
}

/** Share of OCR's words a trusted layer must overlap to be the page's whole reading (layerReadsPage). */
export const COVERS = 0.95;

/**
 * The layer agrees with OCR and holds (nearly) every word OCR read on the page: it is a complete,
 * trustworthy reading of what the page shows, and the page is laid out from it as the text backend
 * lays it out (columns, tables and figures from the layer's own boxes and the page's drawings).
 * Pages with text the layer lacks (words in a scanned figure, a stamp) keep OCR's layout.
 */
export const layerReadsPage = (u: TextLayerUse | undefined): boolean =>
  !!u && u.used && u.words > 0 && u.covered >= COVERS * u.words;

/**
 * The layer agrees with OCR and holds most of the words OCR read, but not (nearly) all: the page is
 * laid out as the text backend lays it out from the layer's runs together with OCR's words where
 * the layer has none (its regions keep their layer reading; the regions only OCR reads keep OCR's
 * words). A page the layer holds less of (a scan under a thin layer) keeps OCR's own layout, whose
 * tables are found in the raster's rules.
 */
export const layerLeadsPage = (u: TextLayerUse | undefined): boolean =>
  !!u && u.used && u.words > 0 && !layerReadsPage(u) && 2 * u.covered > u.words;

/** A figure of the layer's layout; `captioned`: a "Figure n" caption beside it (a diagram, however wordy). */
export interface LayerFigure extends Box {
  captioned: boolean;
}

/** An OCR word in points. */
export interface PlacedWord extends Box {
  text: string;
  conf: number;
}

/** A page's text layer handed to OCR, and (after the page is read) what was done with it. */
export interface TextLayerInput {
  /** Text-layer runs on the page as displayed, in points. */
  runs: TextRun[];
  /** The page laid out from the layer as the text backend lays it out (as displayed). */
  elements?: LayoutElement[];
  /** The figures of that layout. */
  figures?: LayerFigure[];
  use?: TextLayerUse;
  /** OCR words the layer lacks inside its figures (points, Tesseract's order): the figures' text. */
  figureWords?: PlacedWord[];
  /** OCR words with a letter or digit the layer lacks outside its figures, as runs (points). */
  missingRuns?: TextRun[];
  /** The page laid out as `elements` with these runs beside the layer's (layerLeadsPage). */
  layoutWith?: (runs: TextRun[]) => LayoutElement[];
}

/** Text of OCR words above which an uncaptioned figure is prose in an image, not a diagram (page-layout's rule). */
export const FIGURE_PROSE_CHARS = 250;
/** Height, against the median of the OCR words the layer holds, from which a figure's word counts as prose. */
const PROSE_HEIGHT = 0.6;

/** A layer line or run OCR words are matched to. */
interface LayerPiece extends Box {
  text: string;
}

/**
 * The layer's runs joined into lines as the text backend joins them (a row splits at gaps over
 * 1 em, so table cells and columns stay apart); right-to-left lines, whose text runs against x,
 * stay as their runs.
 */
function layerPieces(runs: TextRun[]): LayerPiece[] {
  return buildLines(runs, { splitGapEm: 1 }).flatMap((l) =>
    l.rtl ? l.runs.map((r) => ({ x0: r.x0, y0: r.y0, x1: r.x1, y1: r.y1, text: r.text })) : [l],
  );
}

const alnum = (s: string) => s.replace(/[^\p{L}\p{N}]/gu, '');

/** Characters a leader or a rule of dots, dashes or underscores is drawn with. */
const LEADER = /[.·•…‥_\-‐‑‒–—―]/;

/**
 * Which characters of OCR's text stand over the layer's leaders: Tesseract reads a row of dots
 * as letters ("0.99 .................." as "0.99 .. cece eee"), which says nothing about whether
 * the layer's letters are the page's. A character whose aligned layer stretch (`at`: align(O, L))
 * and its neighbours hold nothing but leader characters is left out of the agreement; everywhere
 * else OCR's letters count against the layer's.
 */
function overLeaders(O: string, L: string, at: number[]): boolean[] {
  // Indexed by UTF-16 position, as `at` and the caller's loop over O are (a spread would count code points).
  return Array.from({ length: O.length }, (_, i) => {
    const near = L.slice(Math.max(0, at[i]! - 1), Math.min(L.length, at[i + 1]! + 1)).replace(/ /g, '');
    return !!near && [...near].every((c) => LEADER.test(c));
  });
}

/**
 * Matches OCR items (boxes in units of `k` points each) to the text-layer lines over them and,
 * when the layer agrees, returns the items with the layer's characters. An item belongs to the
 * line its vertical centre lies in that covers most of its width; a line's items, left to right,
 * are aligned with the line's text character by character (edit distance), and each item takes the
 * layer characters aligned with its own. A boundary that falls inside a layer word moves to that
 * word's end, so a word OCR split in two is written once; an item left with nothing is dropped.
 * The agreement counts the items whose `confidence` (0-1; all of them by default) reaches
 * CONFIDENT_WORD, each against the layer characters it takes.
 */
export function takeTextLayer<T extends Box & { text: string }>(
  items: T[],
  k: number,
  layer: TextRun[],
  figures: LayerFigure[] = [],
  confidence: (item: T) => number = () => 1,
): { items: T[]; use: TextLayerUse; inFigures: T[]; missing: T[] } {
  const runs = layerPieces(layer.filter((r) => !r.rotated && r.text.trim()));
  const byRun = runs.map(() => [] as number[]);
  items.forEach((w, i) => {
    const x0 = w.x0 * k,
      x1 = w.x1 * k,
      cy = ((w.y0 + w.y1) / 2) * k;
    let best = -1,
      bestOverlap = 0.5 * Math.max(x1 - x0, 0.01);
    runs.forEach((r, j) => {
      if (cy < r.y0 - 1 || cy > r.y1 + 1) return;
      const ov = Math.min(x1, r.x1) - Math.max(x0, r.x0);
      if (ov >= bestOverlap) {
        best = j;
        bestOverlap = ov;
      }
    });
    if (best >= 0) byRun[best]!.push(i);
  });
  let total = 0,
    errors = 0,
    overlapped = 0;
  const texts = new Map<number, string>();
  runs.forEach((r, j) => {
    let idx = byRun[j]!.sort((a, b) => items[a]!.x0 - items[b]!.x0);
    if (!idx.length) return;
    // A right-to-left run's text is in logical order: its words are taken from the right (Latin
    // words and numbers inside it left to right), as the layout reads a right-to-left line.
    if (runDirection(r.text) === 'rtl')
      idx = logicalRunOrder(idx.map((i) => ({ i, text: items[i]!.text }))).map((x) => x.i);
    overlapped += idx.length;
    const L = r.text.replace(/\s+/g, ' ').trim();
    const starts: number[] = [];
    let O = '';
    for (const i of idx) {
      if (O) O += ' ';
      starts.push(O.length);
      O += items[i]!.text;
    }
    const { at } = align(O, L);
    const leader = overLeaders(O, L, at);
    // Layer position of each item's first character; the first item also takes any text before it.
    const cut = starts.map((s, n) => (n === 0 ? 0 : wordEnd(L, at[s]!)));
    cut.push(L.length);
    idx.forEach((i, n) => texts.set(i, L.slice(cut[n]!, Math.max(cut[n]!, cut[n + 1]!)).trim()));
    // The confident items' characters (less those over leaders) against the layer less the stretches
    // aligned with the other items (aligned, not cut at word ends: a layer word OCR read in pieces
    // loses only the piece read unsurely). A line of confident items is compared whole.
    let a = '';
    const unsure = new Uint8Array(L.length);
    idx.forEach((i, n) => {
      const end = n + 1 < starts.length ? starts[n + 1]! - 1 : O.length;
      if (confidence(items[i]!) >= CONFIDENT_WORD) {
        for (let p = starts[n]!; p < end; p++) if (!leader[p]) a += O[p];
      } else unsure.fill(1, at[starts[n]!]!, at[end]!);
    });
    let b = '';
    for (let q = 0; q < L.length; q++) if (!unsure[q]) b += L[q];
    [a, b] = [alnum(a), alnum(b)];
    total += Math.max(a.length, b.length);
    errors += align(a, b).distance;
  });
  const agreement = total ? 1 - errors / total : 0;
  const used = overlapped > 0 && agreement >= AGREEMENT;
  const assigned = new Set(byRun.flat());
  const isWord = (t: string) => /[\p{L}\p{N}]/u.test(t);
  // Words the layer lacks inside a figure of its layout are the figure's (chart labels in a raster),
  // unless that figure holds prose (an uncaptioned image of text, which stays the page's reading).
  const inFigure = (w: T) => {
    const b = { x0: w.x0 * k, y0: w.y0 * k, x1: w.x1 * k, y1: w.y1 * k };
    return figures.findIndex((f) => centerInside(b, f));
  };
  const byFigure = figures.map(() => [] as number[]);
  items.forEach((w, i) => {
    if (assigned.has(i) || !isWord(w.text)) return;
    const f = inFigure(w);
    if (f >= 0) byFigure[f]!.push(i);
  });
  // Prose is text of the page's own size: a screenshot's or a chart's small print is not counted.
  const heights = items
    .filter((w, i) => assigned.has(i) && isWord(w.text))
    .map((w) => w.y1 - w.y0)
    .sort((a, b) => a - b);
  const bodyHeight = heights[Math.floor(heights.length / 2)] ?? 0;
  const excused = new Set<number>();
  byFigure.forEach((idx, f) => {
    const prose = idx.filter((i) => items[i]!.y1 - items[i]!.y0 >= PROSE_HEIGHT * bodyHeight);
    const chars = prose.reduce((n, i) => n + items[i]!.text.length + 1, 0);
    if (figures[f]!.captioned || chars <= FIGURE_PROSE_CHARS) idx.forEach((i) => excused.add(i));
  });
  // Text the layer runs sideways (a table's turned column heads) holds the words OCR reads there
  // across it, garbled: the layer has them.
  const sideways = layer.filter((r) => r.rotated && r.text.trim());
  const underSideways = (w: T) => {
    const b = { x0: w.x0 * k, y0: w.y0 * k, x1: w.x1 * k, y1: w.y1 * k };
    return sideways.some((r) => centerInside(b, r, 1));
  };
  const words = items.filter((w, i) => isWord(w.text) && !excused.has(i)).length;
  const held = (w: T, i: number) => assigned.has(i) || (!excused.has(i) && underSideways(w));
  const covered = items.filter((w, i) => isWord(w.text) && held(w, i)).length;
  let replaced = 0,
    dropped = 0;
  const out: T[] = [];
  items.forEach((w, i) => {
    const t = used ? texts.get(i) : undefined;
    // Where the layer is trusted, a word no layer run overlaps that has no letter or digit is a
    // drawn rule or mark OCR read as text ("|" on a table's column rules), not text of the page.
    if (used && t === undefined && !isWord(w.text)) return void dropped++;
    if (t === undefined || t === w.text) return void out.push(w);
    replaced++;
    if (t) out.push({ ...w, text: t });
  });
  return {
    items: out,
    use: {
      used,
      agreement: Math.round(agreement * 1000) / 1000,
      overlapped,
      replaced,
      dropped,
      words,
      covered,
      figureWords: excused.size,
    },
    inFigures: [...excused].sort((a, b) => a - b).map((i) => items[i]!),
    missing: items.filter((w, i) => isWord(w.text) && !excused.has(i) && !held(w, i)),
  };
}

/** A cut inside a layer word moves to that word's end (the word goes whole to the item before). */
function wordEnd(L: string, j: number): number {
  if (j <= 0 || j >= L.length || L[j - 1] === ' ' || L[j] === ' ') return j;
  while (j < L.length && L[j] !== ' ') j++;
  return j;
}

/**
 * Edit distance between `a` and `b`, and for each position of `a` (0..|a|) the first position of
 * `b` an optimal alignment reaches there.
 */
export function align(a: string, b: string): { distance: number; at: number[] } {
  const n = a.length,
    m = b.length;
  const d = new Uint32Array((n + 1) * (m + 1));
  const W = m + 1;
  for (let i = 0; i <= n; i++) d[i * W] = i;
  for (let j = 0; j <= m; j++) d[j] = j;
  for (let i = 1; i <= n; i++)
    for (let j = 1; j <= m; j++)
      d[i * W + j] = Math.min(
        d[(i - 1) * W + j]! + 1,
        d[i * W + j - 1]! + 1,
        d[(i - 1) * W + j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
  const at = new Array<number>(n + 1).fill(0);
  let i = n,
    j = m;
  at[n] = m;
  while (i > 0 || j > 0) {
    const here = d[i * W + j]!;
    if (i > 0 && j > 0 && here === d[(i - 1) * W + j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)) {
      i--;
      j--;
    } else if (j > 0 && here === d[i * W + j - 1]! + 1) j--;
    else i--;
    at[i] = j;
  }
  return { distance: d[n * W + m]!, at };
}

/** The job event for an OCR'd page with a text layer: which of the two its characters came from. */
export function textLayerEvent(
  pageNumber: number,
  u: TextLayerUse,
): { message: string; payload: Record<string, unknown> } {
  const message = u.used
    ? `Page ${pageNumber}: OCR took the text layer's characters (${u.replaced} of ${u.overlapped} overlapped words changed${u.dropped ? `, ${u.dropped} marks outside the layer left out` : ''}${layerReadsPage(u) ? `, laid out from the layer, which holds ${u.covered} of OCR's ${u.words} words` : layerLeadsPage(u) ? `, laid out from the layer, which holds ${u.covered} of OCR's ${u.words} words, and OCR's words where it has none` : ''}; agreement ${u.agreement.toFixed(2)}).`
    : `Page ${pageNumber}: text layer ignored, OCR's own reading kept (agreement ${u.agreement.toFixed(2)} < ${AGREEMENT}).`;
  return { message, payload: { page_number: pageNumber, source: u.used ? 'text_layer' : 'ocr', ...u } };
}
