// Layout of an OCR'd page from Tesseract's own word, line and block boxes. Scans and photos of
// receipts, slips and forms are not reports: their text is read line by line, a label and the
// value printed at the other end of the same line belong together, and a centred header block is
// a stack of lines. So the page is built from printed rows: Tesseract lines that share a row are
// joined left to right (Tesseract often puts a label and its amount in different blocks), unless
// they belong to side-by-side columns of prose. Each row is an element with its box; rows of one
// prose paragraph become one element. A table is kept only where the page gives table evidence
// (ruling lines around it, or a grid of three or more filled columns over several rows); its rows
// then leave the flow and the table takes their place.
import { isRightToLeft, logicalRunOrder } from '../layout/bidi';
import type { LayoutElement, TextRun } from '../types';
import type { OcrWord } from './recognise';

export interface OcrRow {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
  words: OcrWord[];
  blocks: Set<number>;
  text: string;
}

interface Line {
  key: string;
  block: number;
  words: OcrWord[];
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** Words that carry no reading: low-confidence marks with no letter or digit run. */
export function noise(w: Pick<OcrWord, 'text' | 'conf'>): boolean {
  if (/[\p{L}\p{N}]{3,}/u.test(w.text)) return false;
  if (w.conf < 20) return true;
  // Rows of rule characters left from separators ("-----", "=====", "*****").
  return /^[-=_~*.·•:]{4,}$/.test(w.text) && w.conf < 70;
}

function linesOf(words: OcrWord[]): Line[] {
  const by = new Map<string, Line>();
  for (const w of words) {
    if (noise(w)) continue;
    const key = `${w.block}.${w.par}.${w.line}`;
    const l = by.get(key) ?? {
      key,
      block: w.block,
      words: [],
      x0: Infinity,
      y0: Infinity,
      x1: -Infinity,
      y1: -Infinity,
    };
    l.words.push(w);
    l.x0 = Math.min(l.x0, w.x0);
    l.y0 = Math.min(l.y0, w.y0);
    l.x1 = Math.max(l.x1, w.x1);
    l.y1 = Math.max(l.y1, w.y1);
    by.set(key, l);
  }
  return [...by.values()];
}

interface BlockStat {
  lines: number;
  chars: number;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** Blocks of prose (several long lines) standing side by side with another such block. */
function proseColumns(lines: Line[]): Set<number> {
  const stats = new Map<number, BlockStat>();
  for (const l of lines) {
    const s = stats.get(l.block) ?? { lines: 0, chars: 0, x0: Infinity, x1: -Infinity, y0: Infinity, y1: -Infinity };
    s.lines++;
    s.chars += l.words.reduce((n, w) => n + w.text.length + 1, 0);
    s.x0 = Math.min(s.x0, l.x0);
    s.x1 = Math.max(s.x1, l.x1);
    s.y0 = Math.min(s.y0, l.y0);
    s.y1 = Math.max(s.y1, l.y1);
    stats.set(l.block, s);
  }
  const prose = [...stats.entries()].filter(([, s]) => s.lines >= 3 && s.chars / s.lines >= 25);
  const out = new Set<number>();
  for (const [a, sa] of prose) {
    for (const [b, sb] of prose) {
      if (a >= b) continue;
      const vOverlap = Math.min(sa.y1, sb.y1) - Math.max(sa.y0, sb.y0);
      const side = sa.x1 <= sb.x0 + 2 || sb.x1 <= sa.x0 + 2;
      if (side && vOverlap > 0.3 * Math.min(sa.y1 - sa.y0, sb.y1 - sb.y0)) {
        out.add(a);
        out.add(b);
      }
    }
  }
  return out;
}

const vOverlap = (a: { y0: number; y1: number }, b: { y0: number; y1: number }) =>
  Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);

/** Printed rows: Tesseract lines on the same row joined left to right (prose columns kept apart). */
export function ocrRows(words: OcrWord[]): OcrRow[] {
  const lines = linesOf(words).sort((a, b) => a.y0 + a.y1 - (b.y0 + b.y1));
  const columns = proseColumns(lines);
  const rows: Array<OcrRow & { lines: Line[] }> = [];
  for (const l of lines) {
    const h = l.y1 - l.y0;
    const row = rows.find((r) => {
      if (columns.has(l.block) || r.lines.some((o) => columns.has(o.block))) return false;
      // Same row: most of the shorter height shared, and no horizontal overlap with its lines.
      return r.lines.every(
        (o) => vOverlap(o, l) >= 0.5 * Math.min(h, o.y1 - o.y0) && (l.x0 >= o.x1 - 2 || l.x1 <= o.x0 + 2),
      );
    });
    if (row) {
      row.lines.push(l);
      row.x0 = Math.min(row.x0, l.x0);
      row.y0 = Math.min(row.y0, l.y0);
      row.x1 = Math.max(row.x1, l.x1);
      row.y1 = Math.max(row.y1, l.y1);
      row.blocks.add(l.block);
    } else {
      rows.push({
        x0: l.x0,
        y0: l.y0,
        x1: l.x1,
        y1: l.y1,
        words: [],
        blocks: new Set([l.block]),
        text: '',
        lines: [l],
      });
    }
  }
  for (const r of rows) {
    r.lines.sort((a, b) => a.x0 - b.x0);
    r.words = r.lines.flatMap((l) => [...l.words].sort((a, b) => a.x0 - b.x0));
    // A right-to-left row (Arabic, Hebrew: each word's letters already in logical order) is read
    // from the right, its Latin words and numbers left to right, as the text layer's lines are.
    if (isRightToLeft(r.words.map((w) => w.text))) r.words = logicalRunOrder(r.words);
    r.text = r.words.map((w) => w.text).join(' ');
  }
  // Reading order: a prose column is read whole where it starts (columns side by side: left
  // first, or right first on a right-to-left page); every other row where it stands.
  const rtl = isRightToLeft(rows.map((r) => r.text));
  const colTop = new Map<number, { y: number; x: number }>();
  for (const r of rows) {
    const b = r.lines[0]!.block;
    if (!columns.has(b)) continue;
    const t = colTop.get(b);
    const x = rtl ? -r.x1 : r.x0;
    colTop.set(b, { y: Math.min(t?.y ?? Infinity, r.y0), x: Math.min(t?.x ?? Infinity, x) });
  }
  const key = (r: (typeof rows)[number]) => {
    const c = colTop.get(r.lines[0]!.block);
    return c ? { y: c.y, x: c.x, inner: r.y0 } : { y: r.y0, x: rtl ? -r.x1 : r.x0, inner: 0 };
  };
  const sorted = rows
    .map((r) => ({ r, k: key(r) }))
    .sort((a, b) => a.k.y - b.k.y || a.k.x - b.k.x || a.k.inner - b.k.inner);
  return sorted.map(({ r: { lines: _l, ...r } }) => r);
}

/** Letters and marks that reach below the baseline (and words read as nothing but punctuation). */
const BELOW_BASELINE = /[gjpqy(),;\[\]{}|$@§µ_]/;
const READS_AS_TEXT = /[\p{L}\p{N}]/u;

/**
 * The printed row's baseline in pixels: the median bottom of its words that end on the baseline
 * (no descender, some letter or digit). Tesseract's word boxes are tight around the ink, so the
 * row's lowest edge is a descender's ("replication", "(3.1)") in one row and the baseline in the
 * next; taken as the baseline it makes the spacing of a table's rows jitter by a descender's depth,
 * and the table builder takes evenly spaced rows for wrapped lines of one cell.
 */
export function rowBaseline(row: Pick<OcrRow, 'words' | 'y1'>): number {
  const onBase = row.words.filter((w) => READS_AS_TEXT.test(w.text) && !BELOW_BASELINE.test(w.text));
  const ys = (onBase.length ? onBase : row.words).map((w) => w.y1).sort((a, b) => a - b);
  return ys.length ? ys[Math.floor(ys.length / 2)]! : row.y1;
}

/**
 * Rows as text runs in points, for the table detector (which works on runs): each run's line is its
 * printed row, so a table's rows are the page's rows whatever blocks Tesseract made.
 */
export function rowsToRuns(rows: OcrRow[], k: number): TextRun[] {
  const runs: TextRun[] = [];
  rows.forEach((row, i) => {
    const hs = row.words.map((w) => w.y1 - w.y0).sort((a, b) => a - b);
    const size = Math.max(4, (hs[Math.floor(hs.length / 2)] ?? row.y1 - row.y0) * k * 1.1);
    const baseline = rowBaseline(row) * k;
    for (const w of row.words) {
      runs.push({
        text: w.text,
        x0: w.x0 * k,
        x1: w.x1 * k,
        y0: w.y0 * k,
        y1: w.y1 * k,
        size,
        baseline,
        bold: false,
        italic: false,
        mono: false,
        conf: w.conf / 100,
        ocrLine: `r${i}`,
      });
    }
  });
  return runs;
}

const meanConf = (ws: OcrWord[]) => (ws.length ? ws.reduce((s, w) => s + w.conf, 0) / ws.length / 100 : undefined);

/**
 * Rows → elements in reading order (points, `k` = 72 / image dpi). Consecutive rows of one prose
 * paragraph (same Tesseract paragraph, long lines) become one text element; every other row is an
 * element of its own. `tables` (already accepted) replace the rows whose centre lies inside them.
 */
export function rowsToElements(rows: OcrRow[], k: number, tables: LayoutElement[] = []): LayoutElement[] {
  const inTable = (r: OcrRow) =>
    tables.some((t) => {
      const cx = ((r.x0 + r.x1) / 2) * k,
        cy = ((r.y0 + r.y1) / 2) * k;
      return cx >= t.x0 && cx <= t.x1 && cy >= t.y0 && cy <= t.y1;
    });
  const flow = rows.filter((r) => !inTable(r));
  const items: Array<{ el: LayoutElement; par?: string; long: boolean }> = [];
  for (const r of flow) {
    const pars = new Set(r.words.map((w) => `${w.block}.${w.par}`));
    const el: LayoutElement = { type: 'text', text: r.text, x0: r.x0 * k, y0: r.y0 * k, x1: r.x1 * k, y1: r.y1 * k };
    const c = meanConf(r.words);
    if (c !== undefined) el.confidence = c;
    items.push({ el, par: pars.size === 1 ? [...pars][0] : undefined, long: r.text.length >= 40 });
  }
  const out: LayoutElement[] = [];
  let prev: (typeof items)[number] | undefined;
  let prevConfN = 0;
  for (const it of items) {
    // Same paragraph, a long line before, the next line right below it (less than a line's gap).
    const lineH = it.el.y1 - it.el.y0;
    const joinable =
      prev &&
      prev.par &&
      prev.par === it.par &&
      prev.long &&
      it.el.y0 >= prev.el.y1 - lineH * 0.5 &&
      it.el.y0 - prev.el.y1 < lineH;
    if (joinable) {
      const last = out[out.length - 1]!;
      last.text =
        /-$/.test(last.text) && /^[a-z]/.test(it.el.text)
          ? `${last.text.slice(0, -1)}${it.el.text}`
          : `${last.text} ${it.el.text}`;
      last.x0 = Math.min(last.x0, it.el.x0);
      last.x1 = Math.max(last.x1, it.el.x1);
      last.y1 = Math.max(last.y1, it.el.y1);
      if (it.el.confidence !== undefined && last.confidence !== undefined) {
        last.confidence = (last.confidence * prevConfN + it.el.confidence) / (prevConfN + 1);
        prevConfN++;
      }
      prev = { ...it, el: last };
      continue;
    }
    out.push(it.el);
    prevConfN = 1;
    prev = it;
  }
  // Tables go where they stand on the page (by their top edge among the flow elements).
  for (const t of tables) {
    const at = out.findIndex((e) => e.y0 > t.y0);
    out.splice(at < 0 ? out.length : at, 0, t);
  }
  return out;
}
