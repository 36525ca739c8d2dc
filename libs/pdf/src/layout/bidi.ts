// Right-to-left text in logical order. pdf.js hands each text item over in logical order already
// (it runs the bidi algorithm inside an item), but a line of Arabic or Hebrew is drawn as several
// items placed right to left, with Latin words and numbers between them, so sorting a line's runs by
// x gives the visual order of the runs ("Python و R تحسين …" for "تحسين … R و Python"). This module
// puts the runs of such a line back in logical order with the Unicode Bidirectional Algorithm
// (UAX #9) applied at run granularity: the paragraph direction from the strong characters (P2/P3,
// by majority, since a line's first logical character is what we are looking for), each run's
// level from its strong type (L or numbers: level 2 in a right-to-left line; R/AL: level 1),
// neutral runs (punctuation, symbols) resolved from their strong neighbours (N1/N2), and the
// reordering of rule L2 inverted: a right-to-left line's runs are read from the right, and
// consecutive runs of level 2 (a Latin phrase of several runs) keep their left-to-right order.

/** Strong right-to-left letters: Hebrew, Arabic, Syriac, Thaana, NKo, Samaritan, Mandaic, Arabic Extended and presentation forms. */
/** Arabic-Indic and Extended Arabic-Indic digits are numbers (bidi classes AN and EN), written left to right, not letters. */
const RTL_LETTER =
  /[\u0590-\u065F\u066A-\u06EF\u06FA-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]|\uD802[\uDC00-\uDFFF]|\uD803[\uDC00-\uDE7F]|\uD83A[\uDC00-\uDFFF]|\uD83B[\uDC00-\uDEFF]/gu;
const ARABIC_DIGIT = /[\u0660-\u0669\u06F0-\u06F9]/u;
const RTL_ONE = new RegExp(`^(?:${RTL_LETTER.source})$`, 'u');
const RTL_ANY = new RegExp(RTL_LETTER.source, 'u');
/** Strong left-to-right: any other letter. */
const LETTER = /\p{L}/gu;
const DIGIT = /\p{Nd}/u;

export type RunDirection = 'rtl' | 'ltr' | 'number' | 'neutral';

export function strongCounts(text: string): { rtl: number; ltr: number } {
  const rtl = text.match(RTL_LETTER)?.length ?? 0;
  const letters = text.match(LETTER)?.length ?? 0;
  return { rtl, ltr: Math.max(0, letters - rtl) };
}

/** The direction a run contributes to its line: its majority strong direction, else number or neutral. */
export function runDirection(text: string): RunDirection {
  const { rtl, ltr } = strongCounts(text);
  if (rtl > ltr) return 'rtl';
  if (ltr > 0) return 'ltr';
  if (DIGIT.test(text)) return 'number';
  return 'neutral';
}

/** A line (or block) reads right to left when right-to-left letters outnumber left-to-right ones. */
export function isRightToLeft(texts: Iterable<string>): boolean {
  let rtl = 0,
    ltr = 0;
  for (const t of texts) {
    const c = strongCounts(t);
    rtl += c.rtl;
    ltr += c.ltr;
  }
  return rtl > ltr;
}

/**
 * Whether a line given as its runs in visual order (left to right) reads right to left. Rule P2 of
 * UAX #9 takes the paragraph direction from its first strong character in logical order, which is
 * the rightmost strong run in a right-to-left line and the leftmost in a left-to-right one: when the
 * leftmost and the rightmost strong runs are both right-to-left, P2 gives right to left under either
 * reading, however many Latin letters (an address, a URL, code) stand between them. Otherwise the
 * majority of strong letters decides, as `isRightToLeft` does.
 */
export function isRightToLeftLine(visual: Iterable<string>): boolean {
  const texts = [...visual];
  if (isRightToLeft(texts)) return true;
  const strong = texts.map(runDirection).filter((d) => d === 'rtl' || d === 'ltr');
  return strong.length > 1 && strong[0] === 'rtl' && strong[strong.length - 1] === 'rtl';
}

