// Right-to-left pages: runs placed as a PDF producer places them (each run's text in logical order,
// as pdf.js gives it, the runs of a line drawn right to left with Latin words and numbers between
// them) come out in logical order, paragraphs are found from the right margin, and columns are read
// from the right.
import fs from 'node:fs/promises';
import path from 'node:path';
import { libraryParse } from '../eval/library-parse';
import { visualLine } from '../eval/visual-order';
import {
  isRightToLeft,
  isRightToLeftLine,
  logicalRunOrder,
  logicalRunOrderLtr,
  mirrorReversedBrackets,
  runDirection,
} from '../src/layout/bidi';
import { buildLines } from '../src/layout/line-builder';
import { layoutPage } from '../src/layout/page-layout';
import { emptyGraphics } from '../src/parse/ocr-page';
import { closePdf, openPdf } from '../src/pdfjs-loader';
import { pdfjsBidi } from '../src/text-layer/pdfjs-bidi';
import { RtlItemRepairs } from '../src/text-layer/rtl-items';
import { RtlLigatureWords } from '../src/text-layer/rtl-ligatures';
import { RtlDroppedSigns } from '../src/text-layer/rtl-signs';
import type { TextRun } from '../src/types';
import { tempDir } from './helpers/fixtures';
import { visualPdf } from './helpers/rtl-pdf';

const SIZE = 11;
const CHAR = 0.5 * SIZE;

function run(text: string, x0: number, baseline: number): TextRun {
  return {
    text,
    x0,
    x1: x0 + [...text].length * CHAR,
    y0: baseline - 0.8 * SIZE,
    y1: baseline + 0.2 * SIZE,
    baseline,
    size: SIZE,
    bold: false,
    italic: false,
    mono: false,
  };
}

/**
 * One line set right-aligned at `right`: `pieces` in logical order, each drawn as its own run to
 * the left of the previous one (a word space apart unless `attached`), as Word writes a line of
 * Arabic with embedded Latin.
 */
function rtlLine(pieces: Array<string | { text: string; attached: true }>, right: number, baseline: number): TextRun[] {
  const out: TextRun[] = [];
  let x = right;
  for (const p of pieces) {
    const text = typeof p === 'string' ? p : p.text;
    const w = [...text].length * CHAR;
    const gap = typeof p === 'string' && out.length ? 0.3 * SIZE : 0;
    x -= gap + w;
    out.push(run(text, x, baseline));
  }
  return out;
}

/** Visual order as a page shows it: sort by x (what an extractor that ignores direction writes). */
const byX = (runs: TextRun[]) => [...runs].sort((a, b) => a.x0 - b.x0);

describe('bidi: run order of a right-to-left line', () => {
  it('classifies runs by their strong characters', () => {
    expect(runDirection('تحسين الإنتاجية')).toBe('rtl');
    expect(runDirection('שלום')).toBe('rtl');
    expect(runDirection('Python')).toBe('ltr');
    expect(runDirection('2024')).toBe('number');
    expect(runDirection('.')).toBe('neutral');
    expect(isRightToLeft(['Python', 'تحسين الإنتاجية'])).toBe(true);
    expect(isRightToLeft(['The word تحسين in a sentence'])).toBe(false);
  });

  it('reads Arabic runs from the right and keeps a Latin phrase of several runs, and numbers, left to right', () => {
    // "New York" is one Latin phrase drawn left to right inside the right-to-left line.
    const line = rtlLine(
      ['يمكن استخدام', 'New York', 'في عام', '2024', 'مع', 'R', 'و', 'Python', { text: '.', attached: true }],
      500,
      100,
    );
    const phrase = line[1]!;
    const split = [run('New', phrase.x0, 100), run('York', phrase.x0 + 4 * CHAR, 100)];
    const visual = byX([...line.filter((r) => r !== phrase), ...split]);
    expect(logicalRunOrder(visual).map((r) => r.text)).toEqual([
      'يمكن استخدام',
      'New',
      'York',
      'في عام',
      '2024',
      'مع',
      'R',
      'و',
      'Python',
      '.',
    ]);
    // A neutral run between two Latin runs belongs to the Latin phrase.
    const line2 = rtlLine(['مكتبة', 'pandas , numpy', 'في'], 500, 100);
    const p2 = line2[1]!;
    const parts = [run('pandas', p2.x0, 100), run(',', p2.x0 + 7 * CHAR, 100), run('numpy', p2.x0 + 9 * CHAR, 100)];
    const mixed = byX([line2[0]!, ...parts, line2[2]!]);
    expect(logicalRunOrder(mixed).map((r) => r.text)).toEqual(['مكتبة', 'pandas', ',', 'numpy', 'في']);
  });
});

