// Tables on image pages built from OCR word boxes (issue 12.4): the borderless-table machinery of
// born-digital pages runs on Tesseract's words. Word boxes are tight around the ink, so a row's
// bottom edge is a descender's in one row and the baseline in the next; a cropped table image
// taken at an assumed 300 dpi has text of 2 pt. Neither may merge a table's rows, and prose stays
// prose. Inputs are synthetic words in image pixels.
import { layoutOcrWords, printScale } from '../src/parse/ocr-page';
import { rowBaseline } from '../src/ocr/ocr-layout';
import { leftFiguresUnread, missedInkShare, withUnreadWords } from '../src/ocr/missed-text-pass';
import type { OcrWord } from '../src/ocr/recognise';
import type { GrayImage } from '../src/ocr/preprocess';
import type { LayoutElement } from '../src/types';

const DESCENDER = /[gjpqy(),]/;
/** A word set on `baseline` with cap height `cap` px, 0.6·cap px per character; descenders reach 0.3·cap lower. */
function word(text: string, x: number, baseline: number, cap: number, line: number, block = 1): OcrWord {
  return {
    text,
    conf: 90,
    x0: x,
    x1: x + Math.round(text.length * 0.6 * cap),
    y0: baseline - cap,
    y1: baseline + (DESCENDER.test(text) ? Math.round(0.3 * cap) : 0),
    block,
    par: 1,
    line,
  };
}

const LABELS = [
  'Cantonese',
  'Mandarin',
  'Filipino',
  'Polish',
  'Spanish',
  'Hungary',
  'German',
  'Punjabi',
  'Tamil',
  'Japanese',
];

/** A borderless table: a header row and one row per label, five columns, rows `pitch` px apart. */
function tableWords(cap: number, pitch: number): OcrWord[] {
  const col = (i: number) => Math.round(i * 9 * cap);
  const out: OcrWord[] = [];
  ['Early', 'Late', 'Total', 'Share'].forEach((h, i) => out.push(word(h, col(i + 1), 2 * cap, cap, 0)));
  LABELS.forEach((label, r) => {
    const y = 2 * cap + (r + 1) * pitch;
    out.push(word(label, 0, y, cap, r + 1));
    [r + 1, 2 * r + 3, 3 * r + 4, (r % 3) + 1].forEach((n, i) => out.push(word(String(n), col(i + 1), y, cap, r + 1)));
  });
  return out;
}

const white = (width: number, height: number): GrayImage => ({
  width,
  height,
  channels: 1,
  data: Buffer.alloc(width * height, 255),
});

async function layout(words: OcrWord[], dpi = 300): Promise<LayoutElement[]> {
  const width = Math.max(...words.map((w) => w.x1)) + 10,
    height = Math.max(...words.map((w) => w.y1)) + 10;
  const k = 72 / dpi;
  return layoutOcrWords(words, {
    k,
    widthPt: width * k,
    heightPt: height * k,
    raster: async () => white(width, height),
    rasterDpi: dpi,
    tmpDir: '/tmp',
    pageNumber: 1,
    s: { dpi, lang: 'eng', timeoutSeconds: 30 },
  });
}
const tables = (els: LayoutElement[]) => els.filter((e) => e.type === 'table').map((e) => e.table!);
const grid = (t: NonNullable<LayoutElement['table']>) => {
  const g: string[][] = Array.from({ length: t.rows }, () => Array<string>(t.cols).fill(''));
  for (const c of t.cells) g[c.row]![c.col] = c.text;
  return g;
};

