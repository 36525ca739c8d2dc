// Tables without rulings: runs of consecutive text rows that split into several aligned
// fragments. Many things that are not tables split that way too, so a run needs evidence that it
// is one (short, aligned cells) and is rejected when it reads as something else: prose beside
// prose or beside a figure (long fragments), displayed equations (their numbers "(12b)" at the
// right, math tokens), multi-column text such as an index or a glossary (every column textual and
// as wide as a text column). Captions end a run: they belong to the flow, not to the table.
import type { Box } from '../geometry';
import type { Line } from '../types';

export function streamTableRegions(lines: Line[], pageWidth: number): Box[] {
  const rows = groupLineRows(lines);
  const regions: Box[] = [];
  let run: Line[][] = [];
  let singles = 0;
  const flush = () => {
    // Trailing single-fragment rows are not part of the table.
    while (run.length && run[run.length - 1]!.length < 2) run.pop();
    const multi = run.filter((r) => r.length >= 2);
    if (multi.length >= 3 && !looksLikeProse(multi, pageWidth) && !notATable(multi, pageWidth)) {
      const all = run.flat();
      regions.push({
        x0: Math.min(...all.map((l) => l.x0)),
        y0: Math.min(...all.map((l) => l.y0)),
        x1: Math.max(...all.map((l) => l.x1)),
        y1: Math.max(...all.map((l) => l.y1)),
      });
    }
    run = [];
    singles = 0;
  };
  let prevBottom = -Infinity;
  for (const row of rows) {
    if (row.some((l) => CAPTION.test(l.text))) {
      flush();
      prevBottom = Math.max(...row.map((l) => l.y1));
      continue;
    }
    const top = Math.min(...row.map((l) => l.y0));
    const h = Math.max(...row.map((l) => l.y1 - l.y0));
    if (run.length && top - prevBottom > 1.6 * h) flush();
    if (row.length >= 2) {
      run.push(row);
      singles = 0;
    } else if (run.length && singles < 1 && row[0]!.text.length < 60) {
      run.push(row);
      singles++;
    } else flush();
    prevBottom = Math.max(...row.map((l) => l.y1));
  }
  flush();
  return regions;
}

function looksLikeProse(rows: Line[][], pageWidth: number): boolean {
  const frags = rows.flat();
  const avgLen = frags.reduce((s, l) => s + l.text.length, 0) / frags.length;
  const maxCols = Math.max(...rows.map((r) => r.length));
  const wide = frags.filter((l) => l.x1 - l.x0 > pageWidth * 0.3).length / frags.length;
  return (maxCols <= 2 && avgLen > 35) || wide > 0.5;
}

export const CAPTION = /^(table|tab\.|figure|fig\.)\s*[A-Z]?[0-9IVX]+[0-9.:]*\s*[.:\-–—]?\s/i;
const EQUATION_NUMBER = /^\(([A-Z]\.?)?\d{1,3}[a-z]?\)$/;

/**
 * Math tokens: a lone letter (a variable) or a token made only of operators and brackets. Dashes,
 * asterisks, dots, "±" and "%" are left out: tables use them as placeholders and units.
 */
const MATH_SYMBOLS = /^[=+−×·∗/<>≤≥≠≈∼≅∈∉⊆⊂⊃∪∩∀∃⇔⇒⇐→←↦↔∑∏∫∮∂∇√∞()[\]{}|‖︸︷˜¯′″^_~∘⊕⊗ˆ˙]+$/u;
const mathToken = (t: string) => /^\p{L}$/u.test(t) || MATH_SYMBOLS.test(t);
/** Textual: more letters than digits (an index entry "Homöomorphismus, 9" is text). */
const textual = (s: string) => (s.match(/\p{L}/gu)?.length ?? 0) > (s.match(/\p{N}/gu)?.length ?? 0);
/** A fragment that is a piece of running text: several words and sentence length. */
const proseFragment = (l: Line) =>
  l.text.length >= 40 && l.text.split(/\s+/).filter((w) => /\p{Ll}{2}/u.test(w)).length >= 5;

/** Share of math tokens among the whitespace-separated tokens of the texts. */
export function mathShare(texts: string[]): number {
  const tokens = texts.flatMap((t) => t.split(/\s+/).filter(Boolean));
  return tokens.length ? tokens.filter(mathToken).length / tokens.length : 0;
}

