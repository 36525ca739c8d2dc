// References in visual order (eval/visual-order.ts): the script-level test that tells them from
// logical text, the rendering of a logical line in visual order (UAX #9 through bidi-js, glyph
// clusters kept whole, brackets mirrored), and our text rendered line by line from the parse's
// own lines. The detection is checked on every text reference of the corpus manifest.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { GroundingDocument } from '@docfleet/contracts';
import { readManifest } from '../eval/corpus-eval';
import { libraryParse } from '../eval/library-parse';
import { normaliseMarkdown } from '../eval/metrics/text-similarity';
import { pageLines } from '../eval/page-lines';
import { evaluateText, stripGlyphPlaceholders, textReport, textScore } from '../eval/text-eval';
import {
  isVisualOrder,
  splitAtLines,
  unsharedCharacters,
  visualLine,
  visualOrderEvidence,
  visualParagraph,
  visualRendering,
  visualText,
  type PageLine,
} from '../eval/visual-order';
import { CORPUS, corpus } from './helpers/fixtures';

jest.setTimeout(120_000);

const RTL_PDF = corpus('a_born_digital/docling/right_to_left_01.pdf');

describe('visual-order detection', () => {
  it('counts words that start or end with a letter that only ends a word (Arabic and Hebrew)', () => {
    expect(visualOrderEvidence('تعتبر البرمجة بلغة مثالية على')).toEqual({ initial: 0, final: 4 });
    expect(visualOrderEvidence('ىلع ةيلاثم ةغلب ةجمربلا ربتعت')).toEqual({ initial: 4, final: 0 });
    expect(visualOrderEvidence('שלום לכם ילדים')).toEqual({ initial: 0, final: 3 });
    expect(visualOrderEvidence('םולש םכל םידלי')).toEqual({ initial: 3, final: 0 });
    // Presentation forms count as their letters: ﺔﻐﻠﺑ is بلغة drawn with final/medial/initial forms.
    expect(visualOrderEvidence('\uFE94\uFEE0\uFED0\uFE91')).toEqual({ initial: 1, final: 0 });
    expect(isVisualOrder('ىلع ةيلاثم ةغلب')).toBe(true);
    expect(isVisualOrder('ةغلب')).toBe(false); // too little evidence
    expect(isVisualOrder('An English paragraph with no right-to-left words at all.')).toBe(false);
  });

  it('is true for the right-to-left reference and false for every other text reference of the corpus, and for our text', async () => {
    const seen: Array<[string, boolean]> = [];
    for (const m of (await readManifest(CORPUS)) as unknown as Array<Record<string, string>>) {
      for (const ref of (m.ground_truth ?? '').split(';').filter((r) => /\.(md|txt)$/.test(r))) {
        const text = await fs.readFile(path.join(CORPUS, ref), 'utf8').catch(() => undefined);
        if (text !== undefined) seen.push([ref, isVisualOrder(stripGlyphPlaceholders(text))]);
      }
    }
    expect(seen.length).toBeGreaterThanOrEqual(15);
    expect(seen.filter(([, v]) => v).map(([r]) => r)).toEqual(['a_born_digital/docling/right_to_left_01.md']);
    const ours = await libraryParse(RTL_PDF, 'pdf', 'text');
    expect(isVisualOrder(ours.markdown)).toBe(false);
    expect(visualOrderEvidence(ours.markdown).final).toBeGreaterThan(20);
  });
});

describe('characters not shared, order aside', () => {
  it('counts the multiset difference both ways and ignores order and whitespace', () => {
    expect(unsharedCharacters('ةغلب ربتعت', 'ربتعت  ةغلب')).toBe(0);
    expect(unsharedCharacters('abc', 'cba d')).toBe(1);
    expect(unsharedCharacters('aab', 'abb')).toBe(2);
  });
});

