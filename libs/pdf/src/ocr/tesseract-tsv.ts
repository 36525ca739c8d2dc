// Tesseract through node-tesseract-ocr, TSV output → TextRuns in page points.
// node-tesseract-ocr builds a shell command string, so the only path ever passed is one we
// generated inside our own temp dir (see assertSafePath); user file names never reach a shell.
import path from 'node:path';
import { recognize } from 'node-tesseract-ocr';
import { ParseError } from '../parse-error';
import type { TextRun } from '../types';

export interface OcrOptions {
  lang?: string;
  /** Resolution of the raster handed to Tesseract. */
  dpi: number;
  timeoutSeconds?: number;
  pageNumber?: number;
  psm?: number;
  /** Extra Tesseract variables (-c name=value); names and values are validated. */
  vars?: Record<string, string | number>;
}

const SAFE_PATH = /^[A-Za-z0-9_./-]+$/;
function assertSafePath(p: string): void {
  if (!path.isAbsolute(p) || !SAFE_PATH.test(p) || p.includes('..')) {
    throw new Error(`refusing to pass an unsafe path to the OCR shell command: ${JSON.stringify(p)}`);
  }
}

/** Runs Tesseract on a raster file we wrote and returns its TSV text. */
export async function runTesseractTsv(imagePath: string, opts: OcrOptions): Promise<string> {
  assertSafePath(imagePath);
  const lang = opts.lang ?? 'eng';
  if (!/^[A-Za-z_+]+$/.test(lang)) throw new Error(`invalid OCR language ${lang}`);
  const timeout = Math.max(1, Math.ceil(opts.timeoutSeconds ?? 120));
  // OMP_THREAD_LIMIT=1: Tesseract's OpenMP threads only fight each other on small machines
  // (measured ~2x faster on 2 cores). `timeout` kills a runaway process at the page limit.
  const binary = `OMP_THREAD_LIMIT=1 timeout -k 5 ${timeout} tesseract`;
  const started = Date.now();
  try {
    const vars: Record<string, string | number> = {};
    for (const [k, v] of Object.entries(opts.vars ?? {})) {
      if (!/^[a-z_]+$/.test(k) || !/^[A-Za-z0-9_.]+$/.test(String(v))) throw new Error(`invalid Tesseract variable ${k}`);
      vars[k] = v;
    }
    return await recognize(imagePath, { lang, oem: 1, psm: opts.psm ?? 3, dpi: opts.dpi, ...vars, presets: ['tsv'], binary });
  } catch (err) {
    if (Date.now() - started >= timeout * 1000 - 50) {
      throw new ParseError('page_timeout', `OCR exceeded the ${timeout}s page time limit`, { pageNumber: opts.pageNumber, cause: err });
    }
    throw new ParseError('ocr_failed', `Tesseract failed: ${(err as Error).message}`, { pageNumber: opts.pageNumber, cause: err });
  }
}

interface TsvWord { block: number; par: number; line: number; left: number; top: number; width: number; height: number; conf: number; text: string }

export function parseTsv(tsv: string): { words: TsvWord[]; lines: Map<string, TsvWord> } {
  const words: TsvWord[] = [];
  const lines = new Map<string, TsvWord>();
  for (const row of tsv.split('\n')) {
    const f = row.split('\t');
    if (f.length < 12 || f[0] === 'level') continue;
    const level = Number(f[0]);
    const w: TsvWord = {
      block: Number(f[2]), par: Number(f[3]), line: Number(f[4]),
      left: Number(f[6]), top: Number(f[7]), width: Number(f[8]), height: Number(f[9]), conf: Number(f[10]), text: f.slice(11).join('\t'),
    };
    if (level === 4) lines.set(`${w.block}.${w.par}.${w.line}`, w);
    else if (level === 5 && w.text.trim() && w.conf >= 0) words.push(w);
  }
  return { words, lines };
}

/** TSV words → runs in points (raster pixels scaled by 72/dpi). */
export function tsvToRuns(tsv: string, dpi: number, minConf = 0.2, offset: { x: number; y: number; key: string } = { x: 0, y: 0, key: '' }): TextRun[] {
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
    const ox = offset.x, oy = offset.y;
    // Tesseract line boxes span ascender to descender, a little less than the em size.
    const size = Math.max(4, lineH * 0.85);
    const y0 = w.top * k + oy, y1 = (w.top + w.height) * k + oy;
    const lineBottom = line ? (line.top + line.height) * k + oy : y1;
    runs.push({
      text: w.text.trim(), x0: w.left * k + ox, x1: (w.left + w.width) * k + ox, y0, y1,
      size, baseline: lineBottom - 0.2 * size, bold: false, italic: false, mono: false, conf, ocrLine: key,
    });
  }
  return runs;
}