describe('layout of a right-to-left page', () => {
  it('builds lines in logical order with spaces where the runs are a word space apart', () => {
    const runs = rtlLine(
      ['تعتبر البرمجة بلغة', 'R', 'و', { text: 'Python', attached: true }, 'من الأدوات القوية'],
      520,
      100,
    );
    const [line] = buildLines(byX(runs));
    expect(line!.rtl).toBe(true);
    expect(line!.text).toBe('تعتبر البرمجة بلغة R وPython من الأدوات القوية');
  });

  it('keeps a left-to-right line as it was', () => {
    const runs = [run('Results', 72, 100), run('in', 72 + 8 * CHAR, 100), run('2024', 72 + 11 * CHAR, 100)];
    const [line] = buildLines(runs);
    expect(line!.rtl).toBeUndefined();
    expect(line!.text).toBe('Results in 2024');
  });

  it('finds paragraphs from the right margin (ragged left edge, last line short on the left) and reads them top to bottom', () => {
    const paragraph = (tag: string, top: number) => {
      const runs: TextRun[] = [];
      // Full lines end at different x on the left (ragged), the last line is short.
      const lefts = [40, 36, 44, 38];
      lefts.forEach((_, i) => {
        const words = Array.from({ length: 7 }, (_, k) => `كلمة${tag}${i}${k}`);
        runs.push(...rtlLine([words.slice(0, 4).join(' '), 'R', words.slice(4).join(' ')], 540, top + i * 14));
      });
      runs.push(...rtlLine([`نهاية${tag}`, '2024', { text: '.', attached: true }], 540, top + 4 * 14));
      return runs;
    };
    const runs = [...paragraph('أ', 100), ...paragraph('ب', 200)];
    const els = layoutPage({ width: 612, height: 792, runs: byX(runs), graphics: emptyGraphics(), source: 'text' });
    const text = els.filter((e) => e.type === 'text');
    expect(text).toHaveLength(2);
    expect(text[0]!.text.startsWith('كلمةأ00 كلمةأ01 كلمةأ02 كلمةأ03 R كلمةأ04')).toBe(true);
    expect(text[0]!.text.endsWith('نهايةأ 2024.')).toBe(true);
    expect(text[1]!.text.startsWith('كلمةب00')).toBe(true);
  });

  it('reads the right column of a right-to-left page first', () => {
    const runs: TextRun[] = [];
    for (let i = 0; i < 10; i++) {
      runs.push(...rtlLine([`يمين${i} النص في العمود الأيمن`], 560, 100 + i * 14));
      runs.push(...rtlLine([`يسار${i} النص في العمود الأيسر`], 280, 100 + i * 14));
    }
    const els = layoutPage({ width: 612, height: 792, runs: byX(runs), graphics: emptyGraphics(), source: 'text' });
    const all = els.map((e) => e.text).join(' ');
    expect(all.indexOf('يمين9')).toBeGreaterThanOrEqual(0);
    expect(all.indexOf('يمين9')).toBeLessThan(all.indexOf('يسار0'));
  });
});

