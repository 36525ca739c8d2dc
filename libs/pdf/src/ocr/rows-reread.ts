// The header rows and the body rows read again together, when both re-reads are asked for
// (header-reread.ts, body-reread.ts): each is a few rows cut out of the page and stacked, read by a
// Tesseract run of its own (psm 6) whose model loads beside the page's first reading. Read apart,
// a page starts three such processes (the header's two readings, the body's one) and loads the
// fast model twice. Here the stacks go to one process per model instead, each reading its stacks as
// the pages of one run (a file list: no stack mixes sizes, which makes Tesseract drop the smaller
// rows): the header's 48 px stack and the body's stack with the system's model, the header's 32 px
// stack with the best model. The body's rows may be narrowed to those with figures read with doubt
// (dates, amounts: `evidence: 'figures'`), not the rows with unread ink or no reading; measured on
// the receipts that saves no time the runs could tell (the body's part still ran on 56 of 60 pages)
// and loses totals and a date (micro F1 0.769 -> 0.761), so all the body's evidence is the default
// (docs/benchmarks.md, issue 23, 2026-11-29 "Both re-reads together").
import path from 'node:path';
import type { GrayImage, Rect } from './preprocess';
import { recognizeImages, type TesseractRun } from './tesseract-tsv';
import { startStackRun } from './band-reread';
import { bestModelDir } from './tessdata-best';
import {
  doubtfulHeaderRows,
  mergeHeaderReadings,
  READINGS,
  stackHeaderRows,
  type HeaderReading,
  type HeaderReread,
} from './header-reread';
import { lostTextRows, mergeBodyReading, stackBodyRows, type BodyEvidence, type BodyReread } from './body-reread';
import type { OcrWord } from './recognise';

export interface RowsRereadOptions {
  lang: string;
  timeoutSeconds: number;
  pageNumber: number;
  tmpDir: string;
  /** Otsu's threshold of `clean` when the caller has it (else computed). */
  threshold?: number;
  /** The header's re-readings (READINGS unless given). */
  readings?: HeaderReading[];
  /** What puts a body row in doubt (lostTextRows): all of body-reread.ts's evidence unless given. */
  evidence?: BodyEvidence;
  /** The processes started beforehand (startRowRuns with these options); started here when not given. */
  runs?: RowRuns;
}

/** One Tesseract process (psm 6) per model the stacks are read with. */
export type RowRuns = Map<HeaderReading['model'], TesseractRun>;

/** The model the body rows are read with (as body-reread.ts reads them). */
const BODY_MODEL: HeaderReading['model'] = 'system';

/**
 * The processes rereadRows reads its stacks with, one per model (the header readings' and the
 * body's): started early, their models load beside the page's first reading.
 */
export async function startRowRuns(
  opts: Pick<RowsRereadOptions, 'lang' | 'timeoutSeconds' | 'pageNumber' | 'readings'>,
): Promise<RowRuns> {
  const models = new Set([...(opts.readings ?? READINGS).map((r) => r.model), BODY_MODEL]);
  const best = models.has('best') ? await bestModelDir(opts.lang) : undefined;
  const { lang, timeoutSeconds, pageNumber } = opts;
  return new Map(
    [...models].map((m) => [
      m,
      startStackRun({ lang, timeoutSeconds, pageNumber, ...(m === 'best' && best ? { tessdataDir: best } : {}) }),
    ]),
  );
}

/**
 * `words` (a page's reading, boxes in the original image's pixels) with its doubtful header rows
 * and its body rows that lost text read again, one Tesseract process per model; `header` and
 * `body` as rereadHeaderRows and rereadBodyRows report them (undefined when that part had no row;
 * both carry the time of the whole step). The runs not given anything are cancelled.
 */
export async function rereadRows(
  words: OcrWord[],
  clean: GrayImage,
  paper: Rect,
  opts: RowsRereadOptions,
): Promise<{ words: OcrWord[]; header?: HeaderReread; body?: BodyReread }> {
  const t0 = Date.now();
  const readings = opts.readings ?? READINGS;
  const headerRows = doubtfulHeaderRows(words, clean, paper);
  const lost = lostTextRows(words, clean, paper, opts.threshold, opts.evidence ?? 'all');
  if (!headerRows.length && !lost.length) {
    for (const run of opts.runs?.values() ?? []) run.cancel();
    return { words };
  }
  const runs = opts.runs ?? (await startRowRuns(opts));
  const first = new Set(words);
  try {
    const cut = headerRows.length ? await stackHeaderRows(headerRows, clean, readings) : undefined;
    const stack = lost.length ? stackBodyRows(lost, clean) : undefined;
    // The images each process reads, in order: the header's stacks of its model, then the body's.
    const jobs = [...runs].map(([model, run]) => ({
      run,
      images: [
        ...(cut
          ? readings.flatMap((r, k) => (r.model === model ? [{ what: `header-${k}`, image: cut.stacks[k]! }] : []))
          : []),
        ...(stack && model === BODY_MODEL ? [{ what: 'body', image: stack.image }] : []),
      ],
    }));
    const tsv = new Map<string, string>();
    await Promise.all(
      jobs.map(async ({ run, images }) => {
        if (!images.length) return run.cancel();
        const files = images.map((i) => ({
          file: path.join(opts.tmpDir, `rows-${opts.pageNumber}-${i.what}.pgm`),
          image: i.image,
        }));
        const out = await recognizeImages(run, files);
        images.forEach((i, n) => tsv.set(i.what, out[n]!));
      }),
    );
    const header = cut
      ? mergeHeaderReadings(
          words,
          cut,
          readings.map((_, k) => tsv.get(`header-${k}`)!),
          paper,
        )
      : undefined;
    // A row the header mended is the header's: read apart, the body's rows are chosen on the header's
    // mended reading (where such a row is read surely); read together, both are chosen on the first
    // reading, and the body's reading of a mended header row at its own size would undo the mend.
    const fresh = header ? header.words.filter((w) => !first.has(w)) : [];
    const mended = headerRows.filter((h) =>
      fresh.some((w) => {
        const m = (w.y0 + w.y1) / 2 - paper.y;
        return m >= h.core.y0 && m <= h.core.y1;
      }),
    );
    const own = (c: { y0: number; y1: number }) =>
      !mended.some((h) => Math.min(h.core.y1, c.y1) - Math.max(h.core.y0, c.y0) > 0.5 * (c.y1 - c.y0));
    const body = stack
      ? mergeBodyReading(
          header?.words ?? words,
          { ...stack, bands: stack.bands.map((b) => ({ ...b, cores: b.cores.filter(own) })) },
          tsv.get('body')!,
          paper,
        )
      : undefined;
    const ms = Date.now() - t0;
    return {
      words: body?.words ?? header?.words ?? words,
      ...(header ? { header: { ...header, ms } } : {}),
      ...(body ? { body: { ...body, ms } } : {}),
    };
  } catch (err) {
    for (const run of runs.values()) run.cancel();
    throw err;
  }
}
