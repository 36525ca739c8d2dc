// A head start for OCR of an image: the worker knows an image is an OCR parse before it has hashed
// and diffed it, so Tesseract starts then and loads its model, and the image is decoded and its
// first reading prepared (borders cropped, dashed rules whitened) and handed to that Tesseract
// while the page-diff and the job's bookkeeping run. parsePages takes the decoded page and the
// reading in progress when it reads page 1 of that file with the same --dpi, language and timeout;
// otherwise they are cancelled. The reading is the one parsePages would make itself.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { densityOf, loadImagePage, statedOcrDpi, type ImagePage } from '../render/image-input';
import { firstReadDpi, prepareFirstReading, type FirstReading } from '../ocr/recognise';
import { startTesseractTsv, type TesseractRun } from '../ocr/tesseract-tsv';
import { DEFAULT_OCR_LANG } from '../ocr/ocr-language';
import { writePgm } from '../ocr/preprocess';

export interface ImageOcrHeadStartOptions {
  /** As parsePages' ocrLang and timeoutSeconds (the head start is only used when they match). */
  ocrLang?: string;
  timeoutSeconds?: number;
}

/** Page 1 decoded and its first reading handed to the waiting Tesseract. */
export interface PreparedImagePage {
  image: ImagePage;
  first: FirstReading;
  /** The raster file Tesseract was given (removed by dispose()). */
  file: string;
}

export interface ImageOcrHeadStart {
  readonly imagePath: string;
  /** The waiting Tesseract and the arguments it was started with; undefined when the file could not be read. */
  readonly ready: Promise<{ run: TesseractRun; dpi: number; lang: string; timeoutSeconds: number } | undefined>;
  /**
   * Hands the run over once (later calls, or a mismatch, give undefined and the caller starts its own),
   * with page 1 decoded and already being read when that could be done.
   */
  take(
    imagePath: string,
    want: { dpi: number; lang: string; timeoutSeconds: number },
  ): Promise<(TesseractRun & { prepared?: PreparedImagePage }) | undefined>;
  /**
   * Page 1 as loadImagePage decodes it (inspectDocument's `decodedPage1`), or undefined when it could not be;
   * settles once the page has been handed to Tesseract (or could not be prepared).
   */
  readonly decodedPage: Promise<ImagePage | undefined>;
  dispose(): Promise<void>;
}

/** Starts Tesseract for page 1 of an image ahead of parsePages; pass it as `imageOcrHeadStart` and dispose() it afterwards. */
export function startImageOcrHeadStart(imagePath: string, opts: ImageOcrHeadStartOptions = {}): ImageOcrHeadStart {
  const lang = opts.ocrLang ?? DEFAULT_OCR_LANG;
  const timeoutSeconds = opts.timeoutSeconds ?? 120;
  let taken = false;
  let disposed = false;
  let dir: string | undefined;
  const ready = sharp(imagePath, { page: 0, pages: 1 })
    .metadata()
    .then((meta) => {
      const dpi = firstReadDpi(statedOcrDpi(densityOf(meta)));
      return { run: startTesseractTsv({ dpi, lang, timeoutSeconds, pageNumber: 1 }), dpi, lang, timeoutSeconds };
    })
    .catch(() => undefined); // an unreadable file fails in parsePages, with its own error
  // Page 1 decoded, prepared and given to Tesseract now; undefined when anything fails (parsePages
  // then decodes and prepares it itself, and reports the error).
  const decoded = ready.then((r) => (r ? loadImagePage(imagePath, 0) : undefined)).catch(() => undefined);
  const prepared: Promise<PreparedImagePage | undefined> = decoded
    .then(async (image) => {
      const r = await ready;
      if (!r || !image || disposed) return undefined;
      const first = await prepareFirstReading(image, statedOcrDpi(image));
      if (disposed || firstReadDpi(statedOcrDpi(image)) !== r.dpi) return undefined;
      dir = await fs.mkdtemp(path.join(os.tmpdir(), 'docfleet-ocr-head-'));
      const file = path.join(dir, 'page-1.pgm');
      await writePgm(file, first.variant.image);
      if (disposed) return undefined;
      r.run.recognize(file).catch(() => undefined); // the result is awaited by whoever takes the run
      return { image, first, file };
    })
    .catch(() => undefined);
  // The decoded page is handed on (to be hashed) once Tesseract has it: on the one Node thread the
  // hash would otherwise run first, and Tesseract wait for it (a 35 Mpx photo: ~0.1-0.3 s).
  const decodedPage = prepared.then(() => decoded);
  return {
    imagePath,
    ready,
    decodedPage,
    async take(p, want) {
      const r = await ready;
      if (!r || taken || p !== imagePath) return undefined;
      taken = true;
      if (r.dpi !== want.dpi || r.lang !== want.lang || r.timeoutSeconds !== want.timeoutSeconds) {
        r.run.cancel();
        return undefined;
      }
      const page = await prepared;
      return { ...r.run, ...(page ? { prepared: page } : {}) };
    },
    async dispose() {
      disposed = true;
      const r = await ready;
      taken = true;
      r?.run.cancel(); // no-op once it has finished
      await prepared;
      if (dir) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