describe('lam-alef ligatures', () => {
  // pdf.js OPS: beginText 31, endText 32, showText 44; glyphs carry their ToUnicode text.
  const glyphs = (units: string[]) => units.map((u) => ({ unicode: u, isSpace: u === ' ' }));
  const reversedChars = (s: string) => [...s].reverse().join('');

  it('gives words drawn with a two-letter lam-alef glyph their letters in logical order, across glyph-by-glyph operations', () => {
    const words = new RtlLigatureWords();
    // Visual order (left to right): "مثال" (no ligature: alef, lam separate), then "خلال" drawn
    // glyph by glyph as Word does on a justified line, the ligature glyph standing for "لا".
    words.push([31, 44], [undefined, [glyphs(['ل', 'ا', 'ث', 'م', ' '])]], 2);
    words.push([44, 44, 44, 32], [[glyphs(['ل'])], [[glyphs(['لا'])[0], -12]], [glyphs(['خ', '.'])], undefined], 4);
    // pdf.js reverses each item's joined text, the ligature's two letters included.
    const pdfjsText = `${reversedChars('لاثم')} ${reversedChars('للاخ.')}`;
    expect(pdfjsText).toBe('مثال .خالل');
    expect(words.fix('مثال خالل، في')).toBe('مثال خلال، في');
    expect(words.fix('Latin text stays')).toBe('Latin text stays');
  });
});

describe('combining marks in our logical text', () => {
  it('joins a mark that a gap in the text layer set apart from its letter', () => {
    const r = { x0: 100, x1: 300, y0: 90, y1: 102, baseline: 100, size: 11, bold: false, italic: false, mono: false };
    const [line] = buildLines([{ ...r, text: 'بناء ً على استنتاجات' }]);
    expect(line!.text).toBe('بناءً على استنتاجات');
  });
});

describe('brackets and presentation forms of right-to-left text', () => {
  it('mirrors the brackets pdf.js reversed into logical order, and only those', () => {
    // pdf.js gives the reversed item text, brackets as drawn: ")مثال(" for "(مثال)".
    expect(mirrorReversedBrackets(')مثال( بلغة', true)).toBe('(مثال) بلغة');
    expect(mirrorReversedBrackets('في عام ]2024[', true)).toBe('في عام [2024]');
    // A bracket between left-to-right letters was not reversed.
    expect(mirrorReversedBrackets('مكتبة g(x)h في', true)).toBe('مكتبة g(x)h في');
    expect(mirrorReversedBrackets('Latin (text) only', false)).toBe('Latin (text) only');
  });

  it('reads a bracket drawn as its own glyph in a right-to-left line as the mirrored character', () => {
    // Logical "تعتبر (مثال) بلغة": the glyph drawn where "(" stands is ")", and the other way round.
    const runs = rtlLine(
      ['تعتبر', ')', { text: 'مثال', attached: true }, { text: '(', attached: true }, 'بلغة'],
      500,
      100,
    );
    expect(buildLines(byX(runs))[0]!.text).toBe('تعتبر (مثال) بلغة');
  });

  it('gives a PDF shaped by its producer (presentation forms, brackets drawn mirrored) in logical order with base letters', async () => {
    const logical1 = 'ﺗﻌﺘﺒﺮ اﻟﺒﺮﻣﺠﺔ (ﻣﺜﺎل) ﺑﻠﻐﺔ';
    // The lam-alef ligature as one glyph (presentation form U+FEFC), as a shaping producer draws it.
    const logical2 = 'في عام 2024 [ﻣﻼﺣﻈﺔ] على';
    const file = path.join(await tempDir(), 'shaped.pdf');
    // Line 1 drawn as one string, left to right as displayed (Word); line 2 glyph by glyph from
    // the right (MuPDF's layout engine).
    await fs.writeFile(
      file,
      await visualPdf([
        { visual: visualLine(logical1, 'rtl'), y: 700, perGlyph: false },
        { visual: visualLine(logical2, 'rtl'), y: 680, perGlyph: true },
      ]),
    );
    const { markdown } = await libraryParse(file, 'pdf', 'text');
    expect(markdown).toContain('تعتبر البرمجة (مثال) بلغة');
    expect(markdown).toContain('في عام 2024 [ملاحظة] على');
    expect(markdown).not.toMatch(/[\uFB50-\uFDFF\uFE70-\uFEFC]/u);
  });
});

