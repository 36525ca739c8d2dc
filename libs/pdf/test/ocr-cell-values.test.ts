// A scanned table's values mended from the table itself (issue 12.4): a value the table repeats
// and Tesseract reads well in one cell but not in another takes the text of the cell whose ink it
// matches (cell-templates.ts); a column printed to a fixed number of decimals gives back the points
// a reading of small print dropped (withColumnDecimals); and the cells are read again with the
// larger English model (tessdata-best.ts), which reads tiny print the fast one misreads.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { chooseCellReading, fixedDecimals, withColumnDecimals } from '../src/ocr/cell-reread';
import { barWidthRatio, hasRangeHyphen, withRangeDashes } from '../src/ocr/range-dash';
import { cellInk, matchTemplate } from '../src/ocr/cell-templates';
import { otsuThreshold, toGray, writePgm, type GrayImage } from '../src/ocr/preprocess';
import { parseTsv, runTesseractTsv } from '../src/ocr/tesseract-tsv';
import { bestModelDir } from '../src/ocr/tessdata-best';
import { readPnm } from '../src/render/ppm';
import { tempDir } from './helpers/fixtures';

/**
 * Values printed in 7-pt Helvetica at 72 dpi (digits 5 px tall), one per slot, slots a whole
 * number of pixels apart: the printings of one value in a column of a table, which fall on the
 * same sub-pixel phase.
 */
const VALUES = ['0', '8', '3', '0', '7', '0', '8', '3', '0', '5', '0', '8'];
const SLOT = 24;

async function valuesImage(dir: string): Promise<GrayImage> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([300, 30]);
  VALUES.forEach((v, i) => page.drawText(v, { x: 6 + i * SLOT, y: 12, size: 7, font }));
  const pdf = path.join(dir, 'values.pdf');
  await fs.writeFile(pdf, await doc.save());
  execFileSync('pdftoppm', ['-r', '72', '-gray', '-singlefile', pdf, path.join(dir, 'values')]);
  return toGray(await readPnm(path.join(dir, 'values.pgm')));
}

const slot = (i: number) => ({ x0: 6 + i * SLOT - 3, x1: 6 + i * SLOT + 9, y0: 8, y1: 22 });

