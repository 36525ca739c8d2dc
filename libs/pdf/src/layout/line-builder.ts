// Runs → lines. Runs sharing a baseline band form a row; a row splits into separate lines at gaps
// wider than a word space can plausibly be (column gutters, table cells), so later stages see
// "line fragments" that never straddle two columns.
import type { Line, TextRun } from '../types';
import { CAPTION, contentsLines } from '../tables/stream-tables';
import { isRightToLeftLine, logicalRunOrder, logicalRunOrderLtr } from './bidi';

const BULLET_ONLY = /^\s*([•◦▪▫●○■□►▶➢➤✓✔❖–—\-*·∙]|\(?[0-9]{1,3}[.)]|\(?[a-zA-Z][.)]|\(?[ivxIVX]{1,4}[.)])\s*$/;
// Private-use glyphs (Wingdings/Symbol bullets extracted without a Unicode mapping).
const PRIVATE_USE = /[\uE000-\uF8FF]/g;

export interface LineOptions {
  /** Gap (in multiples of the font size) above which a row is always split into separate lines. */
  splitGapEm?: number;
  /** Smaller gap that still splits a row when it lines up with a gutter of its band of the page. */
  gutterGapEm?: number;
}

export function buildLines(input: TextRun[], opts: LineOptions = {}): Line[] {
  const splitGapEm = opts.splitGapEm ?? 2.5;
  const gutterGapEm = opts.gutterGapEm ?? 0.7;
  const runs = cleanRuns(input);
  const lines: Line[] = [];
  const horizontal = runs.filter((r) => !r.rotated);
  for (const r of runs) if (r.rotated) lines.push(makeLine([r]));

  // OCR runs already carry Tesseract's line grouping; trust it (then still split wide gaps).
  const rows = horizontal.some((r) => r.ocrLine) ? groupByOcrLine(horizontal) : groupRows(horizontal);
  const gutter = findGutters(rows);
  for (const row of rows) row.sort((a, b) => a.x0 - b.x0);
  // Leader dots join a contents entry's title to its page number across any gap or gutter.
  const contents = contentsLines(rows);
  for (const [rowIndex, row] of rows.entries()) {
    const entry = contents[rowIndex];
    let current: TextRun[] = [];
    for (const [i, run] of row.entries()) {
      const prev = current[current.length - 1];
      if (prev) {
        const gap = run.x0 - prev.x1;
        const em = Math.max(prev.size, run.size);
        const prevIsMarker = current.length === 1 && BULLET_ONLY.test(prev.text);
        const split =
          gap > splitGapEm * em ||
          (gap > gutterGapEm * em && gutter(rowIndex, prev.x1, run.x0)) ||
          hangingLabel(run, prev, row[i + 1], isMarkerText(row[0]!.text), (a, b) => gutter(rowIndex, a, b)) ||
          strayScript(prev, run) ||
          // A caption label ("Table B.2.") more than an em after the text before it starts a caption
          // of its own: two captions side by side (one per column) are never one line.
          (gap > em && CAPTION.test(`${run.text} ${row[i + 1]?.text ?? ''}`));
        if (split && !entry && !(prevIsMarker && gap < 4 * em)) {
          lines.push(makeLine(current));
          current = [];
        }
      }
      current.push(run);
    }
    if (current.length) lines.push(makeLine(current));
  }
  return lines;
}

/**
 * A label ("(b)", "2.") hung into a column gutter in front of its column's text: side-by-side
 * panel captions set their labels left of the text edge, so the label can touch or overlap the
 * last word of the caption beside it ("unit.(b) A visualization"). The row splits before the label
 * when the space from the label to the text after it is a gutter of the band, or when the label is
 * drawn over the end of the text before it in a row that itself starts with a label (two captions
 * of two lines have too few rows to show a gutter; glyphs of one line never overlap).
 */
function hangingLabel(
  label: TextRun,
  prev: TextRun,
  next: TextRun | undefined,
  rowStartsLabelled: boolean,
  gutter: (a: number, b: number) => boolean,
): boolean {
  if (!next || !BULLET_ONLY.test(label.text) || next.x0 - label.x1 > Math.max(label.size, next.size)) return false;
  if (rowStartsLabelled && prev.x1 - label.x0 > 0.05 * label.size) return true;
  return gutter(label.x0, next.x0);
}

