// A page's first rows read with doubt are read again at a larger size in one Tesseract run and kept
// per row (or per word) where that reading is surer (header-reread.ts; issue 23: a receipt's issuer
// and address are its header rows, where one misread letter makes the key field wrong).
import fs from 'node:fs/promises';
import path from 'node:path';
import { HEADER_ROWS, rereadHeaderRows } from '../src/ocr/header-reread';
import { ocrRows } from '../src/ocr/ocr-layout';
import { crop, paperRect, toGray, writePgm, type GrayImage, type Rect } from '../src/ocr/preprocess';
import { recogniseImage, type OcrWord } from '../src/ocr/recognise';
import { parsePages } from '../src/parse/parse-pages';
import { parseTsv, runTesseractTsv } from '../src/ocr/tesseract-tsv';
import { loadImagePage } from '../src/render/image-input';
import { setToolRunner, spawnRunner } from '../src/render/run-tool';
import { corpus, tempDir } from './helpers/fixtures';

// A receipt whose first row is the issuer, "GARDENIA BAKERIES (KL) SDN BHD (139386 X)"; its first
// reading at the image's own size reads the legal form "SDN BED".
const RECEIPT = corpus('c_scanned_images/sroie/361.jpg');
const opts = (tmpDir: string) => ({ lang: 'eng', timeoutSeconds: 60, pageNumber: 1, tmpDir, headerReread: true });
const firstRow = (words: OcrWord[]) => ocrRows(words).sort((a, b) => a.y0 - b.y0)[0]!.text;

describe('reading the header rows again', () => {
  let tmp: string;
  let words: OcrWord[];
  let clean: GrayImage;
  let paper: Rect;
  let header: { rows: number; replaced: number; ms: number } | undefined;
  beforeAll(async () => {
    tmp = await tempDir('ocr-header-');
    const img = await loadImagePage(RECEIPT, 0);
    const r = await recogniseImage(img, opts(tmp));
    words = r.words;
    header = r.report.header;
    const gray = toGray(img);
    paper = paperRect(gray);
    clean = crop(gray, paper);
  }, 180_000);
  afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

  it('reads the issuer row of a receipt as printed, the legal form included, and reports it', () => {
    expect(firstRow(words)).toMatch(/GARDENIA BAKERIES \(KL\) SDN BHD/);
    expect(header).toBeDefined();
    expect(header!.rows).toBeGreaterThanOrEqual(1);
    expect(header!.replaced).toBeGreaterThanOrEqual(1);
  });

  // The page as Tesseract reads it first (as-is, the cleaned page in its own pixels).
  const firstReading = async (): Promise<OcrWord[]> => {
    const file = path.join(tmp, 'first.pgm');
    await writePgm(file, clean);
    return parseTsv(await runTesseractTsv(file, { dpi: 0, lang: 'eng', psm: 3 }))
      .words.filter((w) => w.text.trim())
      .map((w) => ({
        text: w.text.trim(),
        conf: w.conf,
        x0: w.left + paper.x,
        y0: w.top + paper.y,
        x1: w.left + w.width + paper.x,
        y1: w.top + w.height + paper.y,
        block: w.block,
        par: w.par,
        line: w.line,
      }));
  };

  it('reads a misread legal form again as printed, and leaves the rows below as first read', async () => {
    const first = await firstReading();
    expect(firstRow(first)).toMatch(/SDN BED/);
    const again = await rereadHeaderRows(first, clean, paper, opts(tmp));
    expect(again).toBeDefined();
    expect(again!.replaced).toBeGreaterThanOrEqual(1);
    expect(firstRow(again!.words)).toMatch(/GARDENIA BAKERIES \(KL\) SDN BHD/);
    // Rows below the header rows are the first reading's, word for word.
    const last = ocrRows(first).sort((a, b) => a.y0 - b.y0)[HEADER_ROWS]!.y1;
    const below = (ws: OcrWord[]) =>
      ws
        .filter((w) => w.y0 > last)
        .map((w) => w.text)
        .sort();
    expect(below(again!.words)).toEqual(below(first));
  });

  it('takes a word the two other readings agree on over a misreading no single reading outdoes', async () => {
    // The issuer row with its registration number misread ("(139886" at 85: a re-reading alone would
    // need 100 to replace that word, and the row, its other words read at 99, is no surer read
    // again), the row in doubt by another word.
    const first = await firstReading();
    const issuer = ocrRows(first).sort((a, b) => a.y0 - b.y0)[0]!;
    const doubt = issuer.words.find((w) => /^\p{L}{4,}$/u.test(w.text));
    const misread = first.map((w) =>
      issuer.words.includes(w)
        ? /139386/.test(w.text)
          ? { ...w, text: w.text.replace('139386', '139886'), conf: 85 }
          : { ...w, conf: w === doubt ? 70 : 99 }
        : w,
    );
    expect(firstRow(misread)).toMatch(/139886/);
    const again = await rereadHeaderRows(misread, clean, paper, opts(tmp));
    expect(firstRow(again!.words)).toMatch(/\(139386 X\)/);
    expect(firstRow(again!.words)).not.toMatch(/139886/);
  }, 180_000);

  it('runs nothing when the header rows were read with confidence', async () => {
    const sure = words.map((w) => ({ ...w, conf: 99 }));
    expect(await rereadHeaderRows(sure, clean, paper, opts(tmp))).toBeUndefined();
  });

  it('keeps the first reading of a row when the larger one is no surer', async () => {
    // Every word just under the doubt threshold: read again, but a reading must be surer by a margin.
    const doubtful = words.map((w) => ({ ...w, conf: 91 }));
    const again = await rereadHeaderRows(doubtful, clean, paper, opts(tmp));
    expect(again).toBeDefined();
    const texts = (ws: OcrWord[]) => ocrRows(ws).map((r) => r.text);
    const changed = texts(again!.words).filter((t, i) => t !== texts(doubtful)[i]).length;
    expect(changed).toBe(again!.replaced);
    expect(again!.replaced).toBeLessThan(again!.rows);
  });

  it('is asked for: parsePages reads the header rows again only with ocrHeaderReread (off by default)', async () => {
    const run = async (ocrHeaderReread?: boolean) => {
      const outDir = await tempDir('ocr-header-parse-');
      try {
        const r = await parsePages({
          path: RECEIPT,
          kind: 'image',
          backend: 'ocr',
          outDir,
          renderPages: false,
          ...(ocrHeaderReread === undefined ? {} : { ocrHeaderReread }),
        });
        return r.pages[0]!;
      } finally {
        await fs.rm(outDir, { recursive: true, force: true });
      }
    };
    const [off, on] = [await run(), await run(true)];
    expect(off.ocr?.header).toBeUndefined();
    expect(on.ocr?.header?.replaced).toBeGreaterThanOrEqual(1);
    expect(on.markdown).toMatch(/SDN BHD/);
  });
});

