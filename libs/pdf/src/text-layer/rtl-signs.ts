// "<" and ">" that pdf.js deletes from right-to-left text. pdf.js puts each text item that holds
// right-to-left letters in logical order with its own bidi pass (src/core/bidi.js), and that pass
// ends by removing every "<" and ">" from the item (pdfjs-dist 5.4: `if (ch === "<" || ch === ">")
// chars[i] = ""`), so "إذا كانت القيمة > 5" comes out "إذا كانت القيمة  5", a double space where
// the sign stood. The page's operator list still has the glyphs: a sign drawn as a word of its own
// between two words is recorded with its neighbours as drawn (left to right), and an item whose text
// has those neighbours a double space apart, in the order the bidi pass put them, gets the sign back
// between them: mirrored when it stands between right-to-left text (rule L4: the glyph drawn as "<"
// is ">" in logical order), as drawn between left-to-right words. Nothing is inserted without both
// the glyphs and the double space, and items without right-to-left letters (which pdf.js leaves
// alone) are never touched.

import { OperatorListWords } from './operator-words';

const RTL = /[\u0590-\u065F\u066A-\u06EF\u06FA-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/u;
const RTL_WORD = /^[\u0590-\u065F\u066A-\u06EF\u06FA-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\p{M}]+$/u;
/** A word written left to right inside right-to-left text: Latin letters, or a number. */
const LTR_WORD = /^[\p{L}\p{M}\p{Nd}.,%]+$/u;
const SIGN = /^[<>]$/u;
const MIRROR: Record<string, string> = { '<': '>', '>': '<' };

/** A word's bidi class: R (right-to-left letters), L (Latin letters), D (a number) or N (anything else: not handled). */
type Kind = 'R' | 'L' | 'D' | 'N';
function kind(word: string): Kind {
  if (RTL_WORD.test(word)) return 'R';
  if (LTR_WORD.test(word) && !RTL.test(word)) return /\p{L}/u.test(word) ? 'L' : 'D';
  return 'N';
}

export class RtlDroppedSigns extends OperatorListWords {
  /** Text pdf.js produces for "left <sign> right" (without the sign) → the same with the sign in logical order. */
  private readonly fixes = new Map<string, string>();
  // The last two words read (glyph texts, joined only around a sign).
  private before: string[] | undefined;
  private middle: string[] | undefined;

  protected override onWordsBoundary(): void {
    this.before = this.middle = undefined;
  }

  protected onWord(word: string[]): void {
    const [before, middle] = [this.before, this.middle];
    this.before = middle;
    this.middle = word;
    if (!before || middle?.length !== 1 || !SIGN.test(middle[0]!)) return;
    const left = before.join(''),
      sign = middle[0]!,
      right = word.join('');
    const kl = kind(left),
      kr = kind(right);
    // The sign resolves to right to left when a right-to-left word stands on one side (a number on
    // the other counts as right to left, W2/N1; a Latin word leaves the item's direction, N2). Two
    // Latin words or numbers, or a Latin word and a number (W7), keep it left to right: not handled.
    if (kl === 'N' || kr === 'N' || (kl !== 'R' && kr !== 'R')) return;
    // As pdf.js writes the words: a right-to-left word reversed, a left-to-right one as drawn, the
    // word drawn on the right first.
    const logical = (w: string) => (RTL_WORD.test(w) ? [...w].reverse().join('') : w);
    const first = logical(right),
      second = logical(left);
    this.fixes.set(`${first}  ${second}`, `${first} ${MIRROR[sign]} ${second}`);
  }

  get size(): number {
    this.endWord();
    return this.fixes.size;
  }

  /** An item's text (as pdf.js gives it, before whitespace is collapsed) with the deleted signs put back. */
  restore(text: string, rtlItem: boolean): string {
    if (!this.fixes.size || !rtlItem || !text.includes('  ')) return text;
    let out = text;
    for (const [from, to] of this.fixes) {
      let at = out.indexOf(from);
      while (at >= 0) {
        const before = at === 0 ? ' ' : out[at - 1]!;
        const after = out[at + from.length] ?? ' ';
        // Whole words only.
        if (/[\s\p{P}]/u.test(before) && /[\s\p{P}]/u.test(after)) {
          out = out.slice(0, at) + to + out.slice(at + from.length);
          at = out.indexOf(from, at + to.length);
        } else at = out.indexOf(from, at + 1);
      }
    }
    return out;
  }
}
