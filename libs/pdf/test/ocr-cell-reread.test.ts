// A scanned table's cells read again once its grid is known (cell-reread.ts, issue 12.4): a small
// table of figures printed in tiny type (a PDF made with pdf-lib, rendered by pdftoppm at a low
// resolution, as a PNG that states none) is read first at its own size; the cells are then read
// again upscaled in one Tesseract run, and the cells the first reading got wrong or missed are
// fixed without any the first reading got right being lost. The decision rule alone below.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { parsePages } from '../src';
import { chooseCellReading, isFiguresColumn, isNumber, rereadTableCells } from '../src/ocr/cell-reread';
import { toGray, writePgm, type GrayImage } from '../src/ocr/preprocess';
import { parseTsv, runTesseractTsv } from '../src/ocr/tesseract-tsv';
import { readPnm } from '../src/render/ppm';
import type { LayoutElement, TableCellModel, TextRun } from '../src/types';
import { CORPUS, tempDir } from './helpers/fixtures';
import { cellAccuracy, htmlTableCells, normCell } from '../eval/metrics';

const TRUTH = [
  ['Variable', 'Ratio', 'Range', 'Value'],
  ['Age', '0.839', '0.310-2.268', '0.716'],
  ['Male', '1.000', '0.152-1.190', '0.142'],
  ['Female', '0.426', '0.919-10.725', '0.010'],
  ['Upper', '3.140', '0.381-4.213', '0.710'],
  ['Middle', '1.267', '0.419-7.026', '0.936'],
  ['Lower', '1.716', '0.416-3.423', '0.299'],
  ['Grade', '0.381', '0.137-9.137', '0.925'],
  ['Type', '0.919', '0.096-1.514', '0.329'],
];
/** Column left edges and widths, row pitch, type size, in points (the page is 300 × 170 pt). */
const COLS = [10, 90, 150, 240];
const WIDTHS = [70, 50, 80, 50];
const PITCH = 17;
const SIZE = 9;
/** 9-pt type at 80 dpi: letters 6-7 px tall, as in a cropped journal table (first reading: half its cells). */
const DPI = 80;

/** The table as a grey image at DPI (pdf-lib → pdftoppm), with rules above and below like a journal's. */
async function tableImage(dir: string): Promise<GrayImage> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([300, 170]);
  TRUTH.forEach((row, r) =>
    row.forEach((t, c) => page.drawText(t, { x: COLS[c]!, y: 148 - r * PITCH, size: SIZE, font })),
  );
  for (const [y, thickness] of [
    [165, 0.8],
    [144, 0.5],
    [5, 0.8],
  ] as const)
    page.drawLine({ start: { x: 5, y }, end: { x: 295, y }, thickness });
  const pdf = path.join(dir, 'table.pdf');
  await fs.writeFile(pdf, await doc.save());
  execFileSync('pdftoppm', ['-r', String(DPI), '-gray', '-singlefile', pdf, path.join(dir, 'table')]);
  return toGray(await readPnm(path.join(dir, 'table.pgm')));
}

/** The grid as the table builder would give it: one cell per printed cell, in points. */
function grid(runs: TextRun[]): LayoutElement {
  const cells: TableCellModel[] = TRUTH.flatMap((row, r) =>
    row.map((_, c) => {
      const top = 170 - (148 - r * PITCH) - SIZE;
      const box = { x0: COLS[c]! - 2, x1: COLS[c]! + WIDTHS[c]!, y0: top - 3, y1: top + SIZE + 3 };
      const text = runs
        .filter(
          (w) =>
            (w.x0 + w.x1) / 2 >= box.x0 &&
            (w.x0 + w.x1) / 2 <= box.x1 &&
            (w.y0 + w.y1) / 2 >= box.y0 &&
            (w.y0 + w.y1) / 2 <= box.y1,
        )
        .map((w) => w.text)
        .join(' ');
      return { ...box, row: r, col: c, rowSpan: 1, colSpan: 1, text, isHeader: r === 0 };
    }),
  );
  return {
    type: 'table',
    text: '',
    x0: 5,
    y0: 5,
    x1: 295,
    y1: 165,
    table: {
      x0: 5,
      y0: 5,
      x1: 295,
      y1: 165,
      cells,
      rows: TRUTH.length,
      cols: 4,
      cellsSource: 'projection',
      cellGrid: { rows: 'detected', cols: 'detected' },
    },
  };
}

const right = (cells: TableCellModel[]) => cells.filter((c) => c.text === TRUTH[c.row]![c.col]).length;