describe('numbers, comparison signs and Latin-heavy lines drawn glyph by glyph', () => {
  it('treats Arabic-Indic digits as numbers, and takes a line whose both ends are right-to-left as right to left', () => {
    expect(runDirection('٢٠٢٤')).toBe('number');
    expect(runDirection('۱۲')).toBe('number');
    expect(isRightToLeft(['٢٠٢٤', 'A'])).toBe(false);
    // Visual order: "هنا" at the left end, "البريد" at the right end, more Latin letters between.
    const visual = ['انه', 'https://a.b/c', 'طبارلاو', 'user@example.com', 'ديربلا'];
    expect(isRightToLeft(visual)).toBe(false);
    expect(isRightToLeftLine(visual)).toBe(true);
    expect(isRightToLeftLine(['The', 'word', 'نيسحت', 'in', 'a', 'sentence'])).toBe(false);
  });

  it('reads such lines in logical order through the parse (as MuPDF draws: one glyph per operation)', async () => {
    const lines = [
      'في عام ٢٠٢٤ بلغت النسبة 50% من المجموع',
      'إذا كانت القيمة > 5 فإن النتيجة ≤ 10 دائما',
      'البريد user@example.com والرابط https://a.b/c هنا',
    ];
    const file = path.join(await tempDir(), 'glyphs.pdf');
    await fs.writeFile(
      file,
      await visualPdf(lines.map((l, i) => ({ visual: visualLine(l, 'rtl'), y: 700 - 30 * i, perGlyph: true }))),
    );
    const { markdown } = await libraryParse(file, 'pdf', 'text');
    for (const l of lines) expect(markdown).toContain(l);
  });
});

describe('"<" and ">" that pdf.js deletes from right-to-left items', () => {
  const glyphs = (s: string) => [...s].map((u) => ({ unicode: u, isSpace: u === ' ' }));

  it('puts a sign drawn between two words back where pdf.js left a double space, mirrored in right-to-left text', () => {
    const signs = new RtlDroppedSigns();
    // Drawn left to right: "5 < ةميقلا" (logical "القيمة > 5") and "x < نإف" (logical "فإن > x").
    signs.push([31, 44, 44, 32], [undefined, [glyphs('5 < ةميقلا')], [glyphs(' x < نإف')], undefined], 4);
    expect(signs.size).toBe(2);
    // pdf.js: "إذا كانت القيمة  5 فإن  x" (signs deleted).
    expect(signs.restore('إذا كانت القيمة  5 فإن  x', true)).toBe('إذا كانت القيمة > 5 فإن > x');
    // Only in items pdf.js read right to left, only with the double space, only whole words.
    expect(signs.restore('إذا كانت القيمة  5', false)).toBe('إذا كانت القيمة  5');
    expect(signs.restore('إذا كانت القيمة 5', true)).toBe('إذا كانت القيمة 5');
    expect(signs.restore('القيمة  55', true)).toBe('القيمة  55');
  });

  it('records nothing for signs between two Latin words or numbers, or without a word on each side', () => {
    const signs = new RtlDroppedSigns();
    signs.push(
      [31, 44, 32, 31, 44, 32],
      [undefined, [glyphs('a < b 3 > 2')], undefined, undefined, [glyphs('<')], undefined],
      6,
    );
    expect(signs.size).toBe(0);
  });

  it('keeps the signs of a right-to-left line drawn as one string (as Word draws) through the parse', async () => {
    const lines = ['إذا كانت القيمة > 5 فإن النتيجة < 10 دائما', 'نستخدم R ثم نكتب المتغير > Python في السطر'];
    const file = path.join(await tempDir(), 'signs.pdf');
    await fs.writeFile(
      file,
      await visualPdf(lines.map((l, i) => ({ visual: visualLine(l, 'rtl'), y: 700 - 30 * i, perGlyph: false }))),
    );
    const { markdown } = await libraryParse(file, 'pdf', 'text');
    for (const l of lines) expect(markdown).toContain(l);
  });
});

/**
 * Logical lines drawn in visual order (a line's direction as given) on one page, once one string per
 * line (Word) and once glyph by glyph (MuPDF): each comes out of the parse as it is.
 */