describe('mending the values of a scanned table from the table itself', () => {
  let tmp: string;
  beforeAll(async () => {
    tmp = await tempDir('ocr-values-');
  });
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

  it('gives a misread cell the text of the cell of the same value, and no value it has no printing of', async () => {
    const gray = await valuesImage(tmp);
    const th = otsuThreshold(gray);
    const ink = VALUES.map((_, i) => cellInk(gray, slot(i), th)!);
    ink.forEach((c) => expect(c).toBeDefined());
    // Templates: the first printing of 0, 8 and 3 and the second 0 (read well); the others are "misread".
    const templates = [0, 1, 2, 3].map((i) => ({ text: VALUES[i]!, ink: ink[i]! }));
    for (const i of [5, 6, 7, 8, 10, 11]) expect(matchTemplate(gray, ink[i]!, templates)?.text).toBe(VALUES[i]);
    // A 7 and a 5 have no printing among the templates: they take no other value's text.
    expect(matchTemplate(gray, ink[4]!, templates)).toBeUndefined();
    expect(matchTemplate(gray, ink[9]!, templates)).toBeUndefined();
  });

  it('gives back the decimal points of a column printed to fixed decimals, and leaves other columns as read', () => {
    const hazard = ['Hazard ratio', '1.000', '0839', '1.000', '3140', '1.267', '1716', '1.933', '0381', ''];
    expect(withColumnDecimals(hazard)).toEqual([
      'Hazard ratio',
      '1.000',
      '0.839',
      '1.000',
      '3.140',
      '1.267',
      '1.716',
      '1.933',
      '0.381',
      '',
    ]);
    // Ranges: each end of the range.
    expect(withColumnDecimals(['1.190', '4.213', '0.152', '0419-7026', '0.096-1514'])).toEqual([
      '1.190',
      '4.213',
      '0.152',
      '0.419-7.026',
      '0.096-1.514',
    ]);
    // Whole numbers (counts with a mean or two among them), decimals at mixed places, a number
    // with a separator and anything not a plain number or range: as read.
    const counts = ['12', '1340', '7', '25', '2.5', '3.5', '4.5'];
    expect(withColumnDecimals(counts)).toEqual(counts);
    const mixed = ['1.5', '2.25', '0.125', '3.75', '0381'];
    expect(withColumnDecimals(mixed)).toEqual(mixed);
    const other = ['1.000', '1.267', '1.933', '8,149E-08', '12a', '32,414', '>4 cm'];
    expect(withColumnDecimals(other)).toEqual(other);
  });

  it('gives a column of ranges too few points of its own to tell the decimals of the table, when its numbers have leading zeros', () => {
    // The range column of a table whose other figures are printed to 3 decimals, read without points.
    const ranges = ['95 % CI', '0310-2248', '0919-10725', '', '0419-7026', '0137-9137', '0381-412'];
    const hazard = ['Hazard ratio', '1.000', '0.839', '1.267', '1.716', '3.140'];
    const k = fixedDecimals([...hazard, ...ranges]);
    expect(k).toBe(3);
    expect(withColumnDecimals(ranges, k)).toEqual([
      '95 % CI',
      '0.310-2.248',
      '0.919-10.725',
      '',
      '0.419-7.026',
      '0.137-9.137',
      '0.381-412',
    ]);
    // Without the table's decimals, as before: too few points to tell.
    expect(withColumnDecimals(ranges)).toEqual(ranges);
    // Ranges of whole numbers (ages, years) have no leading zeros: as read, whatever the table's decimals.
    const ages = ['Age', '20-29', '30-39', '40-49', '1990-1995'];
    expect(withColumnDecimals(ages, 3)).toEqual(ages);
    // A column whose few points disagree with the table's decimals keeps its reading.
    const other = ['0.25-0.75', '0310-2248', '0919-10725', '0419-7026'];
    expect(withColumnDecimals(other, 3)).toEqual(other);
    // Decimals at mixed places are no fixed number of them.
    expect(fixedDecimals(['1.5', '2.25', '0.125', '3.75'])).toBeUndefined();
    expect(fixedDecimals(['1.5', '2.25'])).toBeUndefined();
  });

  it("tells a range's en dash from a hyphen by the width of its bar, column by column, in small print and large", async () => {
    const RANGES = [
      '0.310-2.268',
      '0.152-1.190',
      '0.919-10.725',
      '0.381-4.213',
      '0.419-7.026',
      '0.416-3.423',
      '0.137-9.137',
    ];
    for (const fontName of [StandardFonts.Helvetica, StandardFonts.TimesRoman])
      for (const [size, dpi] of [
        [7, 72],
        [9, 80],
        [10, 150],
      ] as const) {
        const doc = await PDFDocument.create();
        const font = await doc.embedFont(fontName);
        const pitch = size * 2;
        const page = doc.addPage([260, 20 + RANGES.length * pitch]);
        const top = (i: number) => 10 + i * pitch;
        // Left column with hyphens, right column with en dashes; x at a fraction of a pixel apart.
        RANGES.forEach((t, i) => {
          const y = page.getHeight() - top(i) - size * 0.75;
          page.drawText(t, { x: 10 + i * 0.17, y, size, font });
          page.drawText(t.replace('-', '\u2013'), { x: 140 + i * 0.23, y, size, font });
        });
        const pdf = path.join(tmp, 'ranges.pdf');
        await fs.writeFile(pdf, await doc.save());
        execFileSync('pdftoppm', ['-r', String(dpi), '-gray', '-singlefile', pdf, path.join(tmp, 'ranges')]);
        const gray = toGray(await readPnm(path.join(tmp, 'ranges.pgm')));
        const s = dpi / 72;
        const column = (x0: number) => {
          const ratios = RANGES.map((_, i) =>
            barWidthRatio(gray, {
              x0: x0 * s,
              x1: (x0 + 115) * s,
              y0: (top(i) - 0.3 * size) * s,
              y1: (top(i) + size) * s,
            }),
          );
          // Tesseract reads both dashes "-" in small print.
          return withRangeDashes(RANGES, ratios);
        };
        const label = `${fontName} ${size} pt at ${dpi} dpi`;
        expect([label, column(5)]).toEqual([label, RANGES]);
        expect([label, column(135)]).toEqual([label, RANGES.map((t) => t.replace('-', '\u2013'))]);
      }
    // Only a dash between two digits: an exponent's sign and a word's hyphen stay.
    expect(withRangeDashes(['1,2E-03', '0.3-0.5', 'X-ray'], [0.8, 0.8, 0.8])).toEqual([
      '1,2E-03',
      '0.3\u20130.5',
      'X-ray',
    ]);
    expect(hasRangeHyphen('0.3 - 0.5')).toBe(true);
    // Nothing measured: as read.
    expect(withRangeDashes(['0.3-0.5'], [undefined])).toEqual(['0.3-0.5']);
  });

  it('keeps the first reading of a text cell, however sure the second', () => {
    const r = (text: string, conf: number) => ({ text, conf });
    expect(chooseCellReading(r('Tumor location', 26), r('Turmar location', 88), false)).toBe('first');
    expect(chooseCellReading(r('', 0), r('Total', 80), false)).toBe('again');
    // A column of figures still takes a surer number.
    expect(chooseCellReading(r('1716', 40), r('1.716', 70), true)).toBe('again');
  });

  it('reads with the best English model from its npm package (unpacked once), and with none for another language', async () => {
    const dir = await bestModelDir('eng');
    expect(dir).toBeDefined();
    expect((await fs.stat(path.join(dir!, 'eng.traineddata'))).size).toBeGreaterThan(4_000_000);
    expect(await bestModelDir('eng')).toBe(dir);
    expect(await bestModelDir('ara')).toBeUndefined();
    // The model reads: a line of text at a readable size, through the same TSV run as the system's.
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.addPage([300, 40]).drawText('Tumor location 0.839', { x: 10, y: 15, size: 14, font });
    const pdf = path.join(tmp, 'line.pdf');
    await fs.writeFile(pdf, await doc.save());
    execFileSync('pdftoppm', ['-r', '150', '-gray', '-singlefile', pdf, path.join(tmp, 'line')]);
    const file = path.join(tmp, 'line-read.pgm');
    await writePgm(file, toGray(await readPnm(path.join(tmp, 'line.pgm'))));
    const tsv = await runTesseractTsv(file, { dpi: 150, lang: 'eng', psm: 7, tessdataDir: dir });
    expect(
      parseTsv(tsv)
        .words.map((w) => w.text.trim())
        .filter(Boolean)
        .join(' '),
    ).toBe('Tumor location 0.839');
    await expect(runTesseractTsv(file, { dpi: 150, lang: 'eng', psm: 7, tessdataDir: 'relative/dir' })).rejects.toThrow(
      /unsafe path/,
    );
  });
});