/**
 * A smaller run off the baseline (an exponent: "−1" of "f⁻¹") far from the text before it is no
 * script of that text: it belongs to a symbol of the column beside, whose row it was grouped into
 * because its raised box overlaps this row more. A script follows its base with no word space.
 */
function strayScript(prev: TextRun, run: TextRun): boolean {
  const offBaseline = Math.abs(prev.baseline - run.baseline) > 0.1 * prev.size;
  return offBaseline && run.size < 0.85 * prev.size && run.x0 - prev.x1 > 1.5 * prev.size;
}

/**
 * Gutters, judged locally: a gap is a column gutter when the rows just above it or just below it
 * (a band of the page, not the whole page) leave the same x free, with a column edge aligned with
 * this row's, and (almost) never cross it with text. Justified word spacing can be as wide as a narrow column gutter, but only a gutter
 * repeats down the band at the same x; a full-width abstract or title above two columns does not
 * hide their gutter, because it lies outside the band.
 */
function findGutters(rows: TextRun[][]): (row: number, a: number, b: number) => boolean {
  interface RowInfo {
    y: number;
    size: number;
    cover: Array<[number, number]>;
    minX: number;
    maxX: number;
  }
  const info: RowInfo[] = rows.map((row) => {
    const sorted = [...row].sort((a, b) => a.x0 - b.x0);
    const cover: Array<[number, number]> = [];
    let size = 0;
    for (const r of sorted) {
      size = Math.max(size, r.size);
      const last = cover[cover.length - 1];
      if (last && r.x0 - last[1] <= 0.5 * r.size) last[1] = Math.max(last[1], r.x1);
      else cover.push([r.x0, r.x1]);
    }
    const ys = row.map((r) => r.baseline).sort((a, b) => a - b);
    return {
      y: ys[Math.floor(ys.length / 2)] ?? 0,
      size,
      cover,
      minX: cover[0]?.[0] ?? 0,
      maxX: Math.max(...cover.map((c) => c[1])),
    };
  });
  const order = info.map((_, i) => i).sort((a, b) => info[a]!.y - info[b]!.y);
  const rank = new Array<number>(info.length);
  order.forEach((r, k) => {
    rank[r] = k;
  });
  const WINDOW = 6;
  // One side of the row (up or down): the nearest rows, each either crossing x with text or
  // leaving x free with a column edge where this row has one (text starting where this row's
  // right part starts, or ending where its left part ends). Word spaces that happen to line up
  // (rivers) leave x free too, but their edges do not align.
  const side = (me: RowInfo, k0: number, step: 1 | -1, x: number, a: number, b: number) => {
    let free = 0,
      cross = 0,
      adjacent = 0;
    for (let k = k0 + step, seen = 0; k >= 0 && k < order.length && seen < WINDOW; k += step) {
      const o = info[order[k]!]!;
      if (Math.abs(o.y - me.y) > 20 * me.size) break;
      // A row with no text over this row's extent is a column beside it: no witness either way.
      if (!o.cover.some(([c0, c1]) => c1 > me.minX && c0 < me.maxX)) continue;
      seen++;
      if (o.cover.some(([c0, c1]) => x > c0 && x < c1)) cross++;
      else {
        // The text edges on either side of x in that row.
        let leftEnd = -Infinity,
          rightStart = Infinity;
        for (const [c0, c1] of o.cover) {
          if (c1 <= x) leftEnd = Math.max(leftEnd, c1);
          if (c0 >= x) rightStart = Math.min(rightStart, c0);
        }
        if (Math.abs(rightStart - b) <= 2 || Math.abs(leftEnd - a) <= 2) {
          free++;
          if (!cross) adjacent++;
        }
      }
    }
    return { enough: free >= 3 && 3 * cross <= free, adjacent };
  };
  // Two short blocks of text side by side (panel captions of a few lines) have few rows on either
  // side: their gutter also holds when the rows next to this one, above and below, all leave it
  // free and this row has a run of words on both sides (not the short pieces of a formula).
  const wordsBothSides = (me: RowInfo, a: number, b: number) => {
    const wide = ([c0, c1]: [number, number]) => c1 - c0 >= 6 * me.size;
    return (
      me.cover.some((c) => Math.abs(c[1] - a) <= 1 && wide(c)) &&
      me.cover.some((c) => Math.abs(c[0] - b) <= 1 && wide(c))
    );
  };
  return (row, a, b) => {
    const me = info[row]!;
    const k0 = rank[row]!;
    const words = wordsBothSides(me, a, b);
    for (let x = Math.ceil(a); x <= Math.floor(b); x++) {
      const down = side(me, k0, 1, x, a, b),
        up = side(me, k0, -1, x, a, b);
      if (down.enough || up.enough) return true;
      if (words && down.adjacent && up.adjacent && down.adjacent + up.adjacent >= 3) return true;
    }
    return false;
  };
}