async function expectLinesBothWays(lines: string[], direction: 'ltr' | 'rtl'): Promise<void> {
  for (const perGlyph of [false, true]) {
    const file = path.join(await tempDir(), `lines-${perGlyph}.pdf`);
    await fs.writeFile(
      file,
      await visualPdf(lines.map((l, i) => ({ visual: visualLine(l, direction), y: 700 - 30 * i, perGlyph }))),
    );
    const { markdown } = await libraryParse(file, 'pdf', 'text');
    for (const l of lines)
      expect({ perGlyph, line: markdown.includes(l) ? l : markdown }).toEqual({ perGlyph, line: l });
  }
}

describe("pdf.js's bidi pass repaired from the drawn glyphs", () => {
  // Logical lines with a sign attached to a word, a sign between two Latin words or two numbers, and
  // addresses whose segments are one letter long: pdf.js deletes the signs and, by its rule N1 reading
  // one character too far, reverses the Latin segments.
  const lines = [
    'إذا كانت القيمة <5 فإن النتيجة',
    'نكتب x>y في السطر',
    'المتغير a < b في السطر',
    'العدد 3 > 2 في السطر',
    'والرابط https://a.b/c هنا',
    'البريد a@b.co هنا',
  ];
  const glyphs = (s: string) => [...s].map((u) => ({ unicode: u, isSpace: u === ' ' }));

  it('predicts the text pdf.js gives an item, and gives it repaired', async () => {
    // What pdf.js 5.4 gives these lines drawn as one string each (read from its text layer below).
    expect(pdfjsBidi(visualLine(lines[0]!, 'rtl'), false).str).toBe('إذا كانت القيمة 5 فإن النتيجة');
    expect(pdfjsBidi(visualLine(lines[1]!, 'rtl'), false).str).toBe('نكتب yx في السطر');
    expect(pdfjsBidi(visualLine(lines[2]!, 'rtl'), false).str).toBe('المتغير b  a في السطر');
    expect(pdfjsBidi(visualLine(lines[4]!, 'rtl'), false).str).toBe('والرابط c/b.a//:https هنا');
    for (const l of lines) expect(pdfjsBidi(visualLine(l, 'rtl'), true)).toEqual({ str: l, dir: 'rtl' });
    // A left-to-right item holding a right-to-left word goes through the same pass and loses its signs too.
    const english = 'The test if a < b then the word مثال is used';
    expect(pdfjsBidi(visualLine(english, 'ltr'), false)).toEqual({ str: english.replace('<', ''), dir: 'ltr' });
    expect(pdfjsBidi(visualLine(english, 'ltr'), true)).toEqual({ str: english, dir: 'ltr' });
    // Text without "<", ">" or one-letter segments, and text pdf.js does not reorder: the same either way.
    for (const s of ['مثال Python بلغة', 'الإنتاجية 2024-2025 (مثال)', 'a < b and x>y, https://a.b/c'])
      expect(pdfjsBidi(s, true)).toEqual(pdfjsBidi(s, false));
    expect(pdfjsBidi('a < b and x>y', false).str).toBe('a < b and x>y');
    // The port matches pdf.js itself on every line (its text layer of the generated PDF).
    const file = path.join(await tempDir(), 'items.pdf');
    await fs.writeFile(
      file,
      await visualPdf(lines.map((l, i) => ({ visual: visualLine(l, 'rtl'), y: 700 - 30 * i, perGlyph: false }))),
    );
    const doc = await openPdf(file);
    try {
      const page = await doc.getPage(1);
      const items = (await page.getTextContent()).items as Array<{ str: string; dir: string }>;
      expect(items.map((it) => [it.str, it.dir])).toEqual(
        lines.map((l) => {
          const p = pdfjsBidi(visualLine(l, 'rtl'), false);
          return [p.str, p.dir];
        }),
      );
    } finally {
      await closePdf(doc);
    }
  });

  it('repairs an item only when it is exactly what pdf.js made of a drawn stretch', () => {
    const repairs = new RtlItemRepairs();
    // One showText per line in a text object of its own (Word), then a line split over two operations of one object.
    const visual = visualLine(lines[4]!, 'rtl');
    const cut = visual.indexOf('https');
    repairs.push(
      [31, 44, 32, 31, 44, 44, 32],
      [
        undefined,
        [glyphs(visualLine(lines[0]!, 'rtl'))],
        undefined,
        undefined,
        [glyphs(visual.slice(0, cut))],
        [glyphs(visual.slice(cut))],
        undefined,
      ],
      7,
    );
    expect(repairs.size).toBeGreaterThan(0);
    expect(repairs.repair('إذا كانت القيمة 5 فإن النتيجة')).toBe(lines[0]);
    expect(repairs.repair('والرابط c/b.a//:https هنا')).toBe(lines[4]);
    // Part of an item, or an item no stretch gives: unchanged.
    expect(repairs.repair('القيمة 5 فإن')).toBe('القيمة 5 فإن');
    expect(repairs.repair('إذا كانت القيمة 5')).toBe('إذا كانت القيمة 5');
  });

  it('leaves an item alone when stretches disagree about it, and pages without right-to-left text cost nothing', () => {
    const repairs = new RtlItemRepairs();
    // "القيمة <5" and "القيمة 5" both give pdf.js's "القيمة 5": no evidence which one an item is.
    repairs.push(
      [31, 44, 32, 31, 44, 32],
      [
        undefined,
        [glyphs(visualLine('القيمة <5', 'rtl'))],
        undefined,
        undefined,
        [glyphs(visualLine('القيمة 5', 'rtl'))],
      ],
      6,
    );
    expect(repairs.repair('القيمة 5')).toBe('القيمة 5');
    const latin = new RtlItemRepairs();
    latin.push([31, 44, 32], [undefined, [glyphs('if a < b then x>y, see https://a.b/c')]], 3);
    expect(latin.size).toBe(0);
  });

  it('reads them in logical order through the parse, drawn as one string per line (Word) and glyph by glyph (MuPDF)', async () => {
    await expectLinesBothWays([...lines, 'في الفترة 2024-2025 كان', 'בשנים 2024-2025 היה', 'العدد ٣ > ٢ هنا'], 'rtl');
  });
});

