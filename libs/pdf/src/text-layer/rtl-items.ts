// Text items that pdf.js's bidi pass got wrong, rebuilt from the glyphs the page draws. pdf.js joins
// the glyphs of a text item as drawn (visual order) and runs its own bidi pass over the string
// (pdfjs-bidi.ts), which deletes every "<" and ">" and, by an off-by-one in rule N1, reverses Latin
// segments one letter long inside right-to-left text ("https://a.b/c" → "c/b.a//:https", "x>y" →
// "yx"). The operator list holds the glyphs in drawing order. For each stretch of glyphs that pdf.js
// may have made into one item (a showText operation, a text object, the operations of a text object
// between two font changes) the text pdf.js gives it is predicted with the ported pass, and where the repaired
// pass gives something else, an item whose text is exactly that prediction gets the repaired text.
// Evidence is the whole item: nothing changes in an item unless the drawn glyphs, through pdf.js's
// own pass, give its text character for character, and a prediction two different stretches share
// with different repairs is dropped.

import { glyphText, OperatorListReader, type Glyphs } from './operator-words';
import { hasBidiCharacters, pdfjsBidi, pdfjsNormalizeUnicode } from './pdfjs-bidi';

/** A stretch's text as pdf.js builds an item of it: a run of blanks is one space, none at either end. */
const itemText = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A showText's glyph texts joined as drawn, a blank glyph as a space. */
function opText(glyphs: Glyphs): string {
  let text = '';
  for (const g of glyphs) text += glyphText(g) ?? '';
  return text;
}

/** Whether a glyph of a showText is a character pdf.js's pass acts on (most pages: one comparison a glyph). */
function opHasBidi(glyphs: Glyphs): boolean {
  for (const g of glyphs) {
    if (typeof g === 'number' || !g || typeof g.unicode !== 'string') continue;
    const u = g.unicode;
    if ((u.charCodeAt(0) >= 0x0590 || u.length > 1) && hasBidiCharacters(u)) return true;
  }
  return false;
}

export class RtlItemRepairs extends OperatorListReader {
  private readonly fixes = new Map<string, string | null>();
  // The current text object's and font run's showText glyphs, and whether any holds a character
  // pdf.js's pass acts on; texts are only built for stretches that do.
  private object: Glyphs[] = [];
  private objectBidi = false;
  private fontRun: Glyphs[] = [];
  private fontRunBidi = false;

  protected override onShowText(glyphs: Glyphs): void {
    const bidi = opHasBidi(glyphs);
    if (bidi) this.consider([glyphs]);
    this.object.push(glyphs);
    this.fontRun.push(glyphs);
    this.objectBidi ||= bidi;
    this.fontRunBidi ||= bidi;
  }

  protected override onTextObjectBoundary(): void {
    this.endFontRun();
    this.endObject();
  }

  protected override onSetFont(): void {
    this.endFontRun();
  }

  private endObject(): void {
    if (this.objectBidi && this.object.length > 1) this.consider(this.object);
    this.object = [];
    this.objectBidi = false;
  }

  private endFontRun(): void {
    // A font run that is the whole text object was considered as the object.
    if (this.fontRunBidi && this.fontRun.length > 1 && this.fontRun.length < this.object.length)
      this.consider(this.fontRun);
    this.fontRun = [];
    this.fontRunBidi = false;
  }

  /** Records what pdf.js makes of these showText operations as one item (joined as drawn, or a space apart) and its repair. */
  private consider(ops: Glyphs[]): void {
    const texts = ops.map(opText);
    const variants = new Set([itemText(texts.join(''))]);
    if (texts.length > 1) variants.add(itemText(texts.join(' ')));
    for (const raw of variants) {
      const text = pdfjsNormalizeUnicode(raw);
      const given = pdfjsBidi(text, false).str;
      const repaired = pdfjsBidi(text, true).str;
      const value = given === repaired ? null : repaired;
      // A text that two stretches give with different repairs (or one with, one without) stays as it is.
      if (!this.fixes.has(given)) this.fixes.set(given, value);
      else if (this.fixes.get(given) !== value) this.fixes.set(given, null);
    }
  }

  /** Ends the stretches still open (call once the operator list is read); the number of repairs. */
  get size(): number {
    this.onTextObjectBoundary(); // as at an end of text object: the font run first, then the object
    let n = 0;
    for (const v of this.fixes.values()) if (v !== null) n++;
    return n;
  }

  /** An item's text as pdf.js gives it, repaired when it is exactly what pdf.js made of a stretch it got wrong. */
  repair(text: string): string {
    return this.fixes.get(text) ?? text;
  }
}
