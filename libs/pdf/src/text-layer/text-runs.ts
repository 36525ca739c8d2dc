// pdf.js text items → TextRun boxes in top-left page points, with font size and style flags.
// Style comes from the font objects pdf.js loads while building the operator list, so callers
// must run getOperatorList() before this to see bold/mono flags.
import { mirrorReversedBrackets } from '../layout/bidi';
import type { PDFPageProxy } from 'pdfjs-dist/types/src/display/api';
import type { Matrix } from '../geometry';
import { multiply } from '../geometry';
import type { TextRun } from '../types';

interface TextItemLike {
  str: string;
  transform: number[];
  width: number;
  height: number;
  fontName: string;
  /** 'rtl' when pdf.js reversed the item's characters into logical order. */
  dir?: string;
}
interface StyleLike {
  fontFamily?: string;
  ascent?: number;
  descent?: number;
  vertical?: boolean;
}
interface FontLike {
  name?: string;
  bold?: boolean;
  black?: boolean;
  italic?: boolean;
  fallbackName?: string;
  isType3Font?: boolean;
}

const BOLD_NAME = /bold|black|heavy|semibold|demi|[-,+]bd\b|sfbx|cmbx|\bbx\d|medium|-b$/i;
const ITALIC_NAME = /italic|oblique|[-,+]it\b|sfti|cmti|sfsl/i;
const MONO_NAME = /courier|mono|consol|menlo|inconsolata|sftt|cmtt|\btt\d/i;

export interface TextContentLike {
  items: unknown[];
  styles: Record<string, StyleLike>;
}

export function textRunsFromContent(
  content: TextContentLike,
  viewportTransform: number[],
  fontOf: (fontName: string) => FontLike | undefined,
  /** Mends an item's text as pdf.js gives it (before whitespace is collapsed; `rtl`: pdf.js read it right to left). */
  mendItem?: (text: string, rtl: boolean) => string,
): TextRun[] {
  const vt = viewportTransform.slice(0, 6) as Matrix;
  const runs: TextRun[] = [];
  const fontCache = new Map<string, { bold: boolean; italic: boolean; mono: boolean }>();
  for (const raw of content.items) {
    const item = raw as TextItemLike;
    if (typeof item.str !== 'string' || !item.transform) continue;
    const str = mendItem ? mendItem(item.str, item.dir === 'rtl') : item.str;
    const text = mirrorReversedBrackets(expandLigatures(str), item.dir === 'rtl').replace(/\s+/g, ' ');
    if (!text.trim()) continue;
    const m = multiply(item.transform as Matrix, vt);
    const size = Math.hypot(m[2], m[3]);
    if (!(size > 0.5) || !Number.isFinite(size)) continue;
    const style = content.styles[item.fontName] ?? {};
    let flags = fontCache.get(item.fontName);
    if (!flags) {
      const font = fontOf(item.fontName);
      const name = font?.name ?? '';
      flags = {
        bold: Boolean(font?.bold || font?.black || BOLD_NAME.test(name)),
        italic: Boolean(font?.italic || ITALIC_NAME.test(name)),
        mono: style.fontFamily === 'monospace' || font?.fallbackName === 'monospace' || MONO_NAME.test(name),
      };
      fontCache.set(item.fontName, flags);
    }
    // Ascent/descent from the font when sane; many fonts report 1.0+ which inflates line boxes.
    const ascent = clampNum(style.ascent ?? 0.8, 0.6, 0.9);
    const descent = clampNum(-(style.descent ?? -0.2), 0.1, 0.25);
    const len = Math.hypot(m[0], m[1]) || 1;
    const dx = m[0] / len,
      dy = m[1] / len;
    const horizontal = Math.abs(dy) < 0.02 && dx > 0;
    const width = item.width > 0 ? item.width : size * 0.5 * text.length;
    if (horizontal) {
      const baseline = m[5];
      runs.push({
        text,
        size,
        baseline,
        x0: m[4],
        x1: m[4] + width,
        y0: baseline - ascent * size,
        y1: baseline + descent * size,
        bold: flags.bold,
        italic: flags.italic,
        mono: flags.mono,
      });
    } else {
      // Rotated text: keep an axis-aligned box; layout treats it as a standalone line.
      const ux = -dy,
        uy = dx; // "up" vector in a y-down space
      const pts: Array<[number, number]> = [
        [m[4], m[5]],
        [m[4] + dx * width, m[5] + dy * width],
        [m[4] - ux * ascent * size, m[5] - uy * ascent * size],
        [m[4] + dx * width - ux * ascent * size, m[5] + dy * width - uy * ascent * size],
      ];
      const xs = pts.map((p) => p[0]),
        ys = pts.map((p) => p[1]);
      runs.push({
        text,
        size,
        baseline: Math.max(...ys),
        x0: Math.min(...xs),
        x1: Math.max(...xs),
        y0: Math.min(...ys),
        y1: Math.max(...ys),
        bold: flags.bold,
        italic: flags.italic,
        mono: flags.mono,
        rotated: true,
      });
    }
  }
  return runs;
}

// Presentation-form ligatures (ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) become their letters; no space is added around them.
const LIGATURES: Record<string, string> = {
  '\uFB00': 'ff',
  '\uFB01': 'fi',
  '\uFB02': 'fl',
  '\uFB03': 'ffi',
  '\uFB04': 'ffl',
  '\uFB05': 'st',
  '\uFB06': 'st',
};
// Hebrew and Arabic presentation forms (a letter's initial, medial, final or isolated glyph, lam-alef
// ligatures) become their letters, as NFKC maps them; producers that shape text themselves write
// them into ToUnicode, and search, models and comparisons need the letters.
const RTL_PRESENTATION = /[\uFB1D-\uFDFF\uFE70-\uFEFF]/gu;
export const expandLigatures = (s: string): string =>
  s.replace(/[\uFB00-\uFB06]/g, (c) => LIGATURES[c] ?? c).replace(RTL_PRESENTATION, (c) => c.normalize('NFKC'));

const clampNum = (v: number, lo: number, hi: number) =>
  Number.isFinite(v) ? Math.min(hi, Math.max(lo, v)) : (lo + hi) / 2;

/** Font lookup that never throws (fonts that failed to load are simply unknown). */
export function pageFontLookup(page: PDFPageProxy): (name: string) => FontLike | undefined {
  return (name) => {
    try {
      return page.commonObjs.has(name) ? (page.commonObjs.get(name) as FontLike) : undefined;
    } catch {
      return undefined;
    }
  };
}
