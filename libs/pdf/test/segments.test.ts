import fs from 'node:fs/promises';
import type { GroundingDocument } from '@docfleet/contracts';
import { assembleDocument, parsePages, segmentsFromGrounding } from '../src';
import { BORN_DIGITAL, tempDir } from './helpers/fixtures';

describe('segmentsFromGrounding', () => {
  let grounding: GroundingDocument;
  beforeAll(async () => {
    const out = await tempDir('pdf-seg-');
    const res = await parsePages({ path: BORN_DIGITAL, kind: 'pdf', backend: 'text', outDir: out, renderPages: false });
    grounding = assembleDocument(
      'paper.pdf',
      'pdf',
      res.pages.map((p) => p.grounding),
      res.pages.map((p) => p.markdown),
      'text',
    ).grounding;
    await fs.rm(out, { recursive: true, force: true });
  });

  const ctx = {
    fileId: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    docName: 'paper.pdf',
    manifestId: 'm1',
    sourceType: 'pdf',
  };

  it('emits citable segments with 0-1000 integer coordinates and drops elements without markdown', () => {
    const segs = segmentsFromGrounding(grounding, ctx);
    const elements = grounding.pages[0]!.elements;
    const ids = new Set(elements.map((e) => e.id));
    expect(segs.length).toBeGreaterThan(3);
    for (const s of segs) {
      expect(ids.has(s.id)).toBe(true);
      expect(s.markdown.trim()).not.toBe('');
      expect(s.docId).toBe(ctx.fileId);
      expect(s.pdfUrl).toBe('/v1/artifacts/m1/pages?file=page_0001.png');
      const c = s.coordinates as { pageNumber: number; xmin: number; ymin: number; xmax: number; ymax: number };
      expect(c.pageNumber).toBe(1);
      for (const v of [c.xmin, c.ymin, c.xmax, c.ymax]) {
        expect(Number.isInteger(v)).toBe(true);
        expect(v).toBeGreaterThanOrEqual(0);
        expect(v).toBeLessThanOrEqual(1000);
      }
      expect(c.xmin).toBeLessThan(c.xmax);
    }
    const header = elements.find((e) => e.type === 'page_header')!;
    expect(segs.some((s) => s.elementIds?.includes(header.id))).toBe(false);
    const el = elements.find((e) => e.id === segs[0]!.id)!;
    expect(segs[0]!.coordinates).toMatchObject({
      xmin: Math.round(el.bbox.x1 * 1000),
      ymax: Math.round(el.bbox.y2 * 1000),
    });
  });

  it('carries table cells and metadata on table segments', () => {
    const table = segmentsFromGrounding(grounding, ctx).find((s) => s.cells)!;
    expect(table.cellsSource).toBe('projection');
    expect(table.cellGrid).toEqual({ rows: 'detected', cols: 'detected' });
    expect(table.tableMetadata?.isTable).toBe(true);
    expect(table.tableMetadata?.headers).toEqual(expect.arrayContaining(['# enc-layers', 'Language', 'TEDs']));
    expect(table.tableMetadata?.rowLabels?.length).toBeGreaterThanOrEqual(4);
    expect(table.markdown).toMatch(/^\| # enc-layers/);
  });

  it('titles segments by their heading and is deterministic', () => {
    const a = segmentsFromGrounding(grounding, ctx);
    expect(a).toEqual(segmentsFromGrounding(grounding, ctx));
    const para = a.find((s) => s.markdown.startsWith('We have chosen the PubTabNet'))!;
    expect(para.title).toBe('5.1 Hyper Parameter Optimization');
    const unmerged = segmentsFromGrounding(grounding, { ...ctx, mergeShortTextUpTo: 0 });
    expect(unmerged.length).toBeGreaterThanOrEqual(a.length);
  });
});
