// Right-to-left words whose glyphs stand for several letters, in the order a reader writes them.
// Arabic fonts draw lam + alef as one mandatory ligature glyph, and a ToUnicode map gives that glyph
// both letters in logical order ("لا", "لإ"). pdf.js builds a text item by joining its glyphs' text
// (drawn left to right, so in visual order) and reversing the whole string for right-to-left text,
// which reverses the two letters of the ligature too: "خلال" comes out "خالل", "الإنتاجية"
// "اإلنتاجية" (poppler's pdftotext does the same). The page's operator list still has the glyphs:
// for each right-to-left word drawn with such a glyph, the word pdf.js produces (its letters
// reversed) and the word in logical order (its glyphs reversed, each glyph's letters kept) are
// recorded, and text-layer runs get the logical word. Words without multi-letter glyphs are never
// touched, so "مثال" or "إلى" (alef and lam as separate glyphs) stay as they are.

import { OperatorListWords } from './operator-words';

const RTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;

export class RtlLigatureWords extends OperatorListWords {
  private readonly fixes = new Map<string, string>();

  protected onWord(glyphs: string[]): void {
    let word = glyphs;
    // Punctuation drawn against the word ("." or "،" before it on the page) is not part of it.
    const letter = (u: string) => /[\p{L}\p{M}]/u.test(u);
    while (word.length && !letter(word[0]!)) word = word.slice(1);
    while (word.length && !letter(word[word.length - 1]!)) word = word.slice(0, -1);
    if (!word.some((u) => [...u].length > 1) || !word.every((u) => RTL.test(u) || /^\p{M}+$/u.test(u))) return;
    const logical = [...word].reverse().join('');
    // pdf.js normalises the joined text (NFKC for compatibility forms) before reversing it.
    for (const joined of new Set([word.join(''), word.join('').normalize('NFKC')])) {
      const pdfjs = [...joined].reverse().join('');
      if (pdfjs !== logical) this.fixes.set(pdfjs, logical.normalize('NFKC'));
    }
  }

  get size(): number {
    this.endWord();
    return this.fixes.size;
  }

  /** The text of a run with every recorded right-to-left word in logical order. */
  fix(text: string): string {
    if (!this.fixes.size || !RTL.test(text)) return text;
    return text.replace(/[^\s]+/g, (w) => {
      const direct = this.fixes.get(w);
      if (direct) return direct;
      // Punctuation pdf.js left attached ("خالل،"): fix the letters, keep the rest.
      const m = /^([^\p{L}\p{M}]*)([\p{L}\p{M}]+)([^\p{L}\p{M}]*)$/u.exec(w);
      const core = m && this.fixes.get(m[2]!);
      return core ? m[1]! + core + m[3]! : w;
    });
  }
}