describe('tables from OCR word boxes', () => {
  it('takes a row baseline from words without descenders', () => {
    const ws = [word('replication', 0, 100, 20, 1), word('phase', 300, 100, 20, 1), word('DNA', 500, 100, 20, 1)];
    expect(Math.max(...ws.map((w) => w.y1))).toBeGreaterThan(100);
    expect(rowBaseline({ words: ws, y1: Math.max(...ws.map((w) => w.y1)) })).toBe(100);
  });

  it.each([
    ['a 300-dpi scan of 8-pt type', 24, 40],
    ['a screen-resolution crop taken as 300 dpi', 7, 11],
  ])('builds every row and column of a borderless table: %s', async (_kind, cap, pitch) => {
    const [t] = tables(await layout(tableWords(cap, pitch)));
    expect(t).toBeDefined();
    const g = grid(t!);
    expect(g).toHaveLength(LABELS.length + 1);
    expect(g[0]).toEqual(['', 'Early', 'Late', 'Total', 'Share']);
    LABELS.forEach((label, r) => expect(g[r + 1]![0]).toBe(label));
    expect(g[4]).toEqual(['Polish', '4', '9', '13', '1']);
  });

  it('lays out text far below print size at print size and returns boxes in the page frame', async () => {
    const words = tableWords(7, 11);
    expect(printScale(words, 72 / 300)).toBeGreaterThan(2);
    expect(printScale(tableWords(24, 40), 72 / 300)).toBe(1);
    const [t] = tables(await layout(words));
    const k = 72 / 300;
    // The table's box holds its words in page points.
    expect(t!.x0).toBeLessThanOrEqual(1 * k);
    expect(t!.x1).toBeGreaterThanOrEqual(Math.max(...words.map((w) => w.x1)) * k - 1);
    expect(t!.y1).toBeLessThanOrEqual((Math.max(...words.map((w) => w.y1)) + 10) * k);
  });

  it('keeps prose in rows of words as text, at any scale', async () => {
    const sentence = 'the quick brown fox jumps over a lazy dog and keeps on running past every fence'.split(' ');
    for (const [cap, pitch] of [
      [24, 40],
      [7, 11],
    ] as const) {
      const words: OcrWord[] = [];
      for (let r = 0; r < 14; r++) {
        let x = (r * 37) % 5;
        for (const t of sentence) {
          const w = word(t, x, 2 * cap + r * pitch, cap, r + 1);
          words.push(w);
          x = w.x1 + Math.round(0.35 * cap);
        }
      }
      expect(tables(await layout(words))).toHaveLength(0);
    }
  });

  it('measures the ink of printed rows that no word covers', () => {
    const img = white(200, 70);
    const blob = (x0: number, x1: number, y0: number) => {
      for (let y = y0; y < y0 + 10; y++) for (let x = x0; x < x1; x++) img.data[y * 200 + x] = 0;
    };
    const labels: OcrWord[] = [];
    const digits: OcrWord[] = [];
    for (const [i, y] of [10, 30, 50].entries()) {
      blob(0, 40, y); // read: a row label
      blob(100, 110, y); // a lone digit the first reading dropped
      labels.push({ ...word('Label', 0, y + 10, 10, i + 1), x1: 40 });
      digits.push({ ...word('7', 100, y + 10, 10, i + 1, 2), x1: 110 });
    }
    expect(missedInkShare(img, labels, 1)).toBeCloseTo(100 / 500, 2);
    expect(missedInkShare(img, [...labels, ...digits], 1)).toBe(0);
    // Boxes in the first reading's pixels, the raster twice as large.
    const big = white(400, 140);
    for (let y = 0; y < 140; y++)
      for (let x = 0; x < 400; x++) big.data[y * 400 + x] = img.data[(y >> 1) * 200 + (x >> 1)]!;
    expect(missedInkShare(big, labels, 2)).toBeCloseTo(100 / 500, 2);
    // A column of unread figures calls for a second reading; unread marks scattered over the rows don't.
    expect(leftFiguresUnread(img, labels, 1)).toBe(true);
    const scattered = white(200, 70);
    for (const [i, y] of [10, 30, 50].entries())
      for (let yy = y; yy < y + 10; yy++) {
        for (let x = 0; x < 40; x++) scattered.data[yy * 200 + x] = 0;
        for (let x = 60 + 40 * i; x < 70 + 40 * i; x++) scattered.data[yy * 200 + x] = 0;
      }
    expect(missedInkShare(scattered, labels, 1)).toBeCloseTo(100 / 500, 2);
    expect(leftFiguresUnread(scattered, labels, 1)).toBe(false);
  });

  it('does not take ink that runs on between the rows (a border, a shadow, a speckled ground) for unread text', () => {
    // Three read labels at x 40-80; everything else on the page is what a scan adds around them.
    const page = (paint: (img: GrayImage) => void) => {
      const img = white(200, 70);
      for (const y of [10, 30, 50])
        for (let yy = y; yy < y + 10; yy++) for (let x = 40; x < 80; x++) img.data[yy * 200 + x] = 0;
      paint(img);
      return img;
    };
    const labels = [10, 30, 50].map((y, i) => ({ ...word('Label', 40, y + 10, 10, i + 1), x1: 80 }));
    // A dark scanner border down the left edge: in every row at the same place, as a dropped
    // column of figures would be, but just as dark between the rows.
    const border = page((img) => {
      for (let y = 0; y < 70; y++) for (let x = 0; x < 12; x++) img.data[y * 200 + x] = 0;
    });
    expect(leftFiguresUnread(border, labels, 1)).toBe(false);
    expect(missedInkShare(border, labels, 1)).toBe(0);
    // A speckled ground right of the text: one dark pixel in three, rows and gaps alike.
    const speckled = page((img) => {
      for (let y = 0; y < 70; y++)
        for (let x = 120; x < 200; x++) if ((x * 7 + y * 13) % 3 === 0) img.data[y * 200 + x] = 0;
    });
    expect(leftFiguresUnread(speckled, labels, 1)).toBe(false);
    // Figures dropped from a ruled table still call for the second reading: white between their
    // rows, the rules (across every column, between the rows) thin beside them.
    const ruled = page((img) => {
      for (const y of [10, 30, 50])
        for (let yy = y; yy < y + 10; yy++) for (let x = 140; x < 160; x++) img.data[yy * 200 + x] = 0;
      for (const y of [24, 44]) for (let x = 0; x < 200; x++) img.data[y * 200 + x] = 0;
    });
    expect(leftFiguresUnread(ruled, labels, 1)).toBe(true);
    // The same figures beside the border: found, the border left out.
    const both = page((img) => {
      for (let y = 0; y < 70; y++) for (let x = 0; x < 12; x++) img.data[y * 200 + x] = 0;
      for (const y of [10, 30, 50])
        for (let yy = y; yy < y + 10; yy++) for (let x = 140; x < 160; x++) img.data[yy * 200 + x] = 0;
    });
    expect(missedInkShare(both, labels, 1)).toBeCloseTo(600 / (1200 + 600 + 360), 2);
    expect(leftFiguresUnread(both, labels, 1)).toBe(true);
  });

  it("adds the block reading's words only where the first reading read nothing, and only read with confidence", () => {
    const first = [word('Cantonese', 0, 20, 10, 1), word('Mandarin', 0, 40, 10, 2)];
    const block = [
      { ...word('Cantonese', 0, 20, 10, 1), text: 'Cant0nese', conf: 40 }, // over a word already read
      { ...word('8', 100, 20, 10, 1), conf: 95 },
      { ...word('1', 100, 40, 10, 2), conf: 90 },
    ];
    const merged = withUnreadWords(first, block);
    expect(merged.map((w) => w.text)).toEqual(['Cantonese', 'Mandarin', '8', '1']);
    expect(merged[2]!.block).toBeGreaterThan(1);
    // Marks read at low confidence (noise) are not added.
    expect(withUnreadWords(first, [{ ...word('~', 100, 20, 10, 1), text: 'ii', conf: 10 }])).toEqual(first);
  });
});
