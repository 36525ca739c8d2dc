// Rasterising with poppler's pdftoppm: a separate process (so it runs on the second core while
// JS extracts text) that writes uncompressed PPM/PGM, much cheaper than encoding PNG.
import fs from 'node:fs/promises';
import path from 'node:path';
import { ParseError } from '../parse-error';
import { runTool, ToolError } from './run-tool';

export interface RasteriseOptions {
  dpi: number;
  gray?: boolean;
  firstPage: number;
  lastPage: number;
  timeoutMs?: number;
  /**
   * The page budget's time for rendering (bounded path): when it is the tighter limit, running over
   * it is ParseError 'page_too_complex' (a failed page) instead of 'page_timeout' (a failed job).
   */
  budgetMs?: number;
  signal?: AbortSignal;
}

async function pdftoppm(pdfPath: string, args: string[], opts: RasteriseOptions): Promise<void> {
  // An absolute input path, so a file name can't become an option.
  const all = [
    '-r',
    String(opts.dpi),
    '-f',
    String(opts.firstPage),
    '-l',
    String(opts.lastPage),
    ...(opts.gray ? ['-gray'] : []),
    ...args,
  ];
  all.splice(all.length - 1, 0, path.resolve(pdfPath));
  const timeoutMs = opts.timeoutMs ?? 120_000;
  const byBudget = opts.budgetMs !== undefined && opts.budgetMs <= timeoutMs;
  const pages =
    opts.firstPage === opts.lastPage ? `page ${opts.firstPage}` : `pages ${opts.firstPage}-${opts.lastPage}`;
  try {
    await runTool('pdftoppm', all, {
      timeoutMs: byBudget ? opts.budgetMs : timeoutMs,
      signal: opts.signal,
      maxBuffer: 1 << 20,
    });
  } catch (err) {
    if (opts.signal?.aborted) throw new Error('rendering aborted');
    if (err instanceof ToolError && err.details.timedOut) {
      if (byBudget)
        throw new ParseError(
          'page_too_complex',
          `rendering ${pages} took longer than the page time budget (${opts.budgetMs! / 1000}s)`,
          { pageNumber: opts.firstPage, cause: err },
        );
      throw new ParseError('page_timeout', `rendering ${pages} exceeded the time limit`, {
        pageNumber: opts.firstPage,
        cause: err,
      });
    }
    // The tool's own output stays on the cause (logged), never in the message (shown to callers).
    throw new ParseError('render_failed', `${pages} could not be rendered to an image`, {
      pageNumber: opts.firstPage,
      cause: err,
    });
  }
}

/** Renders pages [firstPage, lastPage] into `dir` and returns page number → file path. */
export async function rasterisePdf(pdfPath: string, dir: string, opts: RasteriseOptions): Promise<Map<number, string>> {
  await pdftoppm(pdfPath, [path.join(dir, `r${opts.firstPage}`)], opts);
  // pdftoppm zero-pads page numbers to the width of the document's page count.
  const files = (await fs.readdir(dir)).filter((f) => f.startsWith(`r${opts.firstPage}-`));
  const out = new Map<number, string>();
  for (const f of files) {
    const m = /-(\d+)\.(ppm|pgm)$/.exec(f);
    if (m) out.set(Number(m[1]), path.join(dir, f));
  }
  return out;
}

/** Renders one page to `{prefix}.pgm` (gray) or `{prefix}.ppm` (-singlefile: no directory listing). */
export async function rasterisePage(
  pdfPath: string,
  prefix: string,
  page: number,
  opts: Omit<RasteriseOptions, 'firstPage' | 'lastPage'>,
): Promise<string> {
  await pdftoppm(pdfPath, ['-singlefile', prefix], { ...opts, firstPage: page, lastPage: page });
  return `${prefix}.${opts.gray ? 'pgm' : 'ppm'}`;
}
