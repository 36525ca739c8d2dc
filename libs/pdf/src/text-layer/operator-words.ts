// The words of a page's operator list as drawn: each showText glyph's text, split at spaces (a
// space glyph or blank text) and at the start and end of a text object. Justified right-to-left
// lines are often drawn glyph by glyph, one operation each, so a word spans operations. The
// right-to-left repairs of the text layer (ligature words, deleted signs) read the same words.

import { OP } from '../pdfjs-ops';

interface GlyphLike {
  unicode?: unknown;
  isSpace?: boolean;
}

export abstract class OperatorListWords {
  private word: string[] = [];

  /** Reads one chunk of the operator list (the same chunks the graphics scanner sees). */
  push(fnArray: ArrayLike<number>, argsArray: ArrayLike<unknown>, length: number): void {
    for (let i = 0; i < length; i++) {
      const fn = fnArray[i];
      if (fn === OP.beginText || fn === OP.endText) {
        this.endWord();
        this.onTextObjectBoundary();
      }
      if (fn !== OP.showText) continue;
      const glyphs = (argsArray[i] as unknown[] | undefined)?.[0];
      if (!Array.isArray(glyphs)) continue;
      for (const g of glyphs as Array<GlyphLike | number | null>) {
        if (typeof g === 'number' || !g) continue; // kerning
        const u = typeof g.unicode === 'string' ? g.unicode : '';
        if (g.isSpace || /^\s*$/.test(u)) this.endWord();
        else this.word.push(u);
      }
    }
  }

  /** Ends the word being read (if any) and hands its glyph texts, as drawn, to `onWord`. */
  protected endWord(): void {
    if (!this.word.length) return;
    const word = this.word;
    this.word = [];
    this.onWord(word);
  }

  protected abstract onWord(glyphs: string[]): void;

  /** A text object begins or ends (after the word being read has ended). */
  protected onTextObjectBoundary(): void {}
}