describe('visual rendering of a logical line', () => {
  it('reverses right-to-left words and the line, keeps Latin runs and numbers left to right', () => {
    // The first line of the corpus's Arabic sample, and the reference's own visual form of it.
    expect(visualLine('تعتبر البرمجة بلغة R و Python', 'rtl')).toBe('Python و R ةغلب ةجمربلا ربتعت');
    expect(visualLine('يمكن استخدام New York في عام 2024', 'rtl')).toBe('2024 ماع يف New York مادختسا نكمي');
    expect(visualLine('שלום עולם', 'rtl')).toBe('םלוע םולש');
  });

  it('keeps a glyph whole: lam-alef as the ligature is drawn, a letter with its marks', () => {
    // "الإنتاجية": lam + alef-hamza is one glyph, extracted as "لإ" (docling writes "ةيجاتنلإا").
    expect(visualLine('الإنتاجية', 'rtl')).toBe('ةيجاتنلإا');
    expect(visualLine('أيضًا', 'rtl')).toBe('اضًيأ');
  });

  it('mirrors brackets in right-to-left runs and drops directional controls', () => {
    expect(visualLine('(مثال)', 'rtl')).toBe('(لاثم)');
    expect(visualLine('\u202Bمن \u202AR\u202C و\u202C', 'rtl')).toBe('و R نم');
  });

  it('leaves left-to-right text as it is, and reverses an Arabic word inside it', () => {
    expect(visualLine('Results in 2024 (final).', 'ltr')).toBe('Results in 2024 (final).');
    expect(visualLine('the word بلغة here', 'ltr')).toBe('the word ةغلب here');
    expect(visualParagraph(['Plain English', 'lines stay.'])).toBe('Plain English lines stay.');
  });

  it('renders a paragraph line by line and joins the lines top to bottom', () => {
    expect(visualParagraph(['تعتبر البرمجة بلغة', 'R و Python'])).toBe('ةغلب ةجمربلا ربتعت Python و R');
  });

  it('renders an extractor output line by line, and leaves text already in visual order alone', () => {
    expect(visualText('تعتبر البرمجة بلغة\nمثالية على')).toBe('ةغلب ةجمربلا ربتعت\nىلع ةيلاثم');
    const visual = 'ىلع ةيلاثم ةغلب ةجمربلا ربتعت';
    expect(visualText(visual)).toBe(visual);
  });
});

describe('our text rendered with its own lines', () => {
  const box = (y: number) => ({ x1: 0.1, y1: y, x2: 0.9, y2: y + 0.015 });
  const lines: PageLine[] = [
    { text: 'تعتبر البرمجة بلغة', box: box(0.1) },
    { text: 'R و Python', box: box(0.12) },
    { text: 'English line', box: box(0.5) },
  ];

  it('cuts an element at its lines', () => {
    const el = { x1: 0.1, y1: 0.09, x2: 0.9, y2: 0.14 };
    expect(splitAtLines('تعتبر البرمجة بلغة R و Python', el, lines)).toEqual({
      parts: ['تعتبر البرمجة بلغة ', 'R و Python'],
      found: 2,
      candidates: 2,
    });
  });

  it('renders the right-to-left elements of a document and leaves the rest byte for byte', () => {
    const g = {
      pages: [
        {
          page_number: 1,
          elements: [
            { type: 'text', content: 'تعتبر البرمجة بلغة R و Python', bbox: { x1: 0.1, y1: 0.09, x2: 0.9, y2: 0.14 } },
            { type: 'text', content: 'English line', bbox: { x1: 0.1, y1: 0.49, x2: 0.9, y2: 0.52 } },
            // A running footer is not in the markdown: counted, not rendered.
            { type: 'page_footer', content: 'صفحة ٣', bbox: { x1: 0.4, y1: 0.95, x2: 0.6, y2: 0.97 } },
          ],
        },
      ],
    } as unknown as GroundingDocument;
    const md = '## تعتبر البرمجة بلغة R و Python\n\n**English line**';
    const v = visualRendering(md, g, new Map([[1, lines]]));
    expect(v.text).toBe('## ةغلب ةجمربلا ربتعت Python و R\n\n**English line**');
    expect(v).toMatchObject({ elements: 1, missed: 1, linesFound: 2, lines: 2 });
  });

  it('on the corpus sample: every line found, and much closer to the visual-order reference than the logical text', async () => {
    const res = await libraryParse(RTL_PDF, 'pdf', 'text');
    const v = visualRendering(res.markdown, res.grounding, await pageLines(RTL_PDF));
    expect(v.elements).toBeGreaterThanOrEqual(5);
    expect(v.linesFound).toBe(v.lines);
    const reference = await fs.readFile(RTL_PDF.replace(/\.pdf$/, '.md'), 'utf8');
    expect(textScore(v.text, reference)).toBeGreaterThan(textScore(res.markdown, reference) + 30);
    // What is left is order alone: the same letters, marks and punctuation as the reference.
    expect(unsharedCharacters(normaliseMarkdown(v.text), normaliseMarkdown(stripGlyphPlaceholders(reference)))).toBe(0);
    // The logical text is untouched by the rendering.
    expect(res.markdown).toContain('تعتبر البرمجة بلغة R و');
  });

  it('the text eval reports, beside the visual-order score, that our text and the reference share every character', async () => {
    const { rows, available } = await evaluateText(CORPUS, libraryParse, {
      peers: false,
      scriptsDir: path.join(__dirname, '../../../scripts'),
      only: (rel) => rel.includes('right_to_left_01'),
    });
    expect(rows).toHaveLength(1);
    expect(rows[0]!.visualOrder?.unshared.docfleet).toBe(0);
    expect(textReport(rows, available)).toMatch(/do not share, order and whitespace aside: docfleet 0,/);
  });
});
