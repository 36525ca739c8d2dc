// Sideways pages (issue 21.6): corpus pages made into rotated variants with pdf-lib, of both kinds
// (a /Rotate entry, and upright pages whose content is printed sideways) in both directions, are
// parsed and held against their upright originals: the text read in its own direction (within 1
// point of the original's), the tables found and structured (cell accuracy against ICDAR-2013
// within 0.02 of the original's), and the grounding boxes on the page as displayed (the original's
// boxes turned the way the page is turned).
import fs from 'node:fs/promises';
import path from 'node:path';
import { PDFDocument, degrees } from 'pdf-lib';
import type { FractionBox, GroundingDocument } from '@docfleet/contracts';
import { libraryParse } from '../eval/library-parse';
import { parseIcdarStructure } from '../eval/metrics/icdar-xml';
import { cellAccuracy } from '../eval/metrics/table-accuracy';
import { groundingPlainText, textScore } from '../eval/text-eval';
import { corpus, tempDir } from './helpers/fixtures';

jest.setTimeout(240_000);

type Fx = (b: FractionBox) => FractionBox;
interface Variant {
  name: string;
  make: (src: PDFDocument, page: number) => Promise<PDFDocument>;
  /** Where a box of the upright page lands on the displayed variant (fractions, top-left origin). */
  turn: Fx;
}

const box = (x1: number, y1: number, x2: number, y2: number): FractionBox => ({
  x1: Math.min(x1, x2),
  y1: Math.min(y1, y2),
  x2: Math.max(x1, x2),
  y2: Math.max(y1, y2),
});
// Displayed clockwise by 90°: (x, y) → (1 − y, x); counter-clockwise: (x, y) → (y, 1 − x).
const cw: Fx = (b) => box(1 - b.y1, b.x1, 1 - b.y2, b.x2);
const ccw: Fx = (b) => box(b.y1, 1 - b.x1, b.y2, 1 - b.x2);
const half: Fx = (b) => box(1 - b.x1, 1 - b.y1, 1 - b.x2, 1 - b.y2);

async function copied(src: PDFDocument, page: number): Promise<PDFDocument> {
  const out = await PDFDocument.create();
  const [p] = await out.copyPages(src, [page - 1]);
  out.addPage(p!);
  return out;
}
const withRotate = (deg: number) => async (src: PDFDocument, page: number) => {
  const out = await copied(src, page);
  out.getPage(0).setRotation(degrees(deg));
  return out;
};
/** An upright page (no /Rotate) with the original's content drawn turned by ±90°. */
const printedSideways = (ccwTurn: boolean) => async (src: PDFDocument, page: number) => {
  const out = await PDFDocument.create();
  const original = src.getPage(page - 1);
  const embedded = await out.embedPage(original);
  const { width: w, height: h } = embedded;
  const p = out.addPage([h, w]);
  // pdf-lib turns counter-clockwise about (x, y) in PDF space (y up).
  if (ccwTurn) p.drawPage(embedded, { x: h, y: 0, rotate: degrees(90) });
  else p.drawPage(embedded, { x: 0, y: w, rotate: degrees(-90) });
  return out;
};

const VARIANTS: Variant[] = [
  { name: '/Rotate 90', make: withRotate(90), turn: cw },
  { name: '/Rotate 270', make: withRotate(270), turn: ccw },
  { name: '/Rotate 180', make: withRotate(180), turn: half },
  { name: 'printed sideways, turned counter-clockwise', make: printedSideways(true), turn: ccw },
  { name: 'printed sideways, turned clockwise', make: printedSideways(false), turn: cw },
];

async function parseVariant(src: PDFDocument, page: number, v: Variant | undefined, dir: string) {
  const doc = v ? await v.make(src, page) : await copied(src, page);
  const file = path.join(dir, `${(v?.name ?? 'upright').replace(/\W+/g, '-')}.pdf`);
  await fs.writeFile(file, await doc.save());
  return (await libraryParse(file, 'pdf', 'text')).grounding;
}

const tablesOf = (g: GroundingDocument) => g.pages[0]!.elements.filter((e) => e.type === 'table' && e.cells);

function near(a: FractionBox, b: FractionBox, tol = 0.01): boolean {
  return (
    Math.abs(a.x1 - b.x1) <= tol &&
    Math.abs(a.y1 - b.y1) <= tol &&
    Math.abs(a.x2 - b.x2) <= tol &&
    Math.abs(a.y2 - b.y2) <= tol
  );
}

describe('rotated variants of corpus pages read like their upright originals', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await tempDir('rotated-');
  });
  afterAll(() => fs.rm(dir, { recursive: true, force: true }));

  // Two-column paper page under a full-width abstract: columns must be found in the turned frame.
  describe('a_born_digital/pypdf-bench/2201.00201.pdf page 1', () => {
    let src: PDFDocument;
    let upright: GroundingDocument;
    beforeAll(async () => {
      src = await PDFDocument.load(await fs.readFile(corpus('a_born_digital/pypdf-bench/2201.00201.pdf')));
      upright = await parseVariant(src, 1, undefined, dir);
    });
    it.each(VARIANTS.map((v) => [v.name, v] as const))('%s', async (_, v) => {
      const g = await parseVariant(src, 1, v, dir);
      const text = groundingPlainText(g),
        ref = groundingPlainText(upright);
      expect(ref.length).toBeGreaterThan(3000);
      expect(textScore(text, ref)).toBeGreaterThanOrEqual(99);
      // Elements lie where the original's lie once the page is turned.
      const els = g.pages[0]!.elements,
        orig = upright.pages[0]!.elements;
      expect(els.length).toBe(orig.length);
      const placed = orig.filter((o) => els.some((e) => e.type === o.type && near(e.bbox, v.turn(o.bbox))));
      expect(placed.length).toBeGreaterThanOrEqual(0.9 * orig.length);
    });
  });

  // Tables: ruled (us-012) and unruled (eu-005) ICDAR-2013 pages, scored against the competition's cells.
  describe.each(['b_tables/icdar2013/us-012', 'b_tables/icdar2013/eu-005'])('%s', (base) => {
    let src: PDFDocument;
    let gt: ReturnType<typeof parseIcdarStructure>[number];
    let upright: GroundingDocument;
    const best = (g: GroundingDocument) => {
      let top = { accuracy: 0, bbox: undefined as FractionBox | undefined };
      for (const t of tablesOf(g)) {
        const a = cellAccuracy(gt.cells, t.cells!).accuracy;
        if (a >= top.accuracy) top = { accuracy: a, bbox: t.bbox };
      }
      return top;
    };
    beforeAll(async () => {
      src = await PDFDocument.load(await fs.readFile(corpus(`${base}.pdf`)));
      gt = parseIcdarStructure(await fs.readFile(corpus(`${base}-str.xml`), 'utf8'))[0]!;
      upright = await parseVariant(src, gt.page, undefined, dir);
    });
    it.each(VARIANTS.map((v) => [v.name, v] as const))('%s', async (_, v) => {
      const g = await parseVariant(src, gt.page, v, dir);
      const a = best(g),
        o = best(upright);
      expect(o.accuracy).toBeGreaterThanOrEqual(0.8);
      expect(a.accuracy).toBeGreaterThanOrEqual(o.accuracy - 0.02);
      expect(near(a.bbox!, v.turn(o.bbox!))).toBe(true);
      expect(textScore(groundingPlainText(g), groundingPlainText(upright))).toBeGreaterThanOrEqual(99);
      expect(tablesOf(g).length).toBe(tablesOf(upright).length);
    });
  });
});