/**
 * A displayed equation block whose rows do not all carry a number: the numbers ("(7)", "(16a)",
 * "(B.2)") stand at the right of the rows that hold an equation's relation ("=", "∈", "<"), and the
 * rows between them (fraction numerators and denominators, sub- and superscripts, a matrix's rows)
 * leave that column empty. Nothing of the display but equation numbers reaches the number column:
 * a table column holding only numbers in parentheses, and only beside relations, is an
 * equation-number column.
 */
function equationBlock(rows: Line[][]): boolean {
  const numbered = rows.filter((r) => EQUATION_NUMBER.test(r[r.length - 1]!.text.trim()));
  if (!numbered.length) return false;
  const numbers = new Set(numbered.map((r) => r[r.length - 1]!));
  const colX0 = Math.min(...[...numbers].map((l) => l.x0));
  // Running text before or after the display (a sentence with a subscript splits into fragments
  // and joins the run) may cross the column.
  const display = rows.filter((r) => !r.some(proseFragment)).flat();
  if (display.some((l) => !numbers.has(l) && l.x1 > colX0 - l.size)) return false;
  return numbered.every((r) =>
    r.slice(0, -1).some((l) => l.text.split(/\s+/).some((t) => /[=<>≤≥≠≈∼≅∈∉⊆⊂⊃]/u.test(t))),
  );
}

export function notATable(rows: Line[][], pageWidth: number): string | undefined {
  const frags = rows.flat();
  if (mathShare(frags.map((l) => l.text)) > 0.3) return 'math';
  if (rows.filter((r) => EQUATION_NUMBER.test(r[r.length - 1]!.text.trim())).length >= 0.5 * rows.length)
    return 'equations';
  if (equationBlock(rows)) return 'equations';
  if (rows.filter((r) => r.some(proseFragment)).length >= 0.3 * rows.length) return 'prose';
  // Multi-column text: cluster fragments into columns by their left edge.
  const cols: Array<{ x0: number; x1: number; frags: Line[] }> = [];
  for (const l of [...frags].sort((a, b) => a.x0 - b.x0)) {
    const c = cols.find((k) => Math.abs(k.x0 - l.x0) < 1.5 * l.size);
    if (c) {
      c.frags.push(l);
      c.x1 = Math.max(c.x1, l.x1);
    } else cols.push({ x0: l.x0, x1: l.x1, frags: [l] });
  }
  const major = cols.filter((c) => c.frags.length >= 0.4 * rows.length);
  // Multi-column text (an index, a glossary, a symbol list): every column textual, and either all
  // columns as wide as text columns, or columns far apart holding entries of the same kind. A
  // table's value columns are narrow and unlike its label column.
  if (major.length >= 2) {
    major.sort((a, b) => a.x0 - b.x0);
    const allText = frags.filter((l) => textual(l.text)).length >= 0.8 * frags.length;
    const allWide = major.every((c) => c.x1 - c.x0 >= 0.18 * pageWidth);
    let widest = 0;
    for (let i = 1; i < major.length; i++) widest = Math.max(widest, major[i]!.x0 - major[i - 1]!.x0);
    const avgLen = major.map((c) => c.frags.reduce((n, l) => n + l.text.length, 0) / c.frags.length);
    const alike = Math.min(...avgLen) >= 6 && Math.max(...avgLen) <= 2 * Math.min(...avgLen);
    if (allText && ((allWide && widest >= 0.25 * pageWidth) || (widest >= 0.3 * pageWidth && alike)))
      return 'multi-column text';
  }
  return undefined;
}

function groupLineRows(lines: Line[]): Line[][] {
  const sorted = [...lines]
    .filter((l) => !l.runs.some((r) => r.rotated))
    .sort((a, b) => (a.y0 + a.y1) / 2 - (b.y0 + b.y1) / 2);
  const rows: Array<{ lines: Line[]; y0: number; y1: number }> = [];
  for (const l of sorted) {
    const last = rows[rows.length - 1];
    const ov = last ? Math.min(last.y1, l.y1) - Math.max(last.y0, l.y0) : 0;
    if (last && ov > 0.5 * Math.min(last.y1 - last.y0, l.y1 - l.y0)) {
      last.lines.push(l);
      last.y0 = Math.min(last.y0, l.y0);
      last.y1 = Math.max(last.y1, l.y1);
    } else rows.push({ lines: [l], y0: l.y0, y1: l.y1 });
  }
  return rows.map((r) => r.lines.sort((a, b) => a.x0 - b.x0));
}
