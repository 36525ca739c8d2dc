// Rasterising with poppler's pdftoppm: a separate process (so it runs on the second core while
// JS extracts text) that writes uncompressed PPM/PGM, much cheaper than encoding PNG.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ParseError } from '../parse-error';

export interface RasteriseOptions {
  dpi: number;
  gray?: boolean;
  firstPage: number;
  lastPage: number;
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * Renders pages [firstPage, lastPage] into `dir` and returns page number → file path.
 * execFile (no shell) with an absolute input path, so a file name can't become an option or command.
 */
export async function rasterisePdf(pdfPath: string, dir: string, opts: RasteriseOptions): Promise<Map<number, string>> {
  const prefix = path.join(dir, `r${opts.firstPage}`);
  const args = ['-r', String(opts.dpi), '-f', String(opts.firstPage), '-l', String(opts.lastPage)];
  if (opts.gray) args.push('-gray');
  args.push(path.resolve(pdfPath), prefix);
  await new Promise<void>((resolve, reject) => {
    execFile('pdftoppm', args, { timeout: opts.timeoutMs ?? 120_000, maxBuffer: 1 << 20, signal: opts.signal }, (err, _out, stderr) => {
      if (!err) return resolve();
      if (opts.signal?.aborted) return reject(new Error('rendering aborted'));
      if ((err as { killed?: boolean }).killed) {
        return reject(new ParseError('page_timeout', `rendering pages ${opts.firstPage}-${opts.lastPage} exceeded the time limit`, { pageNumber: opts.firstPage }));
      }
      reject(new ParseError('render_failed', `pdftoppm failed: ${String(stderr).trim() || err.message}`, { pageNumber: opts.firstPage, cause: err }));
    });
  });
  // pdftoppm zero-pads page numbers to the width of the document's page count.
  const files = (await fs.readdir(dir)).filter((f) => f.startsWith(`r${opts.firstPage}-`));
  const out = new Map<number, string>();
  for (const f of files) {
    const m = /-(\d+)\.(ppm|pgm)$/.exec(f);
    if (m) out.set(Number(m[1]), path.join(dir, f));
  }
  return out;
}
