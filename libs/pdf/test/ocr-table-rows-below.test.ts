// The last rows of a scanned table (table-rows-below.ts, issue 12.4): a row under the rule that
// closes a table's body, or one whose figures Tesseract left unread, is a row of the table when its
// ink falls in two or more of the table's columns without crossing a boundary between them; a
// note under the table (a sentence across the columns) or a label alone is not. Through the parse
// of a corpus crop, the "Total" row under its rule becomes the table's last row.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { PDFDocument, StandardFonts, type PDFFont } from 'pdf-lib';
import { parsePages } from '../src';
import { otsuThreshold, toGray, type GrayImage } from '../src/ocr/preprocess';
import { filledColumns, tablesWithRowsBelow, withRowsBelow } from '../src/ocr/table-rows-below';
import { readPnm } from '../src/render/ppm';
import type { LayoutElement, TableCellModel, TextRun } from '../src/types';
import { CORPUS, tempDir } from './helpers/fixtures';
import { cellAccuracy, htmlTableCells } from '../eval/metrics';

const BODY = [
  ['Language', 'Early', 'Late', 'Total'],
  ['Cantonese', '21', '9', '38'],
  ['Mandarin', '3', '9', '13'],
  ['Arabic', '1', '0', '1'],
  ['Korean', '1', '2', '3'],
];
/** Column left edges, row pitch, type size, in points (the page is 300 × 190 pt, y from the top). */
const COLS = [10, 110, 170, 230];
const PITCH = 16;
const SIZE = 9;
const DPI = 144;
const PAGE_H = 190;
/** Top of row r (points from the top of the page); the rows under the body come after a rule. */
const rowTop = (r: number) => 10 + r * PITCH + (r >= BODY.length ? 8 : 0);

interface Printed {
  text: string;
  x: number;
  top: number;
}

/** The page (pdf-lib → pdftoppm, grey) with the given texts, a rule under the body, and the runs of the texts read. */
async function page(dir: string, extra: Printed[], read: (p: Printed) => boolean) {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const pg = doc.addPage([300, PAGE_H]);
  const printed: Printed[] = [
    ...BODY.flatMap((row, r) => row.map((text, c) => ({ text, x: COLS[c]!, top: rowTop(r) }))),
    ...extra,
  ];
  for (const p of printed) pg.drawText(p.text, { x: p.x, y: PAGE_H - p.top - SIZE * 0.75, size: SIZE, font });
  const ruleY = rowTop(BODY.length) - 6;
  pg.drawLine({ start: { x: 5, y: PAGE_H - ruleY }, end: { x: 295, y: PAGE_H - ruleY }, thickness: 0.6 });
  const pdf = path.join(dir, 'rows.pdf');
  await fs.writeFile(pdf, await doc.save());
  execFileSync('pdftoppm', ['-r', String(DPI), '-gray', '-singlefile', pdf, path.join(dir, 'rows')]);
  const gray = toGray(await readPnm(path.join(dir, 'rows.pgm')));
  const runs = printed.filter(read).flatMap((p) => wordRuns(p, font));
  return { gray, runs };
}

/** One run per word of a printed text, boxed as Tesseract boxes words (the em's upper 0.75, in points). */
function wordRuns(p: Printed, font: PDFFont): TextRun[] {
  const out: TextRun[] = [];
  let x = p.x;
  for (const w of p.text.split(' ')) {
    const width = font.widthOfTextAtSize(w, SIZE);
    out.push({
      text: w,
      x0: x,
      x1: x + width,
      y0: p.top,
      y1: p.top + SIZE * 0.75,
      size: SIZE,
      baseline: p.top + SIZE * 0.75,
      bold: false,
      italic: false,
      mono: false,
      conf: 0.9,
    });
    x += width + font.widthOfTextAtSize(' ', SIZE);
  }
  return out;
}

/** The body as the table builder gives it: one cell per printed cell, columns edge to edge. */
function bodyTable(runs: TextRun[]): LayoutElement {
  const edges = [5, COLS[1]! - 5, COLS[2]! - 5, COLS[3]! - 5, 295];
  const cells: TableCellModel[] = BODY.flatMap((row, r) =>
    row.map((_, c) => {
      const box = { x0: edges[c]!, x1: edges[c + 1]!, y0: rowTop(r), y1: rowTop(r) + SIZE * 0.75 };
      const text = runs
        .filter((w) => (w.x0 + w.x1) / 2 >= box.x0 && (w.x0 + w.x1) / 2 < box.x1 && w.y0 === box.y0)
        .map((w) => w.text)
        .join(' ');
      return { ...box, row: r, col: c, rowSpan: 1, colSpan: 1, text, isHeader: r === 0 };
    }),
  );
  const box = { x0: 5, y0: rowTop(0), x1: 295, y1: rowTop(BODY.length - 1) + SIZE * 0.75 };
  return {
    type: 'table',
    text: '',
    ...box,
    table: {
      ...box,
      cells,
      rows: BODY.length,
      cols: 4,
      cellsSource: 'projection',
      cellGrid: { rows: 'detected', cols: 'detected' },
    },
  };
}

