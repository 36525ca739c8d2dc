// Blocks → typed elements. Decisions are relative to the page's body text (the size that carries
// most characters), so headings are "bigger or bolder than body", not a fixed point size.
import type { ElementType } from '@docfleet/contracts';
import type { Block, LayoutElement } from '../types';
import { blockText, startsLikeListItem } from './block-builder';

const CAPTION = /^(table|figure|fig\.|exhibit|chart|listing|algorithm)\s*[0-9IVXA-Z][0-9.:\-]*\s*[.:\-–—]?/i;
// A caption's label with its number ("Table A.3.", "Fig. 2", "TABLE IV"): captions do not repeat
// from page to page the way running heads do, so one at the top or foot of a page stays a caption.
// Case-sensitive so that "Tables of …" or "figure in" do not pass for a label.
const NUMBERED_CAPTION = /^(Table|TABLE|Tab\.|Figure|FIGURE|Fig\.|FIG\.)\s*([A-Z]\.?)?([0-9]+|[IVX]+\b)/;
const PAGE_NUMBER = /^(page\s*)?[-–—]?\s*[0-9ivxlc]{1,5}\s*([-–—/]\s*[0-9]{1,5})?\s*[-–—]?$|^page \d+ of \d+$/i;
// A running foot that carries its page number inside a phrase ("Article number, page 3 of 10",
// "Page 4 | Annual report"): the page number opens or closes the text, with no sentence after it.
const PAGE_PHRASE =
  /(^|[\s,;:|·•–—-])page\s+[0-9]{1,5}(\s*(of|\/)\s*[0-9]{1,5})?$|^page\s+[0-9]{1,5}(\s*(of|\/)\s*[0-9]{1,5})?\s*[|·•–—,]/i;

export interface PageStats {
  width: number;
  height: number;
  bodySize: number;
  source?: 'text' | 'ocr';
  vocab?: Set<string>;
  /** Most of the page's text is set in a monospaced font (a typewritten or plain-text report). */
  bodyMono?: boolean;
}

export function bodyFontSize(blocks: Block[]): number {
  const weights = new Map<number, number>();
  for (const b of blocks)
    for (const l of b.lines) {
      const key = Math.round(l.size * 2) / 2;
      weights.set(key, (weights.get(key) ?? 0) + l.text.length);
    }
  let best = 10,
    bestW = -1;
  for (const [size, w] of weights)
    if (w > bestW) {
      best = size;
      bestW = w;
    }
  return best;
}

/** Header/footer: short, not larger than body, in the top or bottom band, set apart from the body. */
export function marginalType(b: Block, others: Block[], s: PageStats): ElementType | undefined {
  const text = blockText(b);
  const size = Math.max(...b.lines.map((l) => l.size));
  if (b.lines.length > 3 || text.length > 200 || size > s.bodySize * 1.15) return undefined;
  if (NUMBERED_CAPTION.test(text)) return undefined;
  // A fragment lying inside a body block's box (a superscript "15" within a paragraph) is part of
  // that block, however close to the page's edge the paragraph runs: a head or foot is outside it.
  const enclosed = others.some(
    (o) => o !== b && o.y0 < b.y0 && o.y1 > b.y1 && Math.min(o.x1, b.x1) - Math.max(o.x0, b.x0) > 0,
  );
  if (enclosed) return undefined;
  const pageNumberLike = PAGE_NUMBER.test(text);
  // Page numbers may sit further into the page than running heads and feet.
  const top = b.y1 < s.height * (pageNumberLike ? 0.15 : 0.14);
  const bottom = b.y0 > s.height * (pageNumberLike ? 0.8 : 0.86);
  if (!top && !bottom) return undefined;
  // Require clearance from the nearest body block so a first paragraph near the top is not eaten.
  const clearance = others.reduce((min, o) => {
    if (o === b) return min;
    const gap = top ? o.y0 - b.y1 : b.y0 - o.y1;
    return gap > -1 ? Math.min(min, gap) : min;
  }, Infinity);
  if (!pageNumberLike && clearance < 1.2 * size) return undefined;
  // A running head or foot has its band of the page to itself: a fragment with other text right
  // beside it on the same band (a sub- or superscript of a displayed formula) is body text.
  const crowded = others.some(
    (o) =>
      o !== b &&
      !PAGE_NUMBER.test(blockText(o)) &&
      Math.min(o.y1, b.y1) - Math.max(o.y0, b.y0) > 0 &&
      Math.max(o.x0 - b.x1, b.x0 - o.x1) < 2 * size,
  );
  if (!pageNumberLike && crowded) return undefined;
  const veryTop = b.y1 < s.height * 0.09;
  const veryBottom = b.y0 > s.height * 0.93;
  const besidePageNumber = others.some(
    (o) =>
      o !== b && PAGE_NUMBER.test(blockText(o)) && Math.min(o.y1, b.y1) - Math.max(o.y0, b.y0) > 0.5 * (b.y1 - b.y0),
  );
  const smallAndApart = size < s.bodySize * 0.95 && clearance > 1.5 * size;
  // Set apart like a foot (the clearance and band checks above) and numbered like one: short enough
  // that a body paragraph ending on "page 4" is not taken for it.
  const pagePhrase = b.lines.length <= 2 && PAGE_PHRASE.test(text.trim());
  if (!(pageNumberLike || veryTop || veryBottom || besidePageNumber || smallAndApart || pagePhrase)) return undefined;
  return top ? 'page_header' : 'page_footer';
}

