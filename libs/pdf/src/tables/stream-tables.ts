// Tables without rulings: runs of consecutive text rows that split into several aligned
// fragments. Many things that are not tables split that way too, so a run needs evidence that it
// is one (short, aligned cells) and is rejected when it reads as something else: prose beside
// prose or beside a figure (long fragments), displayed equations (their numbers "(12b)" at the
// right, math tokens), multi-column text such as an index or a glossary (every column textual and
// as wide as a text column), a table of contents (leader dots to page numbers), a term list (short
// terms beside definitions in words), marks without values, a figure's labels right above its
// caption. Captions end a run: they belong to the flow, not to the table.
import type { Box } from '../geometry';
import type { Line } from '../types';

export function streamTableRegions(lines: Line[], pageWidth: number): Box[] {
  const rows = groupLineRows(lines);
  const regions = streamRuns(rows, pageWidth)
    .filter((r) => !r.verdict)
    .map(({ run }) => {
      const all = run.flat();
      return {
        x0: Math.min(...all.map((l) => l.x0)),
        y0: Math.min(...all.map((l) => l.y0)),
        x1: Math.max(...all.map((l) => l.x1)),
        y1: Math.max(...all.map((l) => l.y1)),
      };
    });
  // A figure's caption stands under it: aligned text right above a figure caption, with at most
  // its panel captions ("(a) …") between, is the figure's labels and legend.
  return regions.filter((reg) => !aboveFigureCaption(reg, rows));
}

/**
 * The rows of term lists (a symbol list, a glossary) among the lines: each row's term and
 * definition, to be read as one line. Read as columns, every term would come before every
 * definition.
 */
export function termListRows(lines: Line[], pageWidth: number): Line[][] {
  return streamRuns(groupLineRows(lines), pageWidth)
    .filter((r) => r.verdict === 'term list' || r.verdict === 'symbol list')
    .flatMap(({ run }) => run.filter((r) => r.length >= 2));
}

/**
 * Runs of consecutive rows that split into several fragments (three such rows at least), each
 * with what it reads as when it is not a table (`verdict`; undefined for a table).
 */
