// Tesseract TSV output → TextRuns in page points. Tesseract is started directly (spawn through
// run-tool: no shell, no `timeout` wrapper), with the arguments the plain CLI gets. Only raster
// files we generated in our own temp dir are passed (assertSafePath), so a user's file name never
// reaches the command line or the process at all.
import fs from 'node:fs/promises';
import path from 'node:path';
import { ParseError } from '../parse-error';
import { runTool, ToolError, type ToolOptions } from '../render/run-tool';
import type { TextRun } from '../types';
import { writePgm, type GrayImage } from './preprocess';

export interface OcrOptions {
  lang?: string;
  /**
   * Resolution of the raster handed to Tesseract; 0 lets Tesseract estimate it from the text (for
   * images whose file states no resolution: a guessed one changes what Tesseract reads).
   */
  dpi: number;
  timeoutSeconds?: number;
  pageNumber?: number;
  psm?: number;
  /** Directory of the language model (--tessdata-dir) when not the system's (tessdata-best.ts). */
  tessdataDir?: string;
  /** Extra Tesseract variables (-c name=value); names and values are validated. */
  vars?: Record<string, string | number>;
}

const SAFE_PATH = /^[A-Za-z0-9_./-]+$/;
function assertSafePath(p: string): void {
  if (!path.isAbsolute(p) || !SAFE_PATH.test(p) || p.includes('..')) {
    throw new Error(`refusing to pass an unsafe path to Tesseract: ${JSON.stringify(p)}`);
  }
}

function tesseractArgs(input: string, opts: OcrOptions): string[] {
  const lang = opts.lang ?? 'eng';
  if (!/^[A-Za-z_+]+$/.test(lang)) throw new Error(`invalid OCR language ${lang}`);
  const args = [
    input,
    'stdout',
    '-l',
    lang,
    '--oem',
    '1',
    '--psm',
    String(opts.psm ?? 3),
    ...(opts.dpi > 0 ? ['--dpi', String(opts.dpi)] : []),
  ];
  if (opts.tessdataDir) {
    assertSafePath(opts.tessdataDir);
    args.push('--tessdata-dir', opts.tessdataDir);
  }
  for (const [k, v] of Object.entries(opts.vars ?? {})) {
    if (!/^[a-z_]+$/.test(k) || !/^[A-Za-z0-9_.]+$/.test(String(v))) throw new Error(`invalid Tesseract variable ${k}`);
    args.push('-c', `${k}=${v}`);
  }
  args.push('tsv');
  return args;
}

const timeoutOf = (opts: OcrOptions) => Math.max(1, Math.ceil(opts.timeoutSeconds ?? 120));

async function tesseract(
  args: string[],
  opts: OcrOptions,
  extra: Pick<ToolOptions, 'input' | 'signal'> = {},
): Promise<string> {
  const timeout = timeoutOf(opts);
  try {
    // OMP_THREAD_LIMIT=1: Tesseract's OpenMP threads only fight each other on small machines
    // (measured ~2x faster on 2 cores). The process is killed at the page limit.
    const { stdout } = await runTool('tesseract', args, {
      env: { OMP_THREAD_LIMIT: '1' },
      timeoutMs: timeout * 1000,
      ...extra,
    });
    return stdout;
  } catch (err) {
    if (err instanceof ToolError && err.details.timedOut) {
      throw new ParseError('page_timeout', `OCR exceeded the ${timeout}s page time limit`, {
        pageNumber: opts.pageNumber,
        cause: err,
      });
    }
    // The tool's output stays on the cause (logged), never in the message (shown to callers).
    throw new ParseError(
      'ocr_failed',
      `text recognition failed${opts.pageNumber ? ` on page ${opts.pageNumber}` : ''}`,
      { pageNumber: opts.pageNumber, cause: err },
    );
  }
}

/** Runs Tesseract on a raster file we wrote and returns its TSV text. */
export async function runTesseractTsv(imagePath: string, opts: OcrOptions): Promise<string> {
  assertSafePath(imagePath);
  return tesseract(tesseractArgs(imagePath, opts), opts);
}

export interface TesseractRun {
  /**
   * Hands the raster file to the waiting process and resolves with its TSV (the page limit runs
   * from here). Calling it again with the same file returns the same result. Several files are read
   * one after the other by the one process (its model loaded once), as the pages of one TSV
   * (`splitTsvPages`).
   */
  recognize(imagePath: string | string[]): Promise<string>;
  /** Kills the process unless it has finished (not needed after all, or the page failed). */
  cancel(): void;
}

