// OCR keeps a trustworthy text layer (issue 21.7): a PDF page read with backend "ocr" takes its
// text layer's characters for the words the layer overlaps when the layer agrees with OCR, and
// ignores a layer that says something else than the page shows (invisible text over the image).
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';
import { parsePages } from '../src';
import { layerLeadsPage, layerReadsPage, takeTextLayer, textLayerEvent } from '../src/ocr/text-layer-words';
import type { TextRun } from '../src/types';
import { corpus, tempDir, writeTemp } from './helpers/fixtures';
import { groundingPlainText, textScore } from '../eval/text-eval';
import { parseIcdarStructure } from '../eval/metrics/icdar-xml';
import { cellAccuracy } from '../eval/metrics/table-accuracy';

jest.setTimeout(180_000);

const LINES = [
  'Order reference 2012_2 was shipped on 14.03.2021 to the depot.',
  'Identifiers: l1Il|O0o and rnrn-mm; e-mail ops@example.org.',
  'The third line of ordinary prose keeps the page long enough for OCR.',
  'A fourth line with numbers 11,062.6 and 0.99 and a URL www.example.org/a_b.',
];
const HIDDEN = [
  'Zebra quantum jukebox vexed fjord nymphs with a waltz of glyphs today.',
  'Nothing here is what the page shows; a broken layer under the image.',
  'Invisible words keep their places yet say something else entirely.',
  'Five hexing wizard bots jump quickly over the lazy brown dogs again.',
];

/** Two columns of prose, ten lines each. */
const COLUMNS = [
  [
    'The northern depot keeps its own ledger',
    'of every wagon that passes the yard gate,',
    'with the hour, the load and the driver.',
    'Clerks copy the ledger into the register',
    'each evening, and the register is sent',
    'to the head office at the end of a week.',
    'Errors found there are marked in red ink',
    'and returned to the depot for correction,',
    'which the clerks make before the next',
    'register leaves the yard on Monday.',
  ],
  [
    'Wagons that wait longer than two days',
    'are listed apart, with the reason given',
    'by the yard master, and the list is read',
    'at the monthly meeting of the managers.',
    'Most delays come from missing papers or',
    'from repairs to the couplings and brakes;',
    'a few come from weather on the pass road.',
    'The managers decide whether a delay is',
    'charged to the sender or to the railway,',
    'and their decision is entered in the book.',
  ],
];

async function pdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  LINES.forEach((line, i) => page.drawText(line, { x: 72, y: 720 - i * 24, size: 12, font }));
  return doc.save();
}

/** A scan of `visible` (its page as a 150-dpi image) under an invisible text layer saying HIDDEN. */
async function scanWithWrongLayer(visible: string): Promise<Uint8Array> {
  const base = visible.replace(/\.pdf$/, '-scan');
  await promisify(execFile)('pdftoppm', ['-png', '-r', '150', '-singlefile', visible, base]);
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  page.drawImage(await doc.embedPng(await fs.readFile(`${base}.png`)), { x: 0, y: 0, width: 612, height: 792 });
  HIDDEN.forEach((line, i) => page.drawText(line, { x: 72, y: 720 - i * 24, size: 12, font, opacity: 0 }));
  return doc.save();
}

// Seven-segment digits as stroked straight lines: a chart's tick labels set as outlines, which OCR
// reads and the text layer does not hold.
const SEGMENTS: Record<string, string> = {
  '0': 'abcdef',
  '1': 'bc',
  '2': 'abged',
  '3': 'abgcd',
  '4': 'fgbc',
  '5': 'afgcd',
  '6': 'afgedc',
  '7': 'abc',
  '8': 'abcdefg',
  '9': 'abcdfg',
};
function outlinedDigits(s: string, w = 6, h = 11): string {
  const seg: Record<string, [number, number, number, number]> = {
    a: [0, 0, w, 0],
    b: [w, 0, w, h / 2],
    c: [w, h / 2, w, h],
    d: [0, h, w, h],
    e: [0, h / 2, 0, h],
    f: [0, 0, 0, h / 2],
    g: [0, h / 2, w, h / 2],
  };
  return [...s]
    .flatMap((ch, i) =>
      [...SEGMENTS[ch]!].map((k) => {
        const [x0, y0, x1, y1] = seg[k]!;
        return `M ${x0 + i * (w + 3)} ${y0} L ${x1 + i * (w + 3)} ${y1}`;
      }),
    )
    .join(' ');
}