function streamRuns(rows: Line[][], pageWidth: number): Array<{ run: Line[][]; verdict?: string }> {
  const out: Array<{ run: Line[][]; verdict?: string }> = [];
  let run: Line[][] = [];
  let singles = 0;
  const flush = () => {
    // Trailing single-fragment rows are not part of the table.
    while (run.length && run[run.length - 1]!.length < 2) run.pop();
    const multi = run.filter((r) => r.length >= 2);
    if (multi.length >= 3) {
      const verdict = looksLikeProse(multi, pageWidth) ? 'prose' : notATable(multi, pageWidth);
      out.push({ run, ...(verdict ? { verdict } : {}) });
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
  return out;
}

/**
 * A region right above a figure caption, with at most two short rows (panel captions) between:
 * the figure the caption is for. Its aligned labels and drawn lines are not a table.
 */
export function aboveFigureCaption(reg: Box, rows: Line[][]): boolean {
  return rows.some((r) => r.some((c) => FIGURE_CAPTION.test(c.text) && labelsAbove(reg, c, rows)));
}

function labelsAbove(reg: Box, caption: Line, rows: Line[][]): boolean {
  if (reg.y1 > caption.y0 || Math.min(reg.x1, caption.x1) <= Math.max(reg.x0, caption.x0)) return false;
  const between = rows.filter((r) => {
    const cy = (r[0]!.y0 + r[0]!.y1) / 2;
    return cy > reg.y1 && cy < caption.y0 && r.some((l) => l.x1 > reg.x0 && l.x0 < reg.x1);
  });
  if (between.length > 2 || between.some((r) => r.some((l) => l.text.length > 60))) return false;
  return caption.y0 - reg.y1 <= (between.length + 1) * 2.5 * (caption.y1 - caption.y0);
}

function looksLikeProse(rows: Line[][], pageWidth: number): boolean {
  const frags = rows.flat();
  const avgLen = frags.reduce((s, l) => s + l.text.length, 0) / frags.length;
  const maxCols = Math.max(...rows.map((r) => r.length));
  const wide = frags.filter((l) => l.x1 - l.x0 > pageWidth * 0.3).length / frags.length;
  return (maxCols <= 2 && avgLen > 35) || wide > 0.5;
}

/** Table and figure captions, in English and the other languages of the caption words below. */
const TABLE_WORD = 'table|tab\\.|tabelle|tableau|tabla|tabella|tabela|tabel';
const FIGURE_WORD = 'figure|fig\\.|abbildung|abb\\.|figura|figuur|afbeelding';
const captionOf = (words: string) => new RegExp(`^(${words})\\s*(?:[A-Z]\\.?)?[0-9IVX]+[0-9.:]*\\s*[.:\\-–—]?\\s`, 'i');
export const CAPTION = captionOf(`${TABLE_WORD}|${FIGURE_WORD}`);
const FIGURE_CAPTION = captionOf(FIGURE_WORD);
const EQUATION_NUMBER = /^\(([A-Z]\.?)?\d{1,3}[a-z]?\)$/;

/**
 * Math tokens: a lone letter (a variable) or a token made only of operators and brackets. Dashes,
 * asterisks, dots, "±" and "%" are left out: tables use them as placeholders and units.
 */
const MATH_SYMBOLS = /^[=+−×·∗/<>≤≥≠≈∼≅∈∉⊆⊂⊃∪∩∀∃⇔⇒⇐→←↦↔∑∏∫∮∂∇√∞()[\]{}|‖︸︷˜¯′″^_~∘⊕⊗ˆ˙]+$/u;
/**
 * Symbols only mathematics writes (partial derivative, nabla, set relations, integrals); a short
 * token holding one ("∂x", "∇f", "x∈A") is math wherever it stands.
 */
const MATH_ONLY = /[∂∇∑∏∫∮∈∉⊆⊂⊃∪∩∀∃⇔⇒↦]/u;
const mathToken = (t: string) => /^\p{L}$/u.test(t) || MATH_SYMBOLS.test(t) || (t.length <= 4 && MATH_ONLY.test(t));
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

/** Leader dots ("Räume . . . . . 2", "Intro.......5") and a page number, Arabic or Roman. */
const LEADERS = /(\.\s?){4,}|…{2,}/;
const PAGE_NUMBER = /^([0-9]{1,4}|[ivxlc]{1,6})$/i;

/**
 * One entry of a table of contents, given the texts of its row's pieces left to right: a title in
 * words, leader dots, and after them at most one piece. A table whose row labels are dotted out to
 * several value columns ("0.95 ........ 160 176 192") has no such rows.
 */
function contentsEntry(texts: string[]): boolean {
  const first = texts.findIndex((t) => LEADERS.test(t));
  if (first < 0) return false;
  let last = first;
  while (last + 1 < texts.length && /^[.\s…]*$/.test(texts[last + 1]!)) last++;
  if (last < texts.length - 2) return false;
  return textWords([...texts.slice(0, first), texts[first]!.split(LEADERS)[0]!].join(' ')) >= 1;
}

/** A contents entry that ends in its page number. */
function contentsRow(texts: string[]): boolean {
  return contentsEntry(texts) && PAGE_NUMBER.test(texts[texts.length - 1]!.split(LEADERS).pop()!.trim());
}

/**
 * Which rows of a page (each row's pieces left to right) are lines of a table of contents, read as
 * one line each and never as columns: entries with leader dots to their page number, and the rows
 * beside them without leaders (a chapter's own row: "2 Manifolds 24") whose title ends in a page
 * number standing under or over an entry's.
 */
export function contentsLines(rows: Array<Array<{ text: string; x1: number; size: number }>>): boolean[] {
  const lines = rows.map((r) => r.length > 0 && contentsRow(r.map((p) => p.text)));
  const titled = rows.map((r) => {
    const last = r[r.length - 1];
    return (
      !!last &&
      r.length >= 2 &&
      PAGE_NUMBER.test(last.text.trim()) &&
      textWords(
        r
          .slice(0, -1)
          .map((p) => p.text)
          .join(' '),
      ) >= 1
    );
  });
  // From the entries outwards, row by row, while the page numbers keep their right edge.
  for (let changed = true; changed;) {
    changed = false;
    rows.forEach((r, i) => {
      if (lines[i] || !titled[i]) return;
      const x1 = r[r.length - 1]!.x1;
      const near = [i - 1, i + 1].some(
        (k) => lines[k] && Math.abs(rows[k]![rows[k]!.length - 1]!.x1 - x1) < r[r.length - 1]!.size,
      );
      if (near) lines[i] = changed = true;
    });
  }
  return lines;
}

/**
 * A table of contents (or of figures): titles with leader dots running to a page number at the
 * right. Most rows are such entries (a chapter's own row may have no leaders) and nearly all end
 * in a number.
 */
function contentsList(rows: Line[][]): boolean {
  const entries = rows.filter((r) => contentsEntry(r.map((l) => l.text))).length;
  const numbered = rows.filter((r) => PAGE_NUMBER.test(r[r.length - 1]!.text.trim())).length;
  return entries >= 0.5 * rows.length && numbered >= 0.8 * rows.length;
}

/** Words of running text in a fragment: two or more letters, at least one of them lower case. */
const textWords = (s: string) => s.split(/\s+/).filter((w) => /\p{Ll}/u.test(w) && /\p{L}{2}/u.test(w)).length;

/**
 * A list of terms and their definitions (a symbol list, a glossary, a list of abbreviations): two
 * columns, short terms at the left and at the right phrases of words ("Menge der Fixpunkte der
 * Abbildung f"), not values. A table's second column holds values of one type (numbers, short
 * labels); a definition column holds text of several words in most rows, several times as long as
 * its terms.
 */
function termList(terms: Line[], defs: Line[], phraseWords = 3): boolean {
  const avg = (ls: Line[]) => ls.reduce((n, l) => n + l.text.length, 0) / ls.length;
  if (defs.filter((l) => textual(l.text)).length < 0.8 * defs.length) return false;
  const phrases = defs.filter((l) => textWords(l.text) >= phraseWords).length;
  return phrases >= 0.5 * defs.length && avg(terms) <= 16 && avg(defs) >= 2 * avg(terms);
}

/**
 * A list of mathematical symbols and their names ("∂M  Rand der Menge M", "T  Topologie"): a left
 * column of symbols (no word of two lower-case letters: "B", "‖x‖", "A × B") and a right column
 * naming them in words; a name is often one word, so any word makes a phrase here. A table's
 * label column is words.
 */
function symbolList(rows: Line[][]): boolean {
  const major = majorColumns(rows);
  if (major.length !== 2) return false;
  const [terms, names] = [major[0]!.frags, major[1]!.frags];
  const symbols = terms.filter((l) => !/\p{Ll}{2}/u.test(l.text)).length;
  // Names are words ("Topologie", "Rand der Menge M"), not the other side of a formula ("= , (A9)").
  const named = names.filter((l) => l.text.split(/\s+/).some((w) => /^\p{L}{3,}[,.;:]?$/u.test(w))).length;
  return symbols >= 0.8 * terms.length && named >= 0.8 * names.length && termList(terms, names, 1);
}

export function notATable(rows: Line[][], pageWidth: number): string | undefined {
  const frags = rows.flat();
  if (mathShare(frags.map((l) => l.text)) > 0.3) return symbolList(rows) ? 'symbol list' : 'math';
  if (rows.filter((r) => EQUATION_NUMBER.test(r[r.length - 1]!.text.trim())).length >= 0.5 * rows.length)
    return 'equations';
  if (equationBlock(rows)) return 'equations';
  if (rows.filter((r) => r.some(proseFragment)).length >= 0.3 * rows.length) return 'prose';
  if (contentsList(rows)) return 'contents';
  // Values are written with letters or digits: a run of lone marks ("*", "•") holds none.
  if (!frags.some((l) => /[\p{L}\p{N}]/u.test(l.text))) return 'no values';
  const major = majorColumns(rows);
  // Multi-column text (an index, a glossary, a symbol list): every column textual, and either all
  // columns as wide as text columns, or columns far apart holding entries of the same kind. A
  // table's value columns are narrow and unlike its label column.
  if (major.length >= 2) {
    const allText = frags.filter((l) => textual(l.text)).length >= 0.8 * frags.length;
    const allWide = major.every((c) => c.x1 - c.x0 >= 0.18 * pageWidth);
    let widest = 0;
    for (let i = 1; i < major.length; i++) widest = Math.max(widest, major[i]!.x0 - major[i - 1]!.x0);
    const avgLen = major.map((c) => c.frags.reduce((n, l) => n + l.text.length, 0) / c.frags.length);
    const alike = Math.min(...avgLen) >= 6 && Math.max(...avgLen) <= 2 * Math.min(...avgLen);
    if (allText && ((allWide && widest >= 0.25 * pageWidth) || (widest >= 0.3 * pageWidth && alike)))
      return 'multi-column text';
  }
  if (major.length === 2 && termList(major[0]!.frags, major[1]!.frags)) return 'term list';
  if (symbolList(rows)) return 'symbol list';
  return undefined;
}

/** Columns of the rows' fragments clustered by left edge, left to right, that hold 40% of the rows or more. */
function majorColumns(rows: Line[][]): Array<{ x0: number; x1: number; frags: Line[] }> {
  const cols: Array<{ x0: number; x1: number; frags: Line[] }> = [];
  for (const l of [...rows.flat()].sort((a, b) => a.x0 - b.x0)) {
    const c = cols.find((k) => Math.abs(k.x0 - l.x0) < 1.5 * l.size);
    if (c) {
      c.frags.push(l);
      c.x1 = Math.max(c.x1, l.x1);
    } else cols.push({ x0: l.x0, x1: l.x1, frags: [l] });
  }
  return cols.filter((c) => c.frags.length >= 0.4 * rows.length).sort((a, b) => a.x0 - b.x0);
}

export function groupLineRows(lines: Line[]): Line[][] {
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