// Glyph ids leaked as control characters: fonts without a usable Unicode mapping.
const CONTROL = /[\u0000-\u0008\u000B-\u001F]/g;

// A spacing accent written just before its letter inside one text item (TeX's \' gives "´n").
const ACCENT_BEFORE_LETTER = /([\u00B4\u02DC\u00A8\u02C6\u02C7\u00AF\u02D9\u02DA\u02D8\u02DD])(\p{L})/gu;

/** "´n" → "ń": a spacing accent followed by its letter becomes the accented letter. */
// A combining mark (an Arabic tanween or haraka, a Latin combining accent) belongs to the letter
// before it; a space before one is an extraction gap (pdf.js spaces a mark positioned apart from its
// letter: "بناء ً" for "بناءً"), never text.
const SPACE_BEFORE_MARK = /\s+(?=\p{M})/gu;

export const composeAccents = (s: string): string =>
  s
    .replace(SPACE_BEFORE_MARK, '')
    .replace(ACCENT_BEFORE_LETTER, (_, acc: string, letter: string) => (letter + COMBINING[acc]!).normalize('NFC'));

function normaliseRun(r: TextRun): TextRun {
  const controls = r.text.match(CONTROL)?.length ?? 0;
  if (controls) {
    const visible = r.text.replace(/\s/g, '').length;
    // Mostly undecodable: drop the run entirely rather than emit symbol soup.
    if (controls > 0.3 * visible) return { ...r, text: '' };
    r = { ...r, text: r.text.replace(CONTROL, '') };
  }
  if (!PRIVATE_USE.test(r.text)) return r;
  PRIVATE_USE.lastIndex = 0;
  const text = r.text.trim().length <= 2 ? '•' : r.text.replace(PRIVATE_USE, '');
  return { ...r, text, mono: false };
}

// Spacing diacritics that TeX and others draw as separate glyphs over (or beside) a base letter,
// mapped to the combining mark that follows the base character in text.
const COMBINING: Record<string, string> = {
  '\u02DC': '\u0303',
  '\u00AF': '\u0304',
  '\u02C6': '\u0302',
  '\u02C7': '\u030C',
  '\u00B4': '\u0301',
  '\u0060': '\u0300',
  '\u00A8': '\u0308',
  '\u02D9': '\u0307',
  '\u02DA': '\u030A',
  '\u02D8': '\u0306',
  '\u02DD': '\u030B',
  '\u20D7': '\u20D7',
};

/**
 * Accents drawn as glyphs of their own (ε̃, ā, é from "e" + "´") become combining marks after the
 * letter they sit on, composed where Unicode has a precomposed letter (NFC). The accent's run is
 * removed, so it is not left as a stray "˜" elsewhere in the line or on a line of its own.
 */