/**
 * Starts Tesseract before its raster exists: it loads its model (~100 ms) while pdftoppm renders,
 * then reads the raster's path from stdin as a one-line file list and reads the file itself. The
 * TSV is byte-identical to `tesseract FILE stdout …` with the same arguments.
 */
export function startTesseractTsv(opts: OcrOptions): TesseractRun {
  let args: string[];
  try {
    args = tesseractArgs('stdin', opts);
  } catch (err) {
    return { recognize: () => Promise.reject(err), cancel: () => undefined };
  }
  let give!: (line: string) => void;
  const input = new Promise<string>((resolve) => {
    give = resolve;
  });
  const abort = new AbortController();
  const result = tesseract(args, opts, { input, signal: abort.signal });
  result.catch(() => undefined);
  let given: string | undefined;
  return {
    recognize: (imagePath) => {
      const files = typeof imagePath === 'string' ? [imagePath] : imagePath;
      const list = files.map((f) => `${f}\n`).join('');
      if (given !== undefined) {
        return given === list ? result : Promise.reject(new Error(`Tesseract was already given ${given}`));
      }
      try {
        if (!files.length) throw new Error('no file given to Tesseract');
        files.forEach(assertSafePath);
      } catch (err) {
        abort.abort();
        return Promise.reject(err);
      }
      given = list;
      give(list);
      return result;
    },
    cancel: () => abort.abort(),
  };
}

/** What Tesseract's orientation and script detection (--psm 0) says about a page. */
export interface OsdResult {
  /** Clockwise turn that makes the page upright, and how sure it is. */
  rotate: number;
  confidence: number;
  /** The page's script as OSD names it ("Latin", "Arabic", "Cyrillic", ...), and how sure it is. */
  script?: string;
  scriptConfidence?: number;
}

/**
 * Tesseract's orientation and script detection (--psm 0): how far the page must be turned clockwise
 * to read upright, and its script, with their confidences. Undefined when it could not tell (too
 * little text).
 */
export async function detectOrientation(
  imagePath: string,
  opts: Pick<OcrOptions, 'timeoutSeconds' | 'pageNumber'> & { signal?: AbortSignal },
): Promise<OsdResult | undefined> {
  assertSafePath(imagePath);
  let out: string;
  const { signal, ...rest } = opts;
  try {
    out = await tesseract([imagePath, 'stdout', '--psm', '0', '-l', 'osd'], { dpi: 0, ...rest }, { signal });
  } catch {
    // OSD fails on pages with too few characters (the page is read as it is), or the check was stopped.
    return undefined;
  }
  const rotate = /Rotate:\s*(\d+)/.exec(out),
    conf = /Orientation confidence:\s*([\d.]+)/.exec(out);
  if (!rotate || !conf) return undefined;
  const script = /Script:\s*(\S+)/.exec(out),
    scriptConf = /Script confidence:\s*([\d.]+)/.exec(out);
  return {
    rotate: Number(rotate[1]),
    confidence: Number(conf[1]),
    ...(script && scriptConf ? { script: script[1]!, scriptConfidence: Number(scriptConf[1]) } : {}),
  };
}

export interface TsvWord {
  block: number;
  par: number;
  line: number;
  left: number;
  top: number;
  width: number;
  height: number;
  conf: number;
  text: string;
}

/** Unicode's directional marks, embeddings, overrides and isolates. */
const BIDI_MARKS = /[\u200E\u200F\u061C\u202A-\u202E\u2066-\u2069]/g;

export function parseTsv(tsv: string): { words: TsvWord[]; lines: Map<string, TsvWord> } {
  const words: TsvWord[] = [];
  const lines = new Map<string, TsvWord>();
  for (const row of tsv.split('\n')) {
    const f = row.split('\t');
    if (f.length < 12 || f[0] === 'level') continue;
    const level = Number(f[0]);
    const w: TsvWord = {
      block: Number(f[2]),
      par: Number(f[3]),
      line: Number(f[4]),
      left: Number(f[6]),
      top: Number(f[7]),
      width: Number(f[8]),
      height: Number(f[9]),
      conf: Number(f[10]),
      // Right-to-left readings mark directions (U+200F after "R" in an Arabic line); the words are
      // already in logical order, and the layout orders them, so the invisible marks are dropped.
      text: f.slice(11).join('\t').replace(BIDI_MARKS, ''),
    };
    if (level === 4) lines.set(`${w.block}.${w.par}.${w.line}`, w);
    else if (level === 5 && w.text.trim() && w.conf >= 0) words.push(w);
  }
  return { words, lines };
}

