import {
  bottomLeftToTopLeft,
  cellAccuracy,
  characterErrorRate,
  iou,
  levenshtein,
  normaliseMarkdown,
  parseCsv,
  textSimilarity,
} from '../eval/metrics';
import type { GroundingDocument } from '@docfleet/contracts';
import { levenshteinReference } from '../src/edit-distance';
import { lcsLength, lcsReference, levenshteinRatio } from '../eval/metrics/lcs';
import { adjacencyRelations, adjacencyScore, prf } from '../eval/metrics/adjacency';
import { groundingPlainText, stripGlyphPlaceholders, textScore } from '../eval/text-eval';

describe('evaluation metrics', () => {
  it('bit-parallel Levenshtein matches the plain dynamic programme', () => {
    let seed = 7;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let t = 0; t < 300; t++) {
      const alpha = 'abcd efg'.slice(0, 2 + (t % 7));
      const gen = (n: number) => Array.from({ length: n }, () => alpha[Math.floor(rnd() * alpha.length)]).join('');
      const a = gen(Math.floor(rnd() * 90)),
        b = gen(Math.floor(rnd() * 90));
      expect(levenshtein(a, b)).toBe(levenshteinReference(a, b));
    }
  });

  it('normalises markdown before comparing', () => {
    expect(
      normaliseMarkdown('## Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n<!-- image -->\n![x](imgs/a.jpg)\n- item'),
    ).toBe('Title a b 1 2 item');
    expect(textSimilarity('# Hello world', 'Hello  world')).toBe(1);
    expect(textSimilarity('abcd', 'abxd')).toBeCloseTo(0.75);
    expect(characterErrorRate('The quick\nbrown fox', 'The quick brown fix')).toBeCloseTo(1 / 19);
  });

  it('scores table cells by position after the best offset', () => {
    const gt = [
      { row: 0, col: 0, text: 'Name' },
      { row: 0, col: 1, text: 'Age' },
      { row: 1, col: 0, text: 'Ann' },
      { row: 1, col: 1, text: '31' },
    ];
    const shifted = gt.map((c) => ({ ...c, row: c.row + 1 })).concat([{ row: 0, col: 0, text: 'Table 1' }]);
    expect(cellAccuracy(gt, shifted)).toMatchObject({ accuracy: 1, offset: [1, 0] });
    const swapped = [
      { row: 1, col: 0, text: '31' },
      { row: 1, col: 1, text: 'Ann' },
      { row: 0, col: 0, text: 'Name' },
      { row: 0, col: 1, text: 'Age' },
    ];
    expect(cellAccuracy(gt, swapped).accuracy).toBe(0.5);
  });

  it('converts ICDAR boxes and computes IoU', () => {
    expect(bottomLeftToTopLeft([10, 700, 110, 780], 792)).toEqual([10, 12, 110, 92]);
    expect(iou([0, 0, 10, 10], [5, 0, 15, 10])).toBeCloseTo(1 / 3);
    expect(parseCsv('a,"b,c"\n"x ""y""",\n')).toEqual([
      ['a', 'b,c'],
      ['x "y"', ''],
    ]);
  });
});

describe('text benchmark metric (python-Levenshtein ratio)', () => {
  it('bit-parallel LCS matches the plain dynamic programme across word boundaries', () => {
    let seed = 11;
    const rnd = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let t = 0; t < 200; t++) {
      const alpha = 'abcde fgh'.slice(0, 2 + (t % 8));
      const gen = (n: number) => Array.from({ length: n }, () => alpha[Math.floor(rnd() * alpha.length)]).join('');
      const a = gen(Math.floor(rnd() * 150)),
        b = gen(Math.floor(rnd() * 150));
      expect(lcsLength(a, b)).toBe(lcsReference(a, b));
    }
  });

  it('ratio counts a substitution as two edits, as python-Levenshtein does', () => {
    expect(levenshteinRatio('abcd', 'abxd')).toBeCloseTo(0.75); // 2·3 / 8
    expect(levenshteinRatio('', '')).toBe(1);
    expect(levenshteinRatio('kitten', 'sitting')).toBeCloseTo(8 / 13);
  });

  it('scores whole documents: plain text from grounding, headers and tables included', () => {
    const el = (type: string, content: string, extra: object = {}) => ({
      id: 'x',
      type,
      label: '',
      bbox: { x1: 0, y1: 0, x2: 1, y2: 1 },
      pixel_bbox: [0, 0, 1, 1],
      content,
      markdown_anchor: '',
      ...extra,
    });
    const g = {
      filename: 'a.pdf',
      file_type: 'pdf',
      pages: [
        {
          page_number: 1,
          width: 10,
          height: 10,
          elements: [
            el('page_header', 'Running head'),
            el('text', 'Body text.'),
            el('figure', '0 200 400 Inner core radius (km)'),
            el('table', 'x', {
              cells: [
                { row: 0, col: 1, text: 'B', rowSpan: 1, colSpan: 1 },
                { row: 0, col: 0, text: 'A', rowSpan: 1, colSpan: 1 },
                { row: 1, col: 0, text: 'C', rowSpan: 1, colSpan: 1 },
              ],
            }),
          ],
        },
      ],
    } as unknown as GroundingDocument;
    expect(groundingPlainText(g)).toBe('Running head\nBody text.\nA B\nC');
    expect(textScore('# Title\n\nsome   text', 'Title some text')).toBe(100);
    expect(stripGlyphPlaceholders('a GLYPH<g12> b GLYPH&lt;c&gt;')).toBe('a  b ');
  });
});

describe('ICDAR-2013 adjacency relations', () => {
  const gt = [
    { row: 0, col: 0, endRow: 0, endCol: 1, text: 'Sales' },
    { row: 0, col: 2, text: 'Note' },
    { row: 1, col: 0, text: 'A' },
    { row: 1, col: 1, text: '1' },
    { row: 1, col: 2, text: 'x' },
    { row: 2, col: 0, text: 'B' },
    { row: 2, col: 1, text: '' },
    { row: 2, col: 2, text: 'y' },
  ];
  it('relates each non-empty cell to its nearest non-empty neighbour right and below, spans included', () => {
    expect(adjacencyRelations(gt).sort()).toEqual(
      ['1→x', 'a↓b', 'a→1', 'b→y', 'note↓x', 'sales→note', 'sales↓1', 'sales↓a', 'x↓y'].sort(),
    );
  });
  it('scores precision and recall by content, independent of grid offsets', () => {
    const shifted = gt.map((c) => ({
      ...c,
      row: c.row + 1,
      endRow: c.endRow === undefined ? undefined : c.endRow + 1,
    }));
    expect(adjacencyScore(gt, shifted)).toEqual({ correct: 9, ours: 9, truth: 9 });
    const merged = [{ row: 0, col: 0, text: 'Sales Note' }, ...gt.slice(2)];
    const s = adjacencyScore(gt, merged);
    expect(s.correct).toBeLessThan(s.truth);
    expect(prf({ correct: 3, ours: 4, truth: 6 })).toMatchObject({ precision: 0.75, recall: 0.5 });
  });
});
