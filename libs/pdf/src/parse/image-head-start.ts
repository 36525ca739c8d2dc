// A head start for OCR of an image: the worker knows an image is an OCR parse before it has hashed
// and diffed it, so Tesseract starts then and loads its model (~100-150 ms, as long as the whole
// page-diff of a receipt) while that runs. parsePages hands it page 1's raster when it reads page 1
// of that file with the same --dpi, language and timeout; otherwise it is cancelled.
import sharp from 'sharp';
import { densityOf, statedOcrDpi } from '../render/image-input';
import { firstReadDpi } from '../ocr/recognise';
import { startTesseractTsv, type TesseractRun } from '../ocr/tesseract-tsv';

export interface ImageOcrHeadStartOptions {
  /** As parsePages' ocrLang and timeoutSeconds (the head start is only used when they match). */
  ocrLang?: string;
  timeoutSeconds?: number;
}

export interface ImageOcrHeadStart {
  readonly imagePath: string;
  /** The waiting Tesseract and the arguments it was started with; undefined when the file could not be read. */
  readonly ready: Promise<{ run: TesseractRun; dpi: number; lang: string; timeoutSeconds: number } | undefined>;
  /** Hands the run over once (later calls, or a mismatch, give undefined and the caller starts its own). */
  take(
    imagePath: string,
    want: { dpi: number; lang: string; timeoutSeconds: number },
  ): Promise<TesseractRun | undefined>;
  dispose(): Promise<void>;
}

/** Starts Tesseract for page 1 of an image ahead of parsePages; pass it as `imageOcrHeadStart` and dispose() it afterwards. */
export function startImageOcrHeadStart(imagePath: string, opts: ImageOcrHeadStartOptions = {}): ImageOcrHeadStart {
  const lang = opts.ocrLang ?? 'eng';
  const timeoutSeconds = opts.timeoutSeconds ?? 120;
  let taken = false;
  const ready = sharp(imagePath, { page: 0, pages: 1 })
    .metadata()
    .then((meta) => {
      const dpi = firstReadDpi(statedOcrDpi(densityOf(meta)));
      return { run: startTesseractTsv({ dpi, lang, timeoutSeconds, pageNumber: 1 }), dpi, lang, timeoutSeconds };
    })
    .catch(() => undefined); // an unreadable file fails in parsePages, with its own error
  return {
    imagePath,
    ready,
    async take(path, want) {
      const r = await ready;
      if (!r || taken || path !== imagePath) return undefined;
      taken = true;
      if (r.dpi !== want.dpi || r.lang !== want.lang || r.timeoutSeconds !== want.timeoutSeconds) {
        r.run.cancel();
        return undefined;
      }
      return r.run;
    },
    async dispose() {
      const r = await ready;
      taken = true;
      r?.run.cancel(); // no-op once it has finished
    },
  };
}