/**
 * The TSV of a run given several files (`TesseractRun.recognize([...])`), one TSV per file in the
 * order given (Tesseract numbers them as pages, from 1); a page that read nothing is an empty TSV.
 */
export function splitTsvPages(tsv: string, count: number): string[] {
  const pages: string[][] = Array.from({ length: count }, () => []);
  for (const row of tsv.split('\n')) {
    const f = row.split('\t');
    if (f.length < 12 || f[0] === 'level') continue;
    pages[Number(f[1]) - 1]?.push(row);
  }
  return pages.map((rows) => rows.join('\n'));
}

/**
 * Share of the page that the reading's automatic segmentation took for a picture: the largest
 * block (TSV level 2) in which no word has text, over the page's area (level 1). A faint or busy
 * page that psm 3 takes for one picture shows it as a block about the size of the page.
 */
export function pictureShare(tsv: string): number {
  let page = 0;
  const blocks = new Map<number, { area: number; text: boolean }>();
  for (const row of tsv.split('\n')) {
    const f = row.split('\t');
    if (f.length < 12 || f[0] === 'level') continue;
    const level = Number(f[0]),
      area = Number(f[8]) * Number(f[9]),
      block = Number(f[2]);
    if (level === 1) page = Math.max(page, area);
    else if (level === 2) blocks.set(block, { area, text: false });
    else if (level === 5 && f.slice(11).join('\t').trim()) {
      const b = blocks.get(block);
      if (b) b.text = true;
    }
  }
  let largest = 0;
  for (const b of blocks.values()) if (!b.text) largest = Math.max(largest, b.area);
  return page ? Math.min(1, largest / page) : 0;
}

/** TSV words → runs in points (raster pixels scaled by 72/dpi). */
export function tsvToRuns(
  tsv: string,
  dpi: number,
  minConf = 0.2,
  offset: { x: number; y: number; key: string } = { x: 0, y: 0, key: '' },
): TextRun[] {
  const { words, lines } = parseTsv(tsv);
  const k = 72 / dpi;
  const runs: TextRun[] = [];
  for (const w of words) {
    const conf = w.conf / 100;
    // Very low confidence "words" on graphics are noise (rules, logos read as letters).
    if (conf < minConf && !/[A-Za-z0-9]{3,}/.test(w.text)) continue;
    const line = lines.get(`${w.block}.${w.par}.${w.line}`);
    const key = `${offset.key}${w.block}.${w.par}.${w.line}`;
    const lineH = (line?.height ?? w.height) * k;
    const ox = offset.x,
      oy = offset.y;
    // Tesseract line boxes span ascender to descender, a little less than the em size.
    const size = Math.max(4, lineH * 0.85);
    const y0 = w.top * k + oy,
      y1 = (w.top + w.height) * k + oy;
    const lineBottom = line ? (line.top + line.height) * k + oy : y1;
    runs.push({
      text: w.text.trim(),
      x0: w.left * k + ox,
      x1: (w.left + w.width) * k + ox,
      y0,
      y1,
      size,
      baseline: lineBottom - 0.2 * size,
      bold: false,
      italic: false,
      mono: false,
      conf,
      ocrLine: key,
    });
  }
  return runs;
}

/**
 * Writes `image` to `file`, reads it with the started `run` and removes the file; the run is cancelled
 * when writing or reading fails (the stacked-rows re-reads: header-reread.ts, body-reread.ts).
 */
export async function recognizeImage(
  run: TesseractRun,
  file: string,
  image: Pick<GrayImage, 'width' | 'height' | 'data'>,
): Promise<string> {
  return (await recognizeImages(run, [{ file, image }]))[0]!;
}

/**
 * Writes each image to its file, reads them all with the one started `run` (one process, its model
 * loaded once) and removes the files; one TSV per image, in order. The run is cancelled when writing
 * or reading fails.
 */
export async function recognizeImages(
  run: TesseractRun,
  images: Array<{ file: string; image: Pick<GrayImage, 'width' | 'height' | 'data'> }>,
): Promise<string[]> {
  try {
    await Promise.all(images.map((i) => writePgm(i.file, i.image)));
    const tsv = await run.recognize(images.map((i) => i.file));
    return images.length === 1 ? [tsv] : splitTsvPages(tsv, images.length);
  } catch (err) {
    run.cancel();
    throw err;
  } finally {
    await Promise.all(images.map((i) => fs.rm(i.file, { force: true })));
  }
}