/**
 * Logical order of a right-to-left line's runs, given in visual order (left to right on the page).
 * Runs of left-to-right letters or digits are level 2, right-to-left ones level 1; a neutral run
 * (".", "–", "(") between two level-2 runs is level 2, otherwise level 1. Reading a level-1 line
 * from the right and keeping each stretch of level-2 runs in its own left-to-right order is the
 * inverse of UAX #9's rule L2 for these levels.
 */
export function logicalRunOrder<T extends { text: string }>(visual: T[]): T[] {
  const dirs = visual.map((r) => runDirection(r.text));
  const level = dirs.map((d) => (d === 'ltr' || d === 'number' ? 2 : d === 'rtl' ? 1 : 0));
  for (let i = 0; i < level.length; i++) {
    if (level[i] !== 0) continue;
    let j = i;
    while (j < level.length && level[j] === 0) j++;
    const before = i > 0 ? level[i - 1]! : 1;
    const after = j < level.length ? level[j]! : 1;
    const resolved = before === 2 && after === 2 && !betweenNumbers(visual, dirs, i, j) ? 2 : 1;
    for (let k = i; k < j; k++) level[k] = resolved;
    i = j - 1;
  }
  const out: T[] = [];
  let i = visual.length - 1;
  while (i >= 0) {
    if (level[i] === 2) {
      let j = i;
      while (j > 0 && level[j - 1] === 2) j--;
      for (let k = j; k <= i; k++) out.push(visual[k]!);
      i = j - 1;
    } else {
      const r = visual[i--]!;
      // A neutral run read from the right ("(" drawn as its own glyph, ". (") is in visual order
      // inside too: its characters are reversed and its brackets mirrored (rules L2 and L4 undone).
      out.push(dirs[i + 1] === 'neutral' && [...r.text].length > 0 ? { ...r, text: reverseMirrored(r.text) } : r);
    }
  }
  return out;
}

/**
 * Logical order of a left-to-right line's runs, given in visual order: each stretch of right-to-left
 * runs (from a right-to-left run to the last one before the next left-to-right letters, with the
 * neutrals and numbers between them) is read from its right (UAX #9 L2 inverted: level 1 inside a
 * level-0 line), as an Arabic word drawn glyph by glyph in an English sentence. Returns the runs
 * unchanged (the same array) when no run is right to left.
 */
export function logicalRunOrderLtr<T extends { text: string }>(visual: T[]): T[] {
  if (!visual.some((r) => RTL_ANY.test(r.text))) return visual;
  const dirs = visual.map((r) => runDirection(r.text));
  if (!dirs.includes('rtl')) return visual;
  const out: T[] = [];
  for (let i = 0; i < visual.length;) {
    if (dirs[i] !== 'rtl') {
      out.push(visual[i++]!);
      continue;
    }
    let end = i; // last right-to-left run of the stretch
    for (let k = i + 1; k < visual.length && dirs[k] !== 'ltr'; k++) if (dirs[k] === 'rtl') end = k;
    out.push(...logicalRunOrder(visual.slice(i, end + 1)));
    i = end + 1;
  }
  return out;
}

/** Separators of numbers: bidi class ES (joins European numbers only) and CS (joins Arabic ones too). */
const NUMBER_ES = /^[+\-\u2212]$/u;
const NUMBER_CS = /^[,./:\u00A0\u060C]$/u;
const HEBREW = /[\u0590-\u05FF\uFB1D-\uFB4F]/u;
const ARABIC_INDIC = /[\u0660-\u0669]/u;

/**
 * Whether the neutral runs visual[i..j) stand between two numbers as right-to-left text (UAX #9 N1:
 * numbers count as right to left for the neutrals between them, so "3 > 2" keeps its place in the
 * line's right-to-left order instead of being read as one left-to-right phrase "2 < 3"). Not so for
 * one separator touching both numbers that W4 makes part of the number: ES or CS between European
 * numbers ("2024-2025" in Hebrew, "1,5"), CS only between Arabic ones (numbers after Arabic letters,
 * W2, or in Arabic-Indic digits: "2024-2025" after Arabic letters is drawn "2025-2024"); nor when the
 * last strong run before the numbers in logical order (to their right) is Latin (W7: the numbers are
 * then left to right).
 */