describe('the header rows put to the vote of three readings', () => {
  it('reads an address word as printed where the first reading misread it and both re-readings agree', async () => {
    // "LAMAN RIMBUNAN KEPONG" on a receipt's address: the first reading reads "Rimounan", surer
    // than either re-reading alone would need to be to replace the row, so only their agreement mends it.
    const tmp = await tempDir('ocr-header-vote-');
    try {
      const img = await loadImagePage(corpus('c_scanned_images/sroie/169.jpg'), 0);
      const r = await recogniseImage(img, opts(tmp));
      const text = ocrRows(r.words)
        .map((row) => row.text)
        .join('\n');
      expect(text).toMatch(/Laman Rimbunan Kepong/i);
      expect(text).not.toMatch(/Rimounan/i);
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  }, 180_000);
});

describe("the header rows read again with Tesseract's best model at the smaller size", () => {
  // Letters the system's fast model misreads at every size, with confidence, which the best model
  // (tessdata-best.ts) reads as printed: a receipt's decorative "U" of "SANYU" read "O", and the
  // initials of "MR. D.I.Y." read "O.T.Y.". The vote of the three readings takes them.
  const header = async (file: string) => {
    const tmp = await tempDir('ocr-header-best-');
    try {
      const r = await recogniseImage(await loadImagePage(corpus(file), 0), opts(tmp));
      return ocrRows(r.words)
        .sort((a, b) => a.y0 - b.y0)
        .slice(0, HEADER_ROWS)
        .map((row) => row.text)
        .join('\n');
    } finally {
      await fs.rm(tmp, { recursive: true, force: true });
    }
  };

  it('reads a shop name as printed where the fast model reads a letter otherwise at every size', async () => {
    const text = await header('c_scanned_images/sroie/500.jpg');
    expect(text).toMatch(/SANYU STATIONERY SHOP/);
    expect(text).not.toMatch(/SANYO/);
  }, 180_000);

  it("reads a company's initials as printed", async () => {
    const text = await header('c_scanned_images/sroie/204.jpg');
    expect(text).toMatch(/MR\. D\.I\.Y\. \(M\) SDN BHD/);
  }, 180_000);

  it('reads them as printed with the body rows read too, the stacks read together (one process per model)', async () => {
    const tmp = await tempDir('ocr-header-together-');
    const files: string[] = [];
    const restore = setToolRunner(async (cmd, args, o) => {
      const input = o.input?.then((list) => {
        files.push(
          ...String(list)
            .split('\n')
            .filter(Boolean)
            .map((f) => path.basename(f)),
        );
        return list;
      });
      return spawnRunner(cmd, args, input ? { ...o, input } : o);
    });
    try {
      for (const [file, printed] of [
        ['500.jpg', /SANYU STATIONERY SHOP/],
        ['204.jpg', /MR\. D\.I\.Y\. \(M\) SDN BHD/],
        // A header row the header re-read mended ("No: G3"), which also has figures in doubt: the
        // body's reading of it at its own size ("No G3") does not undo the mend.
        ['454.jpg', /No: G3/],
      ] as const) {
        const r = await recogniseImage(await loadImagePage(corpus(`c_scanned_images/sroie/${file}`), 0), {
          ...opts(tmp),
          bodyReread: true,
        });
        const text = ocrRows(r.words)
          .sort((a, b) => a.y0 - b.y0)
          .slice(0, HEADER_ROWS)
          .map((row) => row.text)
          .join('\n');
        expect(text).toMatch(printed);
        expect(r.report.header!.replaced).toBeGreaterThanOrEqual(1);
      }
      // The header's stacks were read by the processes of the rows read together, not by their own.
      expect(files.filter((f) => /^rows-1-header-[01]\.pgm$/.test(f)).length).toBe(6);
      expect(files.filter((f) => /^header-/.test(f))).toEqual([]);
    } finally {
      restore();
      await fs.rm(tmp, { recursive: true, force: true });
    }
  }, 240_000);
});