describe('right-to-left words in a left-to-right line', () => {
  it('reads them in logical order, with the signs pdf.js deletes, drawn as one string per line and glyph by glyph', async () => {
    await expectLinesBothWays(
      ['The test if a < b then the word مثال is used', 'The words كلمة أخرى and 2024 here'],
      'ltr',
    );
    // A line without right-to-left runs keeps its array.
    const latin = [run('a', 100, 100), run('b', 110, 100)];
    expect(logicalRunOrderLtr(latin)).toBe(latin);
  });
});

describe('neutrals between two numbers in a right-to-left line', () => {
  it('reads them right to left unless one separator joins the numbers (UAX #9 W2, W4, W7, N1)', () => {
    const runs = (texts: string[]) => {
      let x = 100;
      return texts.map((t) => {
        const r = run(t, x, 100);
        x = r.x1 + (t === ' ' ? 0 : 0);
        return r;
      });
    };
    const order = (texts: string[]) =>
      logicalRunOrder(runs(texts).filter((r) => r.text !== ' '))
        .map((r) => r.text)
        .join('|');
    // Visual "2 < 3 ددعلا" (logical "العدد 3 > 2"): the sign between the numbers is right to left.
    expect(order(['2', '<', '3', 'ددعلا'])).toBe('ددعلا|3|>|2');
    // Arabic context: "-" (ES) does not join Arabic numbers (W2 makes them AN); "," (CS) does.
    expect(order(['2025', '-', '2024', 'ةرتفلا'])).toBe('ةرتفلا|2024|-|2025');
    expect(order(['1', ',', '5', 'رعسلا'])).toBe('رعسلا|1|,|5');
    // Hebrew context: "-" joins European numbers.
    expect(order(['2024', '-', '2025', 'םינשב'])).toBe('םינשב|2024|-|2025');
    // After a Latin word (W7) the numbers are left to right with what stands between them.
    expect(order(['2', '<', '3', 'x', 'ددعلا'])).toBe('ددعلا|2|<|3|x');
  });
});