/**
 * LINES above a vector chart drawn as an included PDF chart often is: axes with tick marks, a
 * spectrum in straight steps (no curve, no diagonal) and tick labels as outlines, under a caption.
 */
async function vectorChartPdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([612, 792]);
  LINES.forEach((line, i) => page.drawText(line, { x: 72, y: 720 - i * 24, size: 12, font }));
  const [x0, y0, x1, y1] = [120, 330, 500, 580];
  const ink = { color: rgb(0, 0, 0) };
  page.drawLine({ start: { x: x0, y: y0 }, end: { x: x1, y: y0 }, thickness: 0.8, ...ink });
  page.drawLine({ start: { x: x0, y: y0 }, end: { x: x0, y: y1 }, thickness: 0.8, ...ink });
  for (let i = 0; i <= 7; i++) {
    const x = x0 + i * 50;
    page.drawLine({ start: { x, y: y0 }, end: { x, y: y0 + 4 }, thickness: 0.6, ...ink });
    page.drawSvgPath(outlinedDigits(String(i * 10)), {
      x: x - 6,
      y: y0 - 8,
      borderColor: rgb(0, 0, 0),
      borderWidth: 1.2,
    });
  }
  for (let j = 0; j <= 5; j++) {
    const y = y0 + j * 50;
    page.drawLine({ start: { x: x0, y }, end: { x: x0 + 4, y }, thickness: 0.6, ...ink });
    page.drawSvgPath(outlinedDigits(String(j * 20)), {
      x: x0 - 30,
      y: y + 5,
      borderColor: rgb(0, 0, 0),
      borderWidth: 1.2,
    });
  }
  let steps = 'M 0 0';
  for (let s = 0; s < 60; s++) {
    const level = Math.round(80 * Math.abs(Math.sin(s / 5)) + 10 * Math.sin(s * 1.7));
    steps += ` L ${s * 6} ${-level} L ${(s + 1) * 6} ${-level}`;
  }
  page.drawSvgPath(steps, { x: x0 + 10, y: y0 + 20, borderColor: rgb(0, 0, 0), borderWidth: 0.7 });
  page.drawText('Figure 1: Flux density against velocity in the two epochs.', { x: 120, y: 300, size: 10, font });
  return doc.save();
}

const PROPORTIONS = ['0.99', '0.95', '0.90', '0.85', '0.80', '0.75', '0.70', '0.65', '0.60', '0.55', '0.50'];

/** A typewritten table (Courier) whose row labels run into dot leaders, as in a survey report. */
async function leaderTablePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Courier);
  const page = doc.addPage([612, 792]);
  const size = 12;
  page.drawText('Table 1. Recommended sample sizes for analyses of survey data,', { x: 72, y: 720, size, font });
  page.drawText('by design effect and specified proportion', { x: 72, y: 720 - size * 1.3, size, font });
  page.drawText('   Proportion            1.0   1.1   1.2   1.3   1.4   1.5   1.6', { x: 72, y: 690, size, font });
  page.drawText('-'.repeat(64), { x: 72, y: 690 - size * 1.2, size, font });
  PROPORTIONS.forEach((r, i) => {
    const v = (m: number) => String(Math.round((800 * (1 - Number(r)) + 30) * m)).padStart(6);
    const row = `${r} ${'.'.repeat(17)} ${[1, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6].map(v).join('')}`;
    page.drawText(row, { x: 72, y: 690 - size * 2.5 - i * size * 1.25, size, font });
  });
  return doc.save();
}

