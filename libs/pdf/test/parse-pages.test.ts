import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { assembleDocument, parsePages, ParseError, type ParsePhase } from '../src';
import { BORN_DIGITAL, CODE_FORMULA, ICDAR_US005, tempDir } from './helpers/fixtures';

describe('parsePages (text backend)', () => {
  let out: string;
  beforeAll(async () => {
    out = await tempDir('pdf-parse-');
  });
  afterAll(async () => {
    await fs.rm(out, { recursive: true, force: true });
  });

  it('builds the element model, markdown, page image and crops for a born-digital page', async () => {
    const progress: Array<[number, number, ParsePhase]> = [];
    const res = await parsePages({
      path: BORN_DIGITAL,
      kind: 'pdf',
      backend: 'text',
      outDir: out,
      onProgress: (d, t, p) => {
        progress.push([d, t, p]);
      },
    });
    expect(res.pageCount).toBe(1);
    const [page] = res.pages;
    expect(page!.source).toBe('text');
    expect(progress).toEqual([
      [1, 1, 'text'],
      [1, 1, 'figures'],
    ]);

    // Page image at 150 dpi: 612 x 792 pt → 1275 x 1650 px, matching the grounding page size.
    const png = await sharp(path.join(out, 'pages/page_0001.png')).metadata();
    expect([png.width, png.height]).toEqual([1275, 1650]);
    expect([page!.grounding.width, page!.grounding.height]).toEqual([1275, 1650]);

    const els = page!.grounding.elements;
    const types = els.map((e) => e.type);
    expect(types).toEqual(expect.arrayContaining(['page_header', 'heading', 'text', 'caption', 'table']));
    for (const e of els) {
      expect(e.id).toMatch(/^p1-[0-9a-f]{10}(-\d+)?$/);
      expect(e.bbox.x1).toBeGreaterThanOrEqual(0);
      expect(e.bbox.x2).toBeLessThanOrEqual(1);
      expect(e.bbox.x1).toBeLessThan(e.bbox.x2);
      expect(e.bbox.y1).toBeLessThan(e.bbox.y2);
      expect(e.pixel_bbox[2]).toBeLessThanOrEqual(1275);
      expect(Math.abs(e.pixel_bbox[0] - e.bbox.x1 * 1275)).toBeLessThanOrEqual(1);
    }
    // Running head is labelled and kept out of the markdown.
    const header = els.find((e) => e.type === 'page_header')!;
    expect(header.content).toMatch(/Optimized Table Tokenization/);
    expect(header.markdown_anchor).toBe('');
    expect(page!.markdown).not.toMatch(/Optimized Table Tokenization for Table Structure Recognition/);
    expect(page!.markdown).toMatch(/^#{2,3} 5\.1 Hyper Parameter Optimization$/m);
    // Every anchor is findable in the page markdown.
    for (const e of els) if (e.markdown_anchor) expect(page!.markdown).toContain(e.markdown_anchor);
    // Reading order: section 5.1 before the table before section 5.2.
    const md = page!.markdown;
    expect(md.indexOf('5.1 Hyper')).toBeLessThan(md.indexOf('| 6 | 6 |'));
    expect(md.indexOf('| 6 | 6 |')).toBeLessThan(md.indexOf('5.2 Quantitative'));

    const table = els.find((e) => e.type === 'table')!;
    expect(table.cellsSource).toBe('projection');
    expect(table.cellGrid).toEqual({ rows: 'detected', cols: 'detected' });
    const spans = table.cells!.filter((c) => c.colSpan > 1);
    expect(spans.map((c) => c.text)).toContain('TEDs'); // merged header cell appears once
    expect(table.cells!.filter((c) => c.text === 'TEDs')).toHaveLength(1);
    expect(table.cells!.find((c) => c.text === '# enc-layers')?.isHeader).toBe(true);
    expect(table.image).toBe('imgs/p0001_table_1.jpg');
    await expect(fs.stat(path.join(out, 'imgs/p0001_table_1.jpg'))).resolves.toBeTruthy();
    expect(page!.files).toEqual(expect.arrayContaining(['pages/page_0001.png', 'imgs/p0001_table_1.jpg']));
  });

  it('parses a subset of pages and gives the same ids as a full parse', async () => {
    const full = await parsePages({
      path: CODE_FORMULA,
      kind: 'pdf',
      backend: 'text',
      outDir: out,
      renderPages: false,
    });
    const sub = await parsePages({
      path: CODE_FORMULA,
      kind: 'pdf',
      backend: 'text',
      outDir: out,
      renderPages: false,
      pageNumbers: [2],
    });
    expect(sub.pages.map((p) => p.pageNumber)).toEqual([2]);
    expect(sub.pages[0]!.grounding).toEqual(full.pages[1]!.grounding);
    expect(sub.pages[0]!.markdown).toMatch(/^## Formula/);
    expect(full.pages[0]!.markdown).toMatch(/```\nfunction add/);
    const doc = assembleDocument(
      'code_and_formula.pdf',
      'pdf',
      full.pages.map((p) => p.grounding),
      full.pages.map((p) => p.markdown),
      'text',
    );
    expect(doc.grounding.document).toMatchObject({ filename: 'code_and_formula.pdf', page_count: 2, mode: 'text' });
    expect(doc.grounding.schema_version).toBe('1.0');
    expect(doc.markdown.indexOf('JavaScript Code Example')).toBeLessThan(doc.markdown.indexOf('## Formula'));
  });

  it('detects a ruled table with exact cells', async () => {
    const res = await parsePages({ path: ICDAR_US005, kind: 'pdf', backend: 'text', outDir: out, renderPages: false });
    const table = res.pages[0]!.grounding.elements.find((e) => e.type === 'table')!;
    const cell = (r: number, c: number) => table.cells!.find((x) => x.row === r && x.col === c)?.text;
    expect(cell(0, 0)).toBe('Income level of individual or geography');
    expect(cell(1, 1)).toBe('Less than 50');
    expect(cell(4, 0)).toBe('Upper-income');
    expect(res.pages[0]!.markdown).toContain('| Low-income | Less than 50 |');
  });

  it('stops when cancelled and when a page exceeds its time limit', async () => {
    const cancelled = await parsePages({
      path: CODE_FORMULA,
      kind: 'pdf',
      backend: 'text',
      outDir: out,
      shouldCancel: () => true,
    }).catch((e: unknown) => e);
    expect(cancelled).toBeInstanceOf(ParseError);
    expect((cancelled as ParseError).code).toBe('cancelled');
    const slow = await parsePages({
      path: CODE_FORMULA,
      kind: 'pdf',
      backend: 'text',
      outDir: out,
      timeoutSeconds: 0.001,
      renderPages: false,
    }).catch((e: unknown) => e);
    expect((slow as ParseError).code).toBe('page_timeout');
    expect((slow as ParseError).pageNumber).toBe(1);
  });
});
