// OCR backend for one page: raster (pdftoppm for PDFs, sharp for images) → Tesseract TSV →
// runs in points → the same layout pipeline as the text layer.
import fs from 'node:fs/promises';
import path from 'node:path';
import { layoutPage } from '../layout/page-layout';
import { detectRasterLines, toRulings } from '../ocr/raster-rulings';
import { rereadTables } from '../ocr/table-structure-pass';
import { runTesseractTsv, tsvToRuns } from '../ocr/tesseract-tsv';
import { toPgm, type ImagePage } from '../render/image-input';
import { readPnm, type RawImage } from '../render/ppm';
import { rasterisePdf } from '../render/rasterise';
import type { LayoutElement, PageGraphics, TextRun } from '../types';

export interface OcrSettings { dpi: number; lang: string; timeoutSeconds: number }

export const emptyGraphics = (): PageGraphics => ({ images: [], drawings: [], hRules: [], vRules: [], fillRects: [], shapes: [] });

/** Rasterises PDF pages for OCR one step ahead of Tesseract, so pdftoppm and Tesseract overlap. */
export class OcrRasterPrefetch {
  private readonly pending = new Map<number, Promise<string>>();
  constructor(private readonly pdfPath: string, private readonly dir: string, private readonly s: OcrSettings) {}

  get(n: number, next?: number): Promise<string> {
    const p = this.pending.get(n) ?? this.start(n);
    this.pending.delete(n);
    if (next !== undefined && !this.pending.has(next)) this.pending.set(next, this.start(next));
    return p;
  }

  private start(n: number): Promise<string> {
    const p = (async () => {
      await fs.mkdir(this.dir, { recursive: true });
      const files = await rasterisePdf(this.pdfPath, this.dir, { dpi: this.s.dpi, gray: true, firstPage: n, lastPage: n, timeoutMs: this.s.timeoutSeconds * 1000 });
      const f = files.get(n);
      if (!f) throw new Error(`pdftoppm produced no raster for page ${n}`);
      return f;
    })();
    p.catch(() => undefined);
    return p;
  }
}

export async function ocrRasterFile(file: string, pageNumber: number, widthPt: number, heightPt: number, s: OcrSettings): Promise<LayoutElement[]> {
  try {
    const tsv = await runTesseractTsv(file, { dpi: s.dpi, lang: s.lang, timeoutSeconds: s.timeoutSeconds, pageNumber });
    let runs = tsvToRuns(tsv, s.dpi);
    let elements = layoutOcr(runs, emptyGraphics(), widthPt, heightPt);
    // Only pages whose words already line up like a table pay for the ruling scan and the
    // structure pass; plain text pages cost exactly one Tesseract run.
    if (elements.some((e) => e.table)) {
      const raster = toGray(await readPnm(file));
      const lines = detectRasterLines(raster, s.dpi);
      const graphics: PageGraphics = { ...emptyGraphics(), hRules: toRulings(lines.h, s.dpi), vRules: toRulings(lines.v, s.dpi) };
      elements = layoutOcr(runs, graphics, widthPt, heightPt);
      const tables = elements.filter((e) => e.table);
      if (tables.length && lines.h.length + lines.v.length > 0) {
        runs = await rereadTables({
          raster, dpi: s.dpi, lines: [...lines.h, ...lines.v], tables, runs, tmpDir: path.dirname(file), pageNumber, lang: s.lang, timeoutSeconds: s.timeoutSeconds,
        });
        elements = layoutOcr(runs, graphics, widthPt, heightPt);
      }
    }
    return elements;
  } finally {
    await fs.rm(file, { force: true });
  }
}

function toGray(img: RawImage): RawImage {
  if (img.channels === 1) return img;
  const out = Buffer.alloc(img.width * img.height);
  for (let i = 0, j = 0; i < out.length; i++, j += 3) out[i] = (img.data[j]! * 299 + img.data[j + 1]! * 587 + img.data[j + 2]! * 114) / 1000;
  return { width: img.width, height: img.height, channels: 1, data: out };
}

/** Small images (table crops, screenshots) are upscaled for Tesseract, which wants ~20 px letters. */
const MIN_OCR_WIDTH = 1600;

export async function ocrImagePage(img: ImagePage, pageNumber: number, tmpDir: string, s: OcrSettings): Promise<LayoutElement[]> {
  const file = path.join(tmpDir, `ocr-image-${pageNumber}.pgm`);
  const scale = img.width < MIN_OCR_WIDTH ? Math.min(4, MIN_OCR_WIDTH / img.width) : 1;
  await fs.writeFile(file, await toPgm(img, scale));
  const k = 72 / img.density;
  // The raster's resolution grows with the upscale, so boxes still map back to image pixels.
  return ocrRasterFile(file, pageNumber, img.width * k, img.height * k, { ...s, dpi: img.density * scale });
}

function layoutOcr(runs: TextRun[], graphics: PageGraphics, widthPt: number, heightPt: number): LayoutElement[] {
  const elements = layoutPage({ width: widthPt, height: heightPt, runs, graphics, source: 'ocr' });
  for (const el of elements) {
    if (el.table && el.table.cellsSource === 'grid-estimate' && !el.table.cellsEstimateReason) {
      el.table.cellsEstimateReason = 'scanned page: no column gaps in the word alignment, columns split uniformly';
    }
  }
  return elements;
}
