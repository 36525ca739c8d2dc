// OCR keeps a trustworthy text layer (issue 21.7): a PDF page read with backend "ocr" takes its
// text layer's characters for the words the layer overlaps when the layer agrees with OCR, and
// ignores a layer that says something else than the page shows (invisible text over the image).
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import { promisify } from 'node:util';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { parsePages } from '../src';
import { layerReadsPage, takeTextLayer, textLayerEvent } from '../src/ocr/text-layer-words';
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