function betweenNumbers<T extends { text: string }>(visual: T[], dirs: RunDirection[], i: number, j: number): boolean {
  if (i === 0 || j >= visual.length || dirs[i - 1] !== 'number' || dirs[j] !== 'number') return false;
  let arabic = ARABIC_INDIC.test(visual[i - 1]!.text) || ARABIC_INDIC.test(visual[j]!.text);
  for (let k = j + 1; k < visual.length; k++) {
    if (dirs[k] === 'ltr') return false;
    if (dirs[k] === 'rtl') {
      arabic ||= !HEBREW.test(visual[k]!.text);
      break;
    }
  }
  const sep = visual[i]!.text;
  if (j !== i + 1 || !(NUMBER_CS.test(sep) || (!arabic && NUMBER_ES.test(sep)))) return true;
  const [a, s, b] = [visual[i - 1], visual[i], visual[j]] as unknown as Array<Partial<Box>>;
  if (![a, s, b].every((r) => typeof r?.x0 === 'number' && typeof r.x1 === 'number')) return false;
  const tight = 0.12 * (s!.size ?? 10);
  return s!.x0! - a!.x1! > tight || b!.x0! - s!.x1! > tight;
}
interface Box {
  x0: number;
  x1: number;
  size: number;
}

/** Bidi_Mirroring_Glyph pairs (UnicodeData's BidiMirroring.txt) that occur in running text. */
const MIRRORED: Record<string, string> = {
  '(': ')',
  ')': '(',
  '<': '>',
  '>': '<',
  '≤': '≥',
  '≥': '≤',
  '[': ']',
  ']': '[',
  '{': '}',
  '}': '{',
  '«': '»',
  '»': '«',
  '‹': '›',
  '›': '‹',
};
// Brackets pdf.js may have reversed (it deletes "<" and ">" from the items it reorders, so those are not among them).
const BRACKET = /[()[\]{}«»‹›≤≥]/u;
const mirror = (c: string) => MIRRORED[c] ?? c;
const reverseMirrored = (text: string) => [...text].reverse().map(mirror).join('');

/**
 * Brackets of a text item that pdf.js put in logical order. pdf.js reverses the characters of an
 * item at right-to-left levels (its own UAX #9 pass: rules W1-W7 and N1/N2, without bracket pairs)
 * but does not mirror them (L4): a PDF draws logical "(" at the right end of "(مثال)" as the glyph
 * of ")", and pdf.js gives ")مثال(". Each bracket that pass reversed is mirrored back: one whose
 * nearest strong neighbours resolve it to right to left (both right-to-left, numbers counting as
 * right-to-left unless a left-to-right letter precedes them, W7; or differing in an item read right
 * to left, N2). `rtlItem`: pdf.js read the item right to left (its `dir`).
 */
export function mirrorReversedBrackets(text: string, rtlItem: boolean): string {
  if (!BRACKET.test(text)) return text;
  const chars = [...text];
  const sor = rtlItem ? 'R' : 'L';
  let last: 'L' | 'R' = sor;
  const types = chars.map((c): 'L' | 'R' | 'N' => {
    if (ARABIC_DIGIT.test(c)) return 'R';
    if (RTL_ONE.test(c)) return (last = 'R');
    if (/\p{L}/u.test(c)) return (last = 'L');
    if (DIGIT.test(c)) return last === 'L' ? 'L' : 'R';
    return 'N';
  });
  if (!types.includes('R')) return text;
  return chars
    .map((c, i) => {
      if (!BRACKET.test(c)) return c;
      let before: 'L' | 'R' = sor,
        after: 'L' | 'R' = sor;
      for (let k = i - 1; k >= 0; k--)
        if (types[k] !== 'N') {
          before = types[k] as 'L' | 'R';
          break;
        }
      for (let k = i + 1; k < chars.length; k++)
        if (types[k] !== 'N') {
          after = types[k] as 'L' | 'R';
          break;
        }
      const resolved = before === after ? before : sor;
      return resolved === 'R' ? mirror(c) : c;
    })
    .join('');
}