const rowTexts = (el: LayoutElement, r: number) =>
  el
    .table!.cells.filter((c) => c.row === r)
    .sort((a, b) => a.col - b.col)
    .map((c) => c.text);

describe('the last rows of a scanned table', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await tempDir('ocr-rows-below-');
  });
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

  const total = (r: number, texts = ['Total', '26', '20', '55']): Printed[] =>
    texts.map((text, c) => ({ text, x: COLS[c]!, top: rowTop(r) }));

  it('takes a row under the closing rule that fills the columns, with the words read in each cell', async () => {
    const { gray, runs } = await page(tmp, total(BODY.length), () => true);
    const [el] = tablesWithRowsBelow({ gray, pxPerPt: DPI / 72, tables: [bodyTable(runs)], runs });
    expect(el!.table!.rows).toBe(BODY.length + 1);
    expect(rowTexts(el!, BODY.length)).toEqual(['Total', '26', '20', '55']);
    expect(el!.y1).toBeGreaterThan(rowTop(BODY.length));
    expect(el!.text.split('\n').pop()).toBe('Total | 26 | 20 | 55');
  });

  it('takes a row whose figures were left unread (their ink in the columns), their cells empty for the re-read', async () => {
    // Two rows under the body; of each only the label was read.
    const extra = [...total(BODY.length), ...total(BODY.length + 1, ['Other', '2', '1', '3'])];
    const { gray, runs } = await page(tmp, extra, (p) => p.top < rowTop(BODY.length) || p.x === COLS[0]);
    const el = withRowsBelow(bodyTable(runs), runs, gray, DPI / 72, otsuThreshold(gray));
    expect(el.table!.rows).toBe(BODY.length + 2);
    expect(rowTexts(el, BODY.length)).toEqual(['Total', '', '', '']);
    expect(rowTexts(el, BODY.length + 1)).toEqual(['Other', '', '', '']);
  });

  it('leaves out a note under the table, a label alone, and a row that does not follow the table', async () => {
    const note: Printed = {
      text: 'Values are the counts of the children in each group',
      x: 10,
      top: rowTop(BODY.length),
    };
    // Two notes side by side, the second across a column boundary.
    const notes: Printed[] = [
      { text: 'a Counts', x: 10, top: rowTop(BODY.length) },
      { text: 'b Per hundred children', x: 150, top: rowTop(BODY.length) },
    ];
    const alone: Printed = { text: 'n = 80', x: 10, top: rowTop(BODY.length) };
    const far = total(BODY.length + 3);
    for (const extra of [[note], notes, [alone], far]) {
      const { gray, runs } = await page(tmp, extra, () => true);
      const table = bodyTable(runs);
      const el = withRowsBelow(table, runs, gray, DPI / 72, otsuThreshold(gray));
      expect(el).toBe(table);
    }
  });

  it('fills a column only with a phrase that stays inside it', () => {
    const edges = [0, 100, 160, 220, 290];
    expect([
      ...filledColumns(
        [
          { x0: 5, x1: 40 },
          { x0: 120, x1: 130 },
        ],
        edges,
        2,
      )!,
    ]).toEqual([0, 1]);
    expect(filledColumns([{ x0: 5, x1: 140 }], edges, 2)).toBeUndefined();
    // A phrase ending just past a boundary (within the slack) stays in its column.
    expect([...filledColumns([{ x0: 5, x1: 101 }], edges, 2)!]).toEqual([0]);
  });

  it('parsePages: the total row under the rule of a corpus table crop is the table last row', async () => {
    const crop = path.join(CORPUS, 'b_tables/pubtabnet/PMC3826085_003_00.png');
    const truth = htmlTableCells(await fs.readFile(crop.replace(/\.png$/, '.html'), 'utf8'));
    const outDir = await tempDir('ocr-rows-below-parse-');
    try {
      const r = await parsePages({ path: crop, kind: 'image', backend: 'ocr', outDir, renderPages: false });
      const tables = r.pages[0]!.grounding.elements.filter((e) => e.type === 'table');
      expect(tables).toHaveLength(1);
      const cells = tables[0]!.cells ?? [];
      const last = Math.max(...truth.map((c) => c.row));
      const s = cellAccuracy(truth, cells);
      const at = new Map(cells.map((c) => [`${c.row},${c.col}`, c.text]));
      const totalRow = truth.filter((g) => g.row === last && g.text);
      expect(totalRow.map((g) => g.text)).toEqual(['Total', '20', '30', '30', '80']);
      // The row's label and at least three of its four figures are read in their cells.
      const right = totalRow.filter((g) => at.get(`${g.row + s.offset[0]},${g.col + s.offset[1]}`) === g.text);
      expect(right.length).toBeGreaterThanOrEqual(4);
      // Nothing of it is left as a line of text under the table.
      expect(r.pages[0]!.markdown).not.toMatch(/^Total\b/m);
    } finally {
      await fs.rm(outDir, { recursive: true, force: true });
    }
    // One OCR parse of a crop: ~15 s alone, several times that beside other suites on a loaded machine.
  }, 120_000);
});