export function attachAccents(input: TextRun[]): TextRun[] {
  const runs = splitTrailingAccents(input);
  const accents = runs.filter(
    (r) => !r.rotated && r.text.trim().length === 1 && COMBINING[r.text.trim()] !== undefined,
  );
  if (!accents.length) return runs;
  const bases = runs.filter((r) => !r.rotated && !accents.includes(r));
  const edits = new Map<TextRun, Array<{ index: number; mark: string }>>();
  const used = new Set<TextRun>();
  for (const a of accents) {
    const cx = (a.x0 + a.x1) / 2;
    let best: TextRun | undefined,
      bestD = Infinity;
    for (const b of bases) {
      if (cx < b.x0 - 0.5 || cx > b.x1 + 0.5) continue;
      const dy = b.baseline - a.baseline; // > 0: the accent sits higher than the base line
      const size = b.size;
      const above = dy > -0.3 * size && dy < 1.1 * size && a.y1 > b.y0 - 0.6 * size;
      if (!above) continue;
      const d = Math.abs(dy);
      if (d < bestD) {
        best = b;
        bestD = d;
      }
    }
    if (!best) continue;
    const chars = [...best.text];
    const per = (best.x1 - best.x0) / Math.max(1, chars.length);
    let index = Math.min(chars.length - 1, Math.max(0, Math.floor((cx - best.x0) / per)));
    while (index > 0 && /\s/.test(chars[index]!)) index--;
    const list = edits.get(best) ?? [];
    list.push({ index, mark: COMBINING[a.text.trim()]! });
    edits.set(best, list);
    used.add(a);
  }
  return runs
    .filter((r) => !used.has(r))
    .map((r) => {
      const list = edits.get(r);
      if (!list) return r;
      const chars = [...r.text];
      for (const { index, mark } of list.sort((x, y) => y.index - x.index)) chars.splice(index + 1, 0, mark);
      return { ...r, text: chars.join('').normalize('NFC') };
    });
}

/**
 * TeX sets an accent and then moves back to draw its letter under it, so the text layer often
 * ends a run with the accent ("… As such, ˜") while the letter ("ε") is a run of its own that starts
 * inside the previous run's last glyph. Such a trailing accent becomes a run of its own (its glyph
 * box is the end of the run) so attachAccents puts it on the letter beneath; an accent with no
 * letter under it stays where it was.
 */
function splitTrailingAccents(runs: TextRun[]): TextRun[] {
  const out: TextRun[] = [];
  for (const r of runs) {
    const trimmed = r.text.trimEnd();
    const acc = trimmed.slice(-1);
    if (r.rotated || trimmed.length < 2 || COMBINING[acc] === undefined) {
      out.push(r);
      continue;
    }
    const w = Math.min(0.6 * r.size, (r.x1 - r.x0) / 2);
    const ax0 = r.x1 - w;
    const cx = r.x1 - w / 2;
    const under = runs.some(
      (b) =>
        b !== r &&
        !b.rotated &&
        b.x0 < cx &&
        b.x1 > cx &&
        b.x0 > r.x0 &&
        Math.abs(b.baseline - r.baseline) < 1.1 * r.size &&
        b.text.trim().length > 0 &&
        COMBINING[b.text.trim()[0]!] === undefined,
    );
    if (!under) {
      out.push(r);
      continue;
    }
    const rest = trimmed.slice(0, -1);
    out.push({ ...r, text: rest, x1: rest.trimEnd().length < rest.length ? ax0 - 0.01 : ax0 });
    out.push({ ...r, text: acc, x0: ax0 });
  }
  return out;
}

/**
 * Drops runs painted twice at (almost) the same spot: fake bold (the same text drawn again shifted
 * by a fraction of a point) and shadows. Kept once, at its first position.
 */
function dedupeRuns(runs: TextRun[]): TextRun[] {
  const seen = new Map<string, TextRun[]>();
  const out: TextRun[] = [];
  for (const r of runs) {
    const same = seen.get(r.text);
    const tol = Math.max(1.5, 0.15 * r.size);
    if (
      same?.some(
        (o) =>
          Math.abs(o.x0 - r.x0) <= tol && Math.abs(o.baseline - r.baseline) <= tol && Math.abs(o.size - r.size) < 0.5,
      )
    )
      continue;
    if (same) same.push(r);
    else seen.set(r.text, [r]);
    out.push(r);
  }
  return out;
}

/** Text-layer runs as layout and tables read them: decodable, each painted once, accents attached. */
export function cleanRuns(input: TextRun[]): TextRun[] {
  return attachAccents(dedupeRuns(input.map(normaliseRun).filter((r) => r.text.trim())));
}

function groupByOcrLine(runs: TextRun[]): TextRun[][] {
  const map = new Map<string, TextRun[]>();
  for (const r of runs) {
    const key = r.ocrLine ?? `${Math.round(r.baseline)}`;
    const list = map.get(key);
    if (list) list.push(r);
    else map.set(key, [r]);
  }
  return [...map.values()];
}

/**
 * Groups runs into rows by vertical overlap. Superscripts and footnote markers overlap the main
 * text band enough to join it; the next text line does not.
 */
