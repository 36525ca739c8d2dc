// A scanned page whose words line up like a table is laid out a second time with its ruling lines,
// to find tables with ruling evidence (hasRulingEvidence: two rules across and one down at least).
// A page with fewer rules than that (most receipts: a dashed rule or two across, none down) cannot
// give such a table, and that second layout is skipped (issue 23, time per image). The skip must
// leave every page as it was: the precondition holds whenever some table has ruling evidence
// (the receipts' own CER and F1 in eval:parse --only ocr are the end-to-end check).
import { emptyGraphics, hasRulingEvidence, mayHaveRulingEvidence } from '../src/parse/ocr-page';
import type { LayoutElement, PageGraphics, Ruling } from '../src/types';

const table = (x0: number, y0: number, x1: number, y1: number): LayoutElement => ({
  type: 'table',
  text: '',
  x0,
  y0,
  x1,
  y1,
});
const graphics = (hRules: Ruling[], vRules: Ruling[]): PageGraphics => ({ ...emptyGraphics(), hRules, vRules });

describe('the rules a ruled table needs, counted before the second layout', () => {
  it('allows the layout at exactly two rules across and one down, as the evidence needs', () => {
    const el = table(100, 100, 300, 200);
    const across = [
      { x0: 100, y0: 100, x1: 300, y1: 100 },
      { x0: 100, y0: 200, x1: 300, y1: 200 },
    ];
    const down = [{ x0: 200, y0: 100, x1: 200, y1: 200 }];
    const g = graphics(across, down);
    expect(hasRulingEvidence(el, g)).toBe(true);
    expect(mayHaveRulingEvidence(g)).toBe(true);
    // One rule fewer either way: no table can have the evidence, and the layout is not needed.
    for (const fewer of [graphics(across.slice(1), down), graphics(across, [])]) {
      expect(hasRulingEvidence(el, fewer)).toBe(false);
      expect(mayHaveRulingEvidence(fewer)).toBe(false);
    }
    // A receipt's dashed separators: many rules across, none down.
    const dashes = Array.from({ length: 6 }, (_, i) => ({ x0: 10, y0: 50 + 40 * i, x1: 390, y1: 50 + 40 * i }));
    expect(mayHaveRulingEvidence(graphics(dashes, []))).toBe(false);
  });

  it('never skips a page on which some table would have ruling evidence (random pages)', () => {
    let s = 7;
    const rnd = () => ((s = (s * 1103515245 + 12345) >>> 0) >>> 8) / (1 << 24);
    let withEvidence = 0;
    for (let i = 0; i < 5000; i++) {
      const x0 = rnd() * 300,
        y0 = rnd() * 300,
        w = 20 + rnd() * 200,
        h = 20 + rnd() * 200;
      const el = table(x0, y0, x0 + w, y0 + h);
      // Rules near the table, some inside, some beside it, of any length up to the table's.
      const rule = (across: boolean): Ruling => {
        const a = x0 - 30 + rnd() * (w + 60),
          b = y0 - 30 + rnd() * (h + 60);
        return across
          ? { x0: a - rnd() * w, y0: b, x1: a + rnd() * w, y1: b }
          : { x0: a, y0: b - rnd() * h, x1: a, y1: b + rnd() * h };
      };
      const g = graphics(
        Array.from({ length: Math.floor(rnd() * 4) }, () => rule(true)),
        Array.from({ length: Math.floor(rnd() * 3) }, () => rule(false)),
      );
      if (!hasRulingEvidence(el, g)) continue;
      withEvidence++;
      expect(mayHaveRulingEvidence(g)).toBe(true);
    }
    expect(withEvidence).toBeGreaterThan(50);
  });
});