describe('reading a scanned table of tiny print again cell by cell', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await tempDir('ocr-cells-');
  });
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

  it('fixes cells the first reading misread or missed, loses none it read right, keeps the boxes, in one run', async () => {
    const gray = await tableImage(tmp);
    const file = path.join(tmp, 'first.pgm');
    await writePgm(file, gray);
    const pt = 72 / DPI;
    // The first reading: the image at its own size, one block of text (as the missed-text pass reads a table).
    const runs: TextRun[] = parseTsv(await runTesseractTsv(file, { dpi: 0, lang: 'eng', psm: 6 }))
      .words.filter((w) => w.text.trim())
      .map((w) => ({
        text: w.text.trim(),
        x0: w.left * pt,
        y0: w.top * pt,
        x1: (w.left + w.width) * pt,
        y1: (w.top + w.height) * pt,
        size: SIZE,
        baseline: (w.top + w.height) * pt,
        bold: false,
        italic: false,
        mono: false,
        conf: w.conf / 100,
      }));
    const table = grid(runs);
    const before = table.table!.cells;
    const { tables, report } = await rereadTableCells({
      gray,
      pxPerPt: DPI / 72,
      tables: [table],
      runs,
      tmpDir: tmp,
      pageNumber: 1,
      lang: 'eng',
      timeoutSeconds: 60,
    });
    const after = tables[0]!.table!.cells;
    expect(report.runs).toBe(1);
    expect(right(before)).toBeLessThan(0.75 * before.length);
    expect(right(after)).toBeGreaterThanOrEqual(right(before) + 8);
    // No cell the first reading got right is lost.
    before.forEach((c, i) => {
      if (c.text === TRUTH[c.row]![c.col]) expect(after[i]!.text).toBe(c.text);
    });
    after.forEach((c, i) =>
      expect([c.x0, c.y0, c.x1, c.y1]).toEqual([before[i]!.x0, before[i]!.y0, before[i]!.x1, before[i]!.y1]),
    );
    expect(tables[0]!.text.split('\n')).toHaveLength(TRUTH.length);
  });

  it('is on by default: parsePages reads the cells of a table image again and mends its values, losing none (off when asked)', async () => {
    // A table image of the corpus (a PubTabNet crop: small print, no stated resolution).
    const crop = path.join(CORPUS, 'b_tables/pubtabnet/PMC3826085_003_00.png');
    const truth = htmlTableCells(await fs.readFile(crop.replace(/\.png$/, '.html'), 'utf8'));
    const run = async (ocrCellReread?: boolean) => {
      const outDir = await tempDir('ocr-cells-parse-');
      try {
        const r = await parsePages({
          path: crop,
          kind: 'image',
          backend: 'ocr',
          outDir,
          renderPages: false,
          ...(ocrCellReread === undefined ? {} : { ocrCellReread }),
        });
        return r.pages[0]!;
      } finally {
        await fs.rm(outDir, { recursive: true, force: true });
      }
    };
    const [on, off] = [await run(), await run(false)];
    expect(off.ocr?.cells).toBeUndefined();
    expect(on.ocr?.cells?.runs).toBe(1);
    expect(on.ocr?.cells?.cells).toBeGreaterThanOrEqual(20);
    // Zeros of this font's dotted 0 misread "o" in one column, read "0" in another: matched.
    expect(on.ocr?.cells?.matched).toBeGreaterThanOrEqual(3);
    const cellsOf = (p: typeof on) =>
      p.grounding.elements.filter((e) => e.type === 'table').flatMap((e) => e.cells ?? []);
    const score = (p: typeof on) => cellAccuracy(truth, cellsOf(p));
    const [a, b] = [score(on), score(off)];
    expect(a.correct).toBeGreaterThanOrEqual(b.correct + 4);
    // Every ground-truth cell the first reading got right is still right (same grid offset).
    expect(a.offset).toEqual(b.offset);
    const at = (p: typeof on) => new Map(cellsOf(p).map((c) => [`${c.row},${c.col}`, normCell(c.text)]));
    const [mOn, mOff] = [at(on), at(off)];
    for (const g of truth) {
      const k = `${g.row + b.offset[0]},${g.col + b.offset[1]}`;
      if (normCell(g.text) && mOff.get(k) === normCell(g.text)) expect(mOn.get(k)).toBe(normCell(g.text));
    }
  });

  it('parsePages: the ranges of a corpus table crop read with their en dash and their decimal points', async () => {
    // PMC4840965's confidence intervals ("0.310–2.268"): read "0310-2248", the dash and the points lost.
    const crop = path.join(CORPUS, 'b_tables/pubtabnet/PMC4840965_004_00.png');
    const truth = htmlTableCells(await fs.readFile(crop.replace(/\.png$/, '.html'), 'utf8'));
    const outDir = await tempDir('ocr-cells-ranges-');
    try {
      const r = await parsePages({ path: crop, kind: 'image', backend: 'ocr', outDir, renderPages: false });
      const page = r.pages[0]!;
      expect(page.ocr?.cells?.dashes).toBeGreaterThanOrEqual(5);
      const cells = page.grounding.elements.filter((e) => e.type === 'table').flatMap((e) => e.cells ?? []);
      const s = cellAccuracy(truth, cells);
      const at = new Map(cells.map((c) => [`${c.row},${c.col}`, normCell(c.text)]));
      const ranges = truth.filter((g) => g.text.includes('\u2013'));
      expect(ranges.length).toBeGreaterThanOrEqual(10);
      const right = ranges.filter((g) => at.get(`${g.row + s.offset[0]},${g.col + s.offset[1]}`) === normCell(g.text));
      expect(right.length).toBeGreaterThanOrEqual(4);
      // No range is left with a hyphen.
      expect(cells.filter((c) => /\d-\d/.test(c.text))).toEqual([]);
    } finally {
      await fs.rm(outDir, { recursive: true, force: true });
    }
    // One OCR parse of a crop: ~15 s alone, several times that beside other suites on a loaded machine.
  }, 120_000);

  it('takes a number where the column is one of figures, and keeps a text cell as first read', () => {
    const r = (text: string, conf: number) => ({ text, conf });
    // A text cell the first reading filled keeps it, whichever reading is surer.
    expect(chooseCellReading(r('Law rectum', 60), r('Low rectum', 90), false)).toBe('first');
    expect(chooseCellReading(r('Low rectum', 90), r('Law rectum', 60), false)).toBe('first');
    // In a column of figures a surer number replaces a less sure one.
    expect(chooseCellReading(r('1716', 40), r('1.716', 70), true)).toBe('again');
    expect(chooseCellReading(r('1.716', 70), r('1716', 40), true)).toBe('first');
    // A cell the first reading left empty is filled only by a reading surer than not.
    expect(chooseCellReading(r('', 0), r('9', 80), true)).toBe('again');
    expect(chooseCellReading(r('', 0), r('~', 30), true)).toBe('first');
    // Nothing read the second time: the first stays.
    expect(chooseCellReading(r('0.142', 40), r('', 0), true)).toBe('first');
    // A column of figures: a number replaces a non-number even at a lower confidence, never the reverse.
    expect(chooseCellReading(r('ag39', 70), r('0.839', 45), true)).toBe('again');
    expect(chooseCellReading(r('ag39', 70), r('0.839', 45), false)).toBe('first');
    expect(chooseCellReading(r('0.839', 40), r('a839', 90), true)).toBe('first');
    expect(chooseCellReading(r('ag39', 70), r('0.839', 20), true)).toBe('first');
  });

  it('tells figures from text, and a column of figures from one of labels', () => {
    for (const t of ['0.839', '4,131E-06', '0.310–2.268', '≤69', '>4', '12%', '(3.1)', '1.000*', '−2.5'])
      expect(isNumber(t)).toBe(true);
    for (const t of ['ag39', 'a839', 'Low rectum', 'T4a', 'G1', '95 % CI', '']) expect(isNumber(t)).toBe(false);
    const r = (text: string) => ({ text, conf: 50 });
    const figures: Array<[ReturnType<typeof r>, ReturnType<typeof r>]> = [
      [r('Hazard ratio'), r('Hazard ratio')],
      [r('1.000'), r('1.000')],
      [r('ag39'), r('0.839')],
      [r('3140'), r('3.140')],
      [r(''), r('')],
    ];
    expect(isFiguresColumn(figures)).toBe(true);
    const labels = [r('Age'), r('Male'), r('Female'), r('G1')].map((x) => [x, x] as [typeof x, typeof x]);
    expect(isFiguresColumn(labels)).toBe(false);
    // Two filled cells are no evidence either way.
    expect(
      isFiguresColumn([
        [r('1.0'), r('1.0')],
        [r('2.0'), r('2.0')],
      ]),
    ).toBe(false);
  });
});