function groupRows(runs: TextRun[]): TextRun[][] {
  const sorted = [...runs].sort((a, b) => a.baseline - b.baseline || a.x0 - b.x0);
  interface Row {
    runs: TextRun[];
    y0: number;
    y1: number;
    baseline: number;
    size: number;
  }
  const rows: Row[] = [];
  for (const r of sorted) {
    let best: Row | undefined;
    let bestScore = 0;
    // Only recent rows can match: rows are created in baseline order.
    for (let i = rows.length - 1; i >= 0 && i >= rows.length - 8; i--) {
      const row = rows[i]!;
      const ov = Math.min(row.y1, r.y1) - Math.max(row.y0, r.y0);
      const minH = Math.min(row.y1 - row.y0, r.y1 - r.y0);
      if (minH <= 0) continue;
      const sameBaseline = Math.abs(row.baseline - r.baseline) <= 0.25 * Math.min(row.size, r.size);
      const score = sameBaseline ? 2 : ov / minH;
      // Glyphs overstruck on the very same baseline compose one symbol (TeX's "7" + "→" for ↦,
      // "6" + "=" for ≠); only text on another baseline that overlaps belongs to another line.
      const overstrike = Math.abs(row.baseline - r.baseline) <= 0.05 * Math.min(row.size, r.size);
      if (score >= 0.6 && score > bestScore && (overstrike || !collides(row.runs, r))) {
        best = row;
        bestScore = score;
      }
    }
    if (best) {
      best.runs.push(r);
      // The row band follows its dominant (largest) text so superscripts don't stretch it.
      if (r.size >= best.size) {
        best.baseline = r.baseline;
        best.size = r.size;
        best.y0 = Math.min(best.y0, r.y0);
        best.y1 = Math.max(best.y1, r.y1);
      }
    } else {
      rows.push({ runs: [r], y0: r.y0, y1: r.y1, baseline: r.baseline, size: r.size });
    }
  }
  return joinRadicals(rows.map((row) => row.runs));
}

const RADICAL_ONLY = /^\s*√+\s*$/;

/**
 * A radical sign drawn on its own (TeX sets √ as a tall glyph hanging above the radicand's
 * baseline) overlaps its line too little to be grouped with it and forms a row of its own. Such a
 * row joins the nearest row at or below its baseline with text under or touching the sign (the
 * radicand right after it): "δ = √2/(σμ)" reads as one line. The row above is never the sign's
 * line: the sign reaches up over its radicand, not down to the text above.
 */
function joinRadicals(rows: TextRun[][]): TextRun[][] {
  const radical = (row: TextRun[]) => row.every((r) => RADICAL_ONLY.test(r.text));
  if (!rows.some(radical)) return rows;
  const out = rows.map((r) => [...r]);
  const gone = new Set<number>();
  for (const [i, row] of out.entries()) {
    if (!radical(row)) continue;
    const x0 = Math.min(...row.map((r) => r.x0)),
      x1 = Math.max(...row.map((r) => r.x1)),
      y1 = Math.max(...row.map((r) => r.y1)),
      baseline = Math.min(...row.map((r) => r.baseline)),
      size = Math.max(...row.map((r) => r.size));
    const touch = 0.3 * size;
    let best = -1,
      bestDist = Infinity;
    for (const [k, other] of out.entries()) {
      if (k === i || gone.has(k) || radical(other)) continue;
      const ob = Math.max(...other.map((r) => r.baseline));
      if (ob < baseline - 0.05 * size) continue;
      if (Math.min(...other.map((r) => r.y0)) > y1 + 0.5 * size) continue;
      if (!other.some((r) => r.x0 <= x1 + touch && r.x1 >= x0 - touch)) continue;
      if (ob - baseline < bestDist) {
        bestDist = ob - baseline;
        best = k;
      }
    }
    if (best < 0) continue;
    out[best]!.push(...row);
    gone.add(i);
  }
  return out.filter((_, i) => !gone.has(i));
}

/** A run overlapping another run of the row horizontally belongs to a different text line. */
function collides(rowRuns: TextRun[], r: TextRun): boolean {
  for (const o of rowRuns) {
    const ov = Math.min(o.x1, r.x1) - Math.max(o.x0, r.x0);
    if (ov > 0.5 * Math.min(o.x1 - o.x0, r.x1 - r.x0)) return true;
  }
  return false;
}