describe('OCR and the page text layer', () => {
  let out: string;
  beforeAll(async () => {
    out = await tempDir('ocr-layer-');
  });
  afterAll(() => fs.rm(out, { recursive: true, force: true }));

  it('takes the characters of an agreeing text layer and says so', async () => {
    const file = await writeTemp(out, 'agree.pdf', await pdf());
    const res = await parsePages({ path: file, kind: 'pdf', backend: 'ocr', outDir: out, renderPages: false });
    const p = res.pages[0]!;
    expect(p.textLayer?.used).toBe(true);
    expect(p.textLayer!.agreement).toBeGreaterThanOrEqual(0.8);
    // The layer holds every word OCR read: the page is laid out from it, as the text backend lays it out.
    expect(layerReadsPage(p.textLayer)).toBe(true);
    expect(p.source).toBe('text');
    const text = p.markdown.replace(/\\/g, '');
    for (const line of LINES) expect(text).toContain(line);
    expect(textLayerEvent(1, p.textLayer!).payload).toMatchObject({ page_number: 1, source: 'text_layer' });
  });

  it('matches layer words to OCR words by position, and ignores a layer that disagrees', () => {
    const run = (text: string, x0: number, x1: number, y0 = 100): TextRun => ({
      text,
      x0,
      x1,
      y0,
      y1: y0 + 12,
      size: 12,
      baseline: y0 + 10,
      bold: false,
      italic: false,
      mono: false,
    });
    // OCR words in 300-dpi pixels (k = 72 / 300).
    const k = 72 / 300;
    const px = (x: number) => x / k;
    const ocr = [
      { text: '2012.2', x0: px(72), x1: px(110), y0: px(100), y1: px(112) },
      { text: 'shipped', x0: px(114), x1: px(160), y0: px(100), y1: px(112) },
      { text: 'alone', x0: px(300), x1: px(330), y0: px(100), y1: px(112) },
    ];
    const agreeing = takeTextLayer(ocr, k, [run('2012_2 shipped', 72, 160)]);
    expect(agreeing.use).toMatchObject({ used: true, overlapped: 2, replaced: 1, dropped: 0 });
    expect(agreeing.items.map((w) => w.text)).toEqual(['2012_2', 'shipped', 'alone']);
    // A rule OCR read as "|" where no layer word is: a mark, left out under an agreeing layer only.
    const rule = { text: '|', x0: px(200), x1: px(202), y0: px(96), y1: px(130) };
    const withRule = takeTextLayer([...ocr, rule], k, [run('2012_2 shipped', 72, 160)]);
    expect(withRule.items.map((w) => w.text)).toEqual(['2012_2', 'shipped', 'alone']);
    expect(withRule.use.dropped).toBe(1);
    expect(takeTextLayer([...ocr, rule], k, []).items.map((w) => w.text)).toContain('|');
    // A word OCR read as two is written once.
    const split = [
      { text: '2012.', x0: px(72), x1: px(100), y0: px(100), y1: px(112) },
      { text: '2', x0: px(102), x1: px(110), y0: px(100), y1: px(112) },
      ocr[1]!,
    ];
    expect(takeTextLayer(split, k, [run('2012_2 shipped', 72, 160)]).items.map((w) => w.text)).toEqual([
      '2012_2',
      'shipped',
    ]);
    // A column head the layer runs sideways, OCR reads across it as garble: the layer holds it.
    const turned = { ...run('Revenue', 300, 312, 60), y1: 110, rotated: true };
    const garble = { text: 'Qa}', x0: px(302), x1: px(310), y0: px(80), y1: px(90) };
    expect(takeTextLayer([...ocr, garble], k, [run('2012_2 shipped', 72, 160), turned]).use).toMatchObject({
      words: 4,
      covered: 3,
    });
    // A table of contents: OCR reads a few of a leader's many dots; letters and digits decide agreement.
    const toc = [
      { text: 'Metrische', x0: px(72), x1: px(120), y0: px(100), y1: px(112) },
      { text: 'Räume', x0: px(124), x1: px(156), y0: px(100), y1: px(112) },
      { text: '...', x0: px(170), x1: px(190), y0: px(108), y1: px(112) },
      { text: '6', x0: px(400), x1: px(406), y0: px(100), y1: px(112) },
    ];
    const leaders = takeTextLayer(toc, k, [run(`Metrische Räume${' .'.repeat(40)}`, 72, 390), run('6', 400, 406)]);
    expect(leaders.use).toMatchObject({ used: true, agreement: 1, covered: 3, words: 3 });
    // A row of leader dots Tesseract reads as letters ("cece eee"): those letters say nothing about
    // the layer's, which agrees with every other character; a layer whose figures beside the same
    // leaders differ from the page's still disagrees.
    const row = [
      { text: '0.95', x0: px(72), x1: px(96), y0: px(100), y1: px(112) },
      { text: '.', x0: px(100), x1: px(104), y0: px(108), y1: px(112) },
      { text: 'eee', x0: px(110), x1: px(150), y0: px(106), y1: px(112) },
      { text: 'cece', x0: px(156), x1: px(200), y0: px(106), y1: px(112) },
      { text: 'eee', x0: px(206), x1: px(240), y0: px(106), y1: px(112) },
      { text: '160', x0: px(300), x1: px(318), y0: px(100), y1: px(112) },
    ];
    const dotted = takeTextLayer(row, k, [run(`0.95 ${'.'.repeat(28)}`, 72, 244), run('160', 300, 318)]);
    expect(dotted.use).toMatchObject({ used: true, agreement: 1 });
    expect(dotted.items.map((w) => w.text).join(' ')).not.toMatch(/e|c/);
    const otherFigures = takeTextLayer(row, k, [run(`7.31 ${'.'.repeat(28)}`, 72, 244), run('842', 300, 318)]);
    expect(otherFigures.use.used).toBe(false);
    // A formula OCR cannot read ("Z,/By" for "Zn/Bn"), read at low confidence beside prose it reads
    // surely: the agreement is the confident words'; the same misreadings read surely still disagree.
    const formula = [
      { text: 'Dimension', conf: 96, x0: px(72), x1: px(130), y0: px(100), y1: px(112) },
      { text: 'Z,/By', conf: 41, x0: px(140), x1: px(170), y0: px(100), y1: px(112) },
      { text: 'dim', conf: 93, x0: px(180), x1: px(200), y0: px(100), y1: px(112) },
      { text: 'Zq', conf: 55, x0: px(204), x1: px(216), y0: px(100), y1: px(112) },
      { text: 'o(21)', conf: 30, x0: px(226), x1: px(250), y0: px(100), y1: px(112) },
      { text: 'ag41', conf: 40, x0: px(256), x1: px(280), y0: px(100), y1: px(112) },
    ];
    const formulaLayer = [run('Dimension Zn/Bn dim Zd σ(z1) ad+1', 72, 280)];
    const sure = (w: { conf: number }) => w.conf / 100;
    const mixed = takeTextLayer(formula, k, formulaLayer, [], sure);
    expect(mixed.use).toMatchObject({ used: true, agreement: 1 });
    expect(mixed.items.map((w) => w.text)).toEqual(['Dimension', 'Zn/Bn', 'dim', 'Zd', 'σ(z1)', 'ad+1']);
    expect(takeTextLayer(formula, k, formulaLayer).use.used).toBe(false);
    const wrongLayer = [run('Zebra quantum jukebox vexed fjord nymphs', 72, 280)];
    expect(takeTextLayer(formula, k, wrongLayer, [], sure).use.used).toBe(false);
    const broken = takeTextLayer(ocr, k, [run('\u00a7\u00b6\u00a4\u00a7\u00b6\u00a4 qwzxvbn', 72, 160)]);
    expect(broken.use.used).toBe(false);
    expect(broken.items.map((w) => w.text)).toEqual(['2012.2', 'shipped', 'alone']);
    expect(textLayerEvent(3, broken.use).message).toMatch(/text layer ignored/);
  });

  it("keeps OCR's layout where the page shows words the layer lacks (text in an image)", async () => {
    const other = await PDFDocument.create();
    const font = await other.embedFont(StandardFonts.Helvetica);
    const strip = other.addPage([612, 200]);
    HIDDEN.forEach((line, i) => strip.drawText(line, { x: 72, y: 160 - i * 24, size: 12, font }));
    const stripPdf = await writeTemp(out, 'strip.pdf', await other.save());
    await promisify(execFile)('pdftoppm', [
      '-png',
      '-r',
      '150',
      '-singlefile',
      stripPdf,
      stripPdf.replace(/\.pdf$/, ''),
    ]);
    const doc = await PDFDocument.load(await pdf());
    doc.getPage(0).drawImage(await doc.embedPng(await fs.readFile(stripPdf.replace(/\.pdf$/, '.png'))), {
      x: 0,
      y: 100,
      width: 612,
      height: 200,
    });
    const file = await writeTemp(out, 'text-and-image.pdf', await doc.save());
    const res = await parsePages({ path: file, kind: 'pdf', backend: 'ocr', outDir: out, renderPages: false });
    const p = res.pages[0]!;
    expect(p.textLayer?.used).toBe(true);
    expect(layerReadsPage(p.textLayer)).toBe(false);
    expect(p.source).toBe('ocr');
    const text = p.markdown.replace(/\\/g, '');
    expect(text).toContain(LINES[0]);
    expect(text).toMatch(/quantum jukebox/);
  });

  // A screenshot (a raster of prose-size words) whose caption is set inside the image's box, over
  // its white margin, as manuals place them: the text backend lays the caption out as the figure's
  // text, and the screenshot's words are a captioned figure's, not prose the layer lacks, so the
  // page is laid out from its layer with the same plain text as the text backend.
  it('lays a page out from its layer when a screenshot carries its caption inside its own box', async () => {
    const shot = await PDFDocument.create();
    const font = await shot.embedFont(StandardFonts.Helvetica);
    const strip = shot.addPage([612, 200]);
    HIDDEN.forEach((line, i) => strip.drawText(line, { x: 72, y: 170 - i * 24, size: 12, font }));
    const shotPdf = await writeTemp(out, 'screenshot.pdf', await shot.save());
    const base = shotPdf.replace(/\.pdf$/, '');
    await promisify(execFile)('pdftoppm', ['-png', '-r', '150', '-singlefile', shotPdf, base]);
    const doc = await PDFDocument.load(await pdf());
    const page = doc.getPage(0);
    page.drawImage(await doc.embedPng(await fs.readFile(`${base}.png`)), { x: 0, y: 360, width: 612, height: 200 });
    page.drawText('Figure 2 The settings window of the depot console', {
      x: 72,
      y: 372,
      size: 10,
      font: await doc.embedFont(StandardFonts.Helvetica),
    });
    const file = await writeTemp(out, 'text-and-screenshot.pdf', await doc.save());
    const parse = (backend: 'text' | 'ocr') =>
      parsePages({ path: file, kind: 'pdf', backend, outDir: out, renderPages: false });
    const [text, ocr] = [await parse('text'), await parse('ocr')];
    expect(text.pages[0]!.grounding.elements.find((e) => e.type === 'figure')?.content).toMatch(/^Figure 2 /);
    const p = ocr.pages[0]!;
    expect(p.textLayer?.used).toBe(true);
    expect(p.textLayer?.figureWords).toBeGreaterThan(30);
    expect(layerReadsPage(p.textLayer)).toBe(true);
    expect(p.source).toBe('text');
    expect(p.grounding.elements.find((e) => e.type === 'figure')?.content).toMatch(/quantum jukebox/);
    expect(p.markdown).not.toMatch(/jukebox/);
    const plain = (r: typeof text) => groundingPlainText({ pages: r.pages.map((q) => q.grounding) } as never);
    expect(plain(ocr)).toBe(plain(text));
  });

  // Two columns of prose in the layer above an uncaptioned image of prose the
  // layer lacks (over 250 characters of body-size words: not a figure's labels). The layer holds most
  // of what OCR reads: the page is laid out per region, the layer's text exactly as the text backend
  // lays it out (columns kept apart) and the image's words, which only OCR reads, in the flow.
  it("lays the layer's regions out as the text backend does and keeps OCR's words where only OCR reads", async () => {
    const shot = await PDFDocument.create();
    const shotFont = await shot.embedFont(StandardFonts.Helvetica);
    const strip = shot.addPage([612, 130]);
    HIDDEN.forEach((line, i) => strip.drawText(line, { x: 72, y: 100 - i * 24, size: 12, font: shotFont }));
    const shotPdf = await writeTemp(out, 'prose-image.pdf', await shot.save());
    const base = shotPdf.replace(/\.pdf$/, '');
    await promisify(execFile)('pdftoppm', ['-png', '-r', '150', '-singlefile', shotPdf, base]);
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const bold = await doc.embedFont(StandardFonts.HelveticaBold);
    const page = doc.addPage([612, 792]);
    page.drawText('Depot Records of the Northern Line', { x: 72, y: 730, size: 18, font: bold });
    COLUMNS.forEach((col, c) =>
      col.forEach((line, i) => page.drawText(line, { x: c ? 312 : 72, y: 690 - i * 13, size: 10, font })),
    );
    page.drawImage(await doc.embedPng(await fs.readFile(`${base}.png`)), { x: 0, y: 420, width: 612, height: 130 });
    const file = await writeTemp(out, 'columns-and-prose-image.pdf', await doc.save());
    const parse = (backend: 'text' | 'ocr') =>
      parsePages({ path: file, kind: 'pdf', backend, outDir: out, renderPages: false });
    const [text, ocr] = [await parse('text'), await parse('ocr')];
    const p = ocr.pages[0]!;
    expect(p.textLayer?.used).toBe(true);
    expect(layerReadsPage(p.textLayer)).toBe(false);
    expect(layerLeadsPage(p.textLayer)).toBe(true);
    expect(p.source).toBe('text');
    // Every element the text backend lays out from the layer is there, with its type and text.
    const elements = (r: typeof text) =>
      r.pages[0]!.grounding.elements.filter((e) => e.type !== 'figure').map((e) => `${e.type}: ${e.content}`);
    const theirs = elements(ocr);
    for (const e of elements(text)) expect(theirs).toContain(e);
    expect(text.pages[0]!.markdown).not.toMatch(/jukebox/);
    expect(p.markdown).toMatch(/quantum jukebox/);
    expect(p.markdown).toMatch(/lazy brown dogs/);
  });

  // A chart pasted as a raster (its labels are pixels) under a "Figure 1" caption: the labels OCR
  // reads there are the figure's, as the text backend treats text drawn in a figure; the rest of the
  // page is the layer's, so the page is laid out from it.
  it("lays a page out from its layer when the words it lacks are a figure's labels, kept as the figure's text", async () => {
    const chart = await PDFDocument.create();
    const font = await chart.embedFont(StandardFonts.Helvetica);
    const strip = chart.addPage([400, 150]);
    strip.drawRectangle({ x: 40, y: 30, width: 320, height: 60, borderWidth: 1 });
    ['0.1', '0.5', '1.0', '5.0', '10.0'].forEach((t, i) => strip.drawText(t, { x: 40 + i * 75, y: 15, size: 9, font }));
    strip.drawText('Intermediate clusters', { x: 230, y: 125, size: 9, font });
    strip.drawText('Galactic data model', { x: 230, y: 108, size: 9, font });
    const chartPdf = await writeTemp(out, 'chart.pdf', await chart.save());
    const base = chartPdf.replace(/\.pdf$/, '');
    await promisify(execFile)('pdftoppm', ['-png', '-r', '150', '-singlefile', chartPdf, base]);
    const doc = await PDFDocument.load(await pdf());
    const page = doc.getPage(0);
    page.drawImage(await doc.embedPng(await fs.readFile(`${base}.png`)), { x: 106, y: 380, width: 400, height: 150 });
    page.drawText('Figure 1: Periods of the clusters against their ages.', {
      x: 106,
      y: 360,
      size: 10,
      font: await doc.embedFont(StandardFonts.Helvetica),
    });
    const file = await writeTemp(out, 'text-and-chart.pdf', await doc.save());
    const parse = (backend: 'text' | 'ocr') =>
      parsePages({ path: file, kind: 'pdf', backend, outDir: out, renderPages: false });
    const [text, ocr] = [await parse('text'), await parse('ocr')];
    const p = ocr.pages[0]!;
    expect(p.textLayer?.figureWords).toBeGreaterThan(0);
    expect(layerReadsPage(p.textLayer)).toBe(true);
    expect(p.source).toBe('text');
    const figure = p.grounding.elements.find((e) => e.type === 'figure');
    expect(figure?.content).toMatch(/Intermediate/);
    expect(p.markdown).not.toMatch(/Intermediate|Galactic/);
    const plain = (r: typeof text) => groundingPlainText({ pages: r.pages.map((q) => q.grounding) } as never);
    expect(plain(ocr)).toBe(plain(text));
  });

  // A font that places glyphs one by one (descenders in runs of their own: "com" "p" "arison") or a
  // formula set symbol by symbol gives runs that cover a third of an OCR word each: matched to the
  // layer's lines, not its runs, every word is held and the page is read from the layer.
  it('matches OCR words to the layer lines a glyph-placed font draws in pieces', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.TimesRoman);
    const page = doc.addPage([612, 792]);
    LINES.forEach((line, i) => {
      let x = 72;
      for (const word of line.split(' ')) {
        const thirds =
          word.length >= 6
            ? [0, 1, 2].map((j) => word.slice((j * word.length) / 3, ((j + 1) * word.length) / 3))
            : [word];
        for (const piece of [...thirds, ' ']) {
          page.drawText(piece, { x, y: 720 - i * 24, size: 12, font });
          x += font.widthOfTextAtSize(piece, 12);
        }
      }
    });
    const file = await writeTemp(out, 'pieces.pdf', await doc.save());
    const res = await parsePages({ path: file, kind: 'pdf', backend: 'ocr', outDir: out, renderPages: false });
    const p = res.pages[0]!;
    expect(p.textLayer?.agreement).toBeGreaterThanOrEqual(0.95);
    expect(layerReadsPage(p.textLayer)).toBe(true);
    const text = p.markdown.replace(/\\/g, '');
    for (const line of LINES) expect(text).toContain(line);
  });

  // A two-column paper page: OCR's own boxes read its columns across; the agreeing layer's do not.
  it('lays a two-column paper page out from its agreeing layer as the text backend does', async () => {
    const file = corpus('a_born_digital/pypdf-bench/1601.03642.pdf');
    const run = (backend: 'text' | 'ocr') =>
      parsePages({ path: file, kind: 'pdf', backend, outDir: out, renderPages: false, pageNumbers: [2] });
    const [text, ocr] = [await run('text'), await run('ocr')];
    const plain = (r: typeof text) => groundingPlainText({ pages: r.pages.map((p) => p.grounding) } as never);
    expect(layerReadsPage(ocr.pages[0]!.textLayer)).toBe(true);
    expect(textScore(plain(ocr), plain(text))).toBeGreaterThanOrEqual(99);
  });

  // A chart drawn with paths only (axes with ticks, a spectrum in straight steps, outlined tick
  // labels) is a figure of the layer's layout, found by its axes: the labels OCR reads there are the
  // figure's, and the page is read from the layer as the text backend reads it.
  it('lays a page out from its layer when the words it lacks are the labels of a vector chart', async () => {
    const file = await writeTemp(out, 'vector-chart.pdf', await vectorChartPdf());
    const parse = (backend: 'text' | 'ocr') =>
      parsePages({ path: file, kind: 'pdf', backend, outDir: out, renderPages: false });
    const [text, ocr] = [await parse('text'), await parse('ocr')];
    const figure = text.pages[0]!.grounding.elements.find((e) => e.type === 'figure');
    // The chart: x 120-500 pt, y 212-462 pt from the top of a 612 x 792 pt page.
    expect(figure?.bbox.x1).toBeLessThan(120 / 612);
    expect(figure?.bbox.x2).toBeGreaterThan(500 / 612);
    expect(figure?.bbox.y1).toBeLessThan(212 / 792);
    expect(figure?.bbox.y2).toBeGreaterThan(462 / 792);
    const p = ocr.pages[0]!;
    expect(p.textLayer?.used).toBe(true);
    expect(p.textLayer?.figureWords).toBeGreaterThan(0);
    expect(layerReadsPage(p.textLayer)).toBe(true);
    expect(p.source).toBe('text');
    const plain = (r: typeof text) => groundingPlainText({ pages: r.pages.map((q) => q.grounding) } as never);
    expect(plain(ocr)).toBe(plain(text));
  });

  // Tesseract reads a typewritten table's leader dots as letters ("0.95 . eee cece"); the layer's
  // letters and digits are the page's all the same, so it is used and the table is the layer's.
  it('trusts a layer whose only disagreement is the letters OCR reads into leader dots', async () => {
    const file = await writeTemp(out, 'leaders.pdf', await leaderTablePdf());
    const parse = (backend: 'text' | 'ocr') =>
      parsePages({ path: file, kind: 'pdf', backend, outDir: out, renderPages: false });
    const [text, ocr] = [await parse('text'), await parse('ocr')];
    const p = ocr.pages[0]!;
    expect(p.textLayer?.used).toBe(true);
    expect(p.textLayer!.agreement).toBeGreaterThanOrEqual(0.9);
    expect(layerReadsPage(p.textLayer)).toBe(true);
    const cells = (r: typeof text) =>
      r.pages[0]!.grounding.elements.filter((e) => e.type === 'table').flatMap((e) => e.cells ?? []);
    expect(cells(text).length).toBeGreaterThan(0);
    expect(cells(ocr)).toEqual(cells(text));
    expect(p.markdown).not.toMatch(/\bcece\b|\beee\b/);
  });

  // The same table scanned under an invisible layer whose figures are other figures (same leaders):
  // the leaders are forgiven, the figures are not, and the layer is ignored.
  it("still ignores a layer with the same leaders whose figures are not the page's", async () => {
    const visible = await writeTemp(out, 'leaders-visible.pdf', await leaderTablePdf());
    const base = visible.replace(/\.pdf$/, '-scan');
    await promisify(execFile)('pdftoppm', ['-png', '-r', '150', '-singlefile', visible, base]);
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Courier);
    const page = doc.addPage([612, 792]);
    page.drawImage(await doc.embedPng(await fs.readFile(`${base}.png`)), { x: 0, y: 0, width: 612, height: 792 });
    PROPORTIONS.forEach((_, i) => {
      const row = `${(0.13 + i * 0.07).toFixed(2)} ${'.'.repeat(17)} ${[7, 3, 8, 4, 9, 2, 6].map((d) => String(d * 111 + i).padStart(6)).join('')}`;
      page.drawText(row, { x: 72, y: 690 - 30 - i * 15, size: 12, font, opacity: 0 });
    });
    const file = await writeTemp(out, 'leaders-wrong-layer.pdf', await doc.save());
    const res = await parsePages({ path: file, kind: 'pdf', backend: 'ocr', outDir: out, renderPages: false });
    expect(res.pages[0]!.textLayer?.used).toBe(false);
  });

  // A book page of formulas (GeoTopo-book p. 85, German prose with displayed equations): Tesseract
  // misreads the mathematics ("a(x) = #6 £0" for "σ(x0) = cx +d = 0", "o" for "σ") and the
  // agreement over every word was
  // 0.78, so the layer was ignored and OCR's reading kept. Over the words OCR reads confidently the
  // layer agrees, and the page reads exactly as on the text backend.
  it('trusts the layer of a formula page by the words OCR reads confidently', async () => {
    const file = corpus('a_born_digital/pypdf-bench/GeoTopo-book.pdf');
    const parse = (backend: 'text' | 'ocr') =>
      parsePages({ path: file, kind: 'pdf', backend, outDir: out, renderPages: false, pageNumbers: [85] });
    const [text, ocr] = [await parse('text'), await parse('ocr')];
    const p = ocr.pages[0]!;
    expect(p.textLayer?.used).toBe(true);
    expect(layerReadsPage(p.textLayer)).toBe(true);
    const plain = (r: typeof text) => groundingPlainText({ pages: r.pages.map((q) => q.grounding) } as never);
    expect(plain(ocr)).toBe(plain(text));
    expect(plain(ocr)).toContain('Es gilt σ(z) = (−σ)(z) für alle σ ∈ SL2(R) und z ∈ H.');
  });

  it('ignores invisible text that does not match the page image', async () => {
    const visible = await writeTemp(out, 'visible.pdf', await pdf());
    const file = await writeTemp(out, 'hidden.pdf', await scanWithWrongLayer(visible));
    const res = await parsePages({ path: file, kind: 'pdf', backend: 'ocr', outDir: out, renderPages: false });
    const p = res.pages[0]!;
    expect(p.textLayer?.used).toBe(false);
    expect(p.markdown).not.toMatch(/Zebra|jukebox|hexing/);
    expect(p.markdown).toMatch(/third line of ordinary prose/);
  });

  // Shared born-digital table pages forced through OCR read like the text backend. eu-005's second
  // table has column rules OCR reads as "|" in its header; as words they made columns of their own.
  it.each(['us-012', 'eu-005'])(
    'b_tables/icdar2013/%s through backend "ocr" is within 2 points and 0.05 cells of "text"',
    async (name) => {
      const file = corpus(`b_tables/icdar2013/${name}.pdf`);
      const gts = parseIcdarStructure(await fs.readFile(corpus(`b_tables/icdar2013/${name}-str.xml`), 'utf8'));
      const pageNumbers = [...new Set(gts.map((t) => t.page))];
      const run = (backend: 'text' | 'ocr') =>
        parsePages({ path: file, kind: 'pdf', backend, outDir: out, renderPages: false, pageNumbers });
      const [text, ocr] = [await run('text'), await run('ocr')];
      const plain = (r: typeof text) => groundingPlainText({ pages: r.pages.map((p) => p.grounding) } as never);
      const cells = (r: typeof text) =>
        gts.map((gt) =>
          Math.max(
            0,
            ...r.pages
              .find((p) => p.pageNumber === gt.page)!
              .grounding.elements.filter((e) => e.type === 'table' && e.cells)
              .map((e) => cellAccuracy(gt.cells, e.cells!).accuracy),
          ),
        );
      for (const p of ocr.pages) expect(p.textLayer?.used).toBe(true);
      expect(textScore(plain(ocr), plain(text))).toBeGreaterThanOrEqual(98);
      const [t, o] = [cells(text), cells(ocr)];
      gts.forEach((_, i) => expect(o[i]).toBeGreaterThanOrEqual(t[i]! - 0.05));
    },
  );
});
