// The text a page's operator list draws, in drawing order. `OperatorListReader` hands each showText's
// glyphs and the boundaries that matter to text (text objects, font changes) to its subclass;
// `OperatorListWords` splits the glyphs into words: each showText glyph's text, split at spaces (a
// space glyph or blank text) and at the start and end of a text object. Justified right-to-left
// lines are often drawn glyph by glyph, one operation each, so a word spans operations. The
// right-to-left repairs of the text layer (ligature words, deleted signs, whole items) read them.

import { OP } from '../pdfjs-ops';

const SET_FONT = 37; // pdf.js OPS.setFont

export interface GlyphLike {
  unicode?: unknown;
  isSpace?: boolean;
}
/** A showText's argument: glyphs, with numbers for kerning. */
export type Glyphs = Array<GlyphLike | number | null>;

/** A showText entry's text as drawn: undefined for kerning, ' ' for a space glyph or blank text. */
export function glyphText(g: GlyphLike | number | null): string | undefined {
  if (typeof g === 'number' || !g) return undefined;
  const u = typeof g.unicode === 'string' ? g.unicode : '';
  return g.isSpace || !u.trim() ? ' ' : u;
}

export abstract class OperatorListReader {
  /** Reads one chunk of the operator list (the same chunks the graphics scanner sees). */
  push(fnArray: ArrayLike<number>, argsArray: ArrayLike<unknown>, length: number): void {
    for (let i = 0; i < length; i++) {
      const fn = fnArray[i];
      if (fn === OP.beginText || fn === OP.endText) this.onTextObjectBoundary();
      else if (fn === SET_FONT) this.onSetFont();
      else if (fn === OP.showText) {
        const glyphs = (argsArray[i] as unknown[] | undefined)?.[0];
        if (Array.isArray(glyphs)) this.onShowText(glyphs as Glyphs);
      }
    }
  }

  protected abstract onShowText(glyphs: Glyphs): void;

  /** A text object begins or ends. */
  protected onTextObjectBoundary(): void {}

  /** The font changes. */
  protected onSetFont(): void {}
}

export abstract class OperatorListWords extends OperatorListReader {
  private word: string[] = [];

  protected override onShowText(glyphs: Glyphs): void {
    for (const g of glyphs) {
      const u = glyphText(g);
      if (u === ' ') this.endWord();
      else if (u !== undefined) this.word.push(u);
    }
  }

  protected override onTextObjectBoundary(): void {
    this.endWord();
    this.onWordsBoundary();
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
  protected onWordsBoundary(): void {}
}