/**
 * A line from its runs in visual order (left to right). A right-to-left line (Arabic, Hebrew) keeps
 * its runs in logical order (bidi.ts), so its text reads from the right with embedded Latin words
 * and numbers in their own order; a space goes between two runs whose boxes are a word space apart.
 */
export function makeLine(visualRuns: TextRun[]): Line {
  const rtl = visualRuns.length > 0 && isRightToLeftLine(visualRuns.map((r) => r.text));
  const runs = visualRuns.length < 2 ? visualRuns : rtl ? logicalRunOrder(visualRuns) : logicalRunOrderLtr(visualRuns);
  // Runs read out of visual order (all of a right-to-left line, a right-to-left stretch of a
  // left-to-right one): spaces from the extent of the word read so far.
  const reordered = rtl || runs !== visualRuns;
  let text = '';
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  let boldChars = 0,
    chars = 0;
  const sizes: Array<[number, number]> = [];
  let prev: TextRun | undefined;
  // Right to left: the extent of the runs read since the last space. A run read after a stretch of
  // left-to-right runs ("50" then "%", drawn at the stretch's left end) is measured from that
  // extent, not from the stretch's last run.
  let wordX0 = Infinity,
    wordX1 = -Infinity;
  for (const [idx, r] of runs.entries()) {
    if (prev) {
      const gap = reordered ? Math.max(r.x0 - wordX1, wordX0 - stretchRight(runs, idx)) : r.x0 - prev.x1;
      // Monospaced code is often placed glyph by glyph: only a gap near a full cell is a space.
      const charW = prev.mono && r.mono ? (prev.x1 - prev.x0) / Math.max(1, prev.text.length) : 0;
      const threshold = charW > 0 ? 0.5 * charW : 0.12 * Math.min(prev.size, r.size);
      const needSpace = gap > threshold && !text.endsWith(' ') && !r.text.startsWith(' ');
      if (needSpace) text += ' ';
    }
    if (!prev || text.endsWith(' ') || r.text.startsWith(' ')) {
      wordX0 = r.x0;
      wordX1 = r.x1;
    } else {
      wordX0 = Math.min(wordX0, r.x0);
      wordX1 = Math.max(wordX1, r.x1);
    }
    text += r.text;
    x0 = Math.min(x0, r.x0);
    y0 = Math.min(y0, r.y0);
    x1 = Math.max(x1, r.x1);
    y1 = Math.max(y1, r.y1);
    const n = r.text.replace(/\s/g, '').length;
    chars += n;
    if (r.bold) boldChars += n;
    sizes.push([r.size, n]);
    prev = r;
  }
  return {
    runs,
    text: composeAccents(text.replace(/\s+/g, ' ').trim()),
    x0,
    y0,
    x1,
    y1,
    size: weightedMedian(sizes),
    bold: chars > 0 && boldChars / chars > 0.6,
    mono: runs.every((r) => r.mono),
    ...(rtl ? { rtl: true } : {}),
  };
}

/**
 * The right end of the left-to-right stretch that run `i` of a right-to-left line's logical order
 * starts: the runs read after it that continue it to the right without a word space ("2025" read
 * glyph by glyph from its left end after "-" in "2024-2025"). A stretch's distance to the word
 * read before it is from this end, not from its first glyph.
 */
function stretchRight(runs: TextRun[], i: number): number {
  let right = runs[i]!.x1;
  for (let k = i + 1; k < runs.length; k++) {
    const r = runs[k]!;
    if (r.x0 < runs[k - 1]!.x0 || r.x0 - right > 0.12 * r.size) break;
    right = Math.max(right, r.x1);
  }
  return right;
}

function weightedMedian(pairs: Array<[number, number]>): number {
  const total = pairs.reduce((s, [, w]) => s + w, 0);
  if (total === 0) return pairs[0]?.[0] ?? 10;
  const sorted = [...pairs].sort((a, b) => a[0] - b[0]);
  let acc = 0;
  for (const [v, w] of sorted) {
    acc += w;
    if (acc >= total / 2) return v;
  }
  return sorted[sorted.length - 1]![0];
}

export const isMarkerText = (s: string): boolean => BULLET_ONLY.test(s);
