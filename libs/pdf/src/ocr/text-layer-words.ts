// OCR keeps a trustworthy text layer (issue 21.7). When the OCR backend reads a PDF page that has
// a text layer, each OCR word that text-layer words overlap takes the text layer's characters
// ("2012_2" where Tesseract read "2012.2"), provided the page's text layer agrees with what OCR
// read: over every overlapped word, at least AGREEMENT character similarity. A layer that
// disagrees (a broken ToUnicode map, invisible text that is not what the image shows) is ignored
// whole, and words no layer word overlaps are OCR's own, except marks without a letter or digit
// under an agreeing layer: those are rules OCR read as "|" and the like (a table's column rules
// would otherwise become columns). Boxes, lines and layout stay OCR's, unless the layer holds
// (nearly) every word OCR read: then the page is laid out from the layer (layerReadsPage).
import type { Box } from '../geometry';
import type { TextRun } from '../types';

/** Share of characters the overlapped OCR words and the text layer must have in common. */
export const AGREEMENT = 0.8;

export interface TextLayerUse {
  /** The layer's characters were taken (it agreed with OCR). */
  used: boolean;
  /** Character similarity between the OCR words and the layer words over them (0-1). */
  agreement: number;
  /** OCR words a layer word overlaps. */
  overlapped: number;
  /** OCR words whose text changed to the layer's. */
  replaced: number;
  /** OCR words without a letter or digit that no layer word overlaps, left out as drawn marks (layer used). */
  dropped: number;
  /** OCR words with a letter or digit, and how many of them a layer run overlaps. */
  words: number;
  covered: number;
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

/** A page's text layer handed to OCR, and (after the page is read) what was done with it. */
export interface TextLayerInput {
  /** Text-layer runs on the page as displayed, in points. */
  runs: TextRun[];
  use?: TextLayerUse;
}

/**
 * Matches OCR items (boxes in units of `k` points each) to the text-layer runs over them and,
 * when the layer agrees, returns the items with the layer's characters. An item belongs to the
 * run its vertical centre lies in that covers most of its width; a run's items, left to right,
 * are aligned with the run's text character by character (edit distance), and each item takes the
 * layer characters aligned with its own. A boundary that falls inside a layer word moves to that
 * word's end, so a word OCR split in two is written once; an item left with nothing is dropped.
 */
export function takeTextLayer<T extends Box & { text: string }>(
  items: T[],
  k: number,
  layer: TextRun[],
): { items: T[]; use: TextLayerUse } {
  const runs = layer.filter((r) => !r.rotated && r.text.trim());
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
    const idx = byRun[j]!.sort((a, b) => items[a]!.x0 - items[b]!.x0);
    if (!idx.length) return;
    overlapped += idx.length;
    const L = r.text.replace(/\s+/g, ' ').trim();
    const starts: number[] = [];
    let O = '';
    for (const i of idx) {
      if (O) O += ' ';
      starts.push(O.length);
      O += items[i]!.text;
    }
    const { distance, at } = align(O, L);
    total += Math.max(O.length, L.length);
    errors += distance;
    // Layer position of each item's first character; the first item also takes any text before it.
    const cut = starts.map((s, n) => (n === 0 ? 0 : wordEnd(L, at[s]!)));
    cut.push(L.length);
    idx.forEach((i, n) => texts.set(i, L.slice(cut[n]!, Math.max(cut[n]!, cut[n + 1]!)).trim()));
  });
  const agreement = total ? 1 - errors / total : 0;
  const used = overlapped > 0 && agreement >= AGREEMENT;
  const assigned = new Set(byRun.flat());
  const isWord = (t: string) => /[\p{L}\p{N}]/u.test(t);
  const words = items.filter((w) => isWord(w.text)).length;
  const covered = items.filter((w, i) => assigned.has(i) && isWord(w.text)).length;
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
    use: { used, agreement: Math.round(agreement * 1000) / 1000, overlapped, replaced, dropped, words, covered },
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
    ? `Page ${pageNumber}: OCR took the text layer's characters (${u.replaced} of ${u.overlapped} overlapped words changed${u.dropped ? `, ${u.dropped} marks outside the layer left out` : ''}${layerReadsPage(u) ? `, laid out from the layer, which holds ${u.covered} of OCR's ${u.words} words` : ''}; agreement ${u.agreement.toFixed(2)}).`
    : `Page ${pageNumber}: text layer ignored, OCR's own reading kept (agreement ${u.agreement.toFixed(2)} < ${AGREEMENT}).`;
  return { message, payload: { page_number: pageNumber, source: u.used ? 'text_layer' : 'ocr', ...u } };
}