export function classifyBlock(b: Block, s: PageStats): LayoutElement {
  const text = blockText(b, s.vocab);
  const size = median(b.lines.map((l) => l.size));
  const bold = b.lines.every((l) => l.bold);
  const base = { x0: b.x0, y0: b.y0, x1: b.x1, y1: b.y1 };
  const conf = meanConfidence(b);
  const el = (type: ElementType, extra: Partial<LayoutElement> = {}): LayoutElement => ({
    ...base,
    type,
    text,
    ...(conf === undefined ? {} : { confidence: conf }),
    ...extra,
  });

  // Monospace marks code only where the body is proportional; on a typewritten page it is the
  // body's own font, and a block there is code only when its lines read like code.
  if (b.lines.every((l) => l.mono) && text.length > 0 && (!s.bodyMono || readsLikeCode(b.lines.map((l) => l.text))))
    return el('code', { text: b.lines.map((l) => l.text).join('\n') });
  if (CAPTION.test(text) && text.length < 600) return el('caption');
  if (startsLikeListItem(text) || /^[•◦▪●○■►➢❖·]/.test(text)) return el('list_item');

  const short = b.lines.length <= 3 && text.length <= 200 && !/[.;,]$/.test(text.replace(/[)\]"”’]+$/, ''));
  // OCR sizes come from line boxes, which vary with ascenders and descenders: demand more.
  const ocr = s.source === 'ocr';
  if (short && /[a-zA-Z]/.test(text) && (!ocr || b.lines.length <= 2)) {
    if (size >= s.bodySize * (ocr ? 1.9 : 1.6)) return el('title', { level: 1 });
    if (size >= s.bodySize * (ocr ? 1.35 : 1.15)) return el('heading', { level: 2 });
    if (bold && text.length <= 150 && size >= s.bodySize * 0.95) return el('heading', { level: 3 });
  }
  if (size <= s.bodySize * 0.85 && b.y0 > s.height * 0.7 && /^([0-9]{1,2}|[*†‡§¶])\s?\S/.test(text))
    return el('footnote');
  return el('text');
}

/** Share of characters on monospaced lines: more than half makes the page's body monospaced. */
export function bodyIsMono(blocks: Block[]): boolean {
  let mono = 0,
    all = 0;
  for (const b of blocks)
    for (const l of b.lines) {
      all += l.text.length;
      if (l.mono) mono += l.text.length;
    }
  return all > 0 && mono > 0.5 * all;
}

const CODE_LINE =
  /[{};]\s*$|^\s*[{}#]|\s[=<>]=?\s|[=!<>]=|->|=>|\w\([^)\s]*\)|^\s*(def|return|import|from|class|function|var|let|const|if|for|while)\b.*[:({=]/;

/** Code lines: statement ends, braces, operators, calls or keywords on at least half the lines. */
function readsLikeCode(lines: string[]): boolean {
  return lines.filter((l) => CODE_LINE.test(l)).length >= 0.5 * lines.length;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)]! : 0;
}

function meanConfidence(b: Block): number | undefined {
  let sum = 0,
    n = 0;
  for (const l of b.lines)
    for (const r of l.runs)
      if (r.conf !== undefined) {
        sum += r.conf;
        n++;
      }
  return n ? sum / n : undefined;
}
