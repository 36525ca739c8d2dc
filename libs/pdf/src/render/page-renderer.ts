// Background page-image pipeline: pdftoppm renders small batches of pages to PPM in a temp dir
// and sharp encodes each to pages/page_NNNN.png, while the main thread extracts text. Only one
// batch of raw rasters exists at a time, so memory and temp disk stay flat for any page count.
// A page whose rendering has not started can be claimed by the OCR path, which makes its image
// from its own raster (one rasterisation per page).
import fs from 'node:fs/promises';
import path from 'node:path';
import { readPnm } from './ppm';
import { writePagePng } from './page-image';
import { isParseError } from '../parse-error';
import { rasterisePdf } from './rasterise';

export interface RenderedPage {
  file: string;
  relPath: string;
  width: number;
  height: number;
  /** Resolution it was rendered at (the requested dpi, or less for a page over the pixel budget). */
  dpi?: number;
}

const BATCH = 6;

export const pageImageName = (n: number) => `page_${String(n).padStart(4, '0')}.png`;

export class PageRenderer {
  private readonly waiting = new Map<
    number,
    { promise: Promise<RenderedPage>; resolve: (p: RenderedPage) => void; reject: (e: unknown) => void }
  >();
  private readonly abort = new AbortController();
  private readonly done: Promise<void>;
  /** Pages not yet handed to pdftoppm, ascending. */
  private readonly queue: number[];

  /**
   * @param dpiOf each page's resolution (pages of one batch share one); `budgetMs` bounds each page's
   * rendering: a batch over it is retried page by page, and a page over it alone fails with
   * ParseError('page_too_complex').
   */
  constructor(
    private readonly pdfPath: string,
    pages: number[],
    private readonly dpiOf: (n: number) => number,
    private readonly tmpDir: string,
    private readonly outDir: string,
    private readonly pageTimeoutMs: number,
    private readonly budgetMs?: number,
  ) {
    for (const n of pages) {
      let resolve!: (p: RenderedPage) => void, reject!: (e: unknown) => void;
      const promise = new Promise<RenderedPage>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      promise.catch(() => undefined); // observed later by page(); avoid unhandled-rejection noise
      this.waiting.set(n, { promise, resolve, reject });
    }
    this.queue = [...new Set(pages)].sort((a, b) => a - b);
    this.done = this.run();
  }

  /**
   * Takes page n away from the renderer if its batch has not started; the caller then writes the
   * page image itself. False when the page is rendering or rendered (or was never scheduled).
   */
  claim(n: number): boolean {
    const i = this.queue.indexOf(n);
    if (i < 0) return false;
    this.queue.splice(i, 1);
    this.waiting.get(n)!.reject(new Error(`page ${n} was claimed by the OCR path`));
    this.waiting.delete(n);
    return true;
  }

  page(n: number): Promise<RenderedPage> {
    const w = this.waiting.get(n);
    if (!w) return Promise.reject(new Error(`page ${n} was not scheduled for rendering`));
    return w.promise;
  }

  /** Stops after the current batch and waits, so the temp dir can be removed safely. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.done;
  }

  private async run(): Promise<void> {
    const dir = path.join(this.tmpDir, 'render');
    await fs.mkdir(dir, { recursive: true });
    while (this.queue.length && !this.abort.signal.aborted) {
      const group = nextBatch(this.queue, this.dpiOf);
      try {
        await this.render(dir, group);
      } catch (err) {
        // One slow page must not cost its neighbours their images: over the budget, page by page.
        if (group.length > 1 && isParseError(err) && err.code === 'page_too_complex') {
          for (const n of group) {
            if (this.abort.signal.aborted) break;
            await this.render(dir, [n]).catch((e) => this.waiting.get(n)!.reject(e));
          }
        } else {
          for (const n of group) this.waiting.get(n)!.reject(err);
        }
      }
    }
    const stopped = new Error('page rendering stopped');
    for (const w of this.waiting.values()) w.reject(stopped); // no-op for settled pages
  }

  private async render(dir: string, group: number[]): Promise<void> {
    const first = group[0]!,
      last = group[group.length - 1]!;
    const dpi = this.dpiOf(first);
    const files = await rasterisePdf(this.pdfPath, dir, {
      dpi,
      firstPage: first,
      lastPage: last,
      timeoutMs: this.pageTimeoutMs * group.length,
      budgetMs: this.budgetMs,
      signal: this.abort.signal,
    });
    try {
      for (const n of group) {
        const file = files.get(n);
        if (!file) throw new Error(`no image was rendered for page ${n}`);
        const raw = await readPnm(file);
        const relPath = `pages/${pageImageName(n)}`;
        const out = path.join(this.outDir, relPath);
        await writePagePng(raw, out);
        await fs.rm(file, { force: true });
        this.waiting.get(n)!.resolve({ file: out, relPath, width: raw.width, height: raw.height, dpi });
      }
    } finally {
      for (const f of files.values()) await fs.rm(f, { force: true });
    }
  }
}

/** Removes and returns the next run of up to BATCH consecutive pages of one resolution. */
function nextBatch(queue: number[], dpiOf: (n: number) => number): number[] {
  let k = 1;
  while (k < queue.length && k < BATCH && queue[k] === queue[k - 1]! + 1 && dpiOf(queue[k]!) === dpiOf(queue[0]!)) k++;
  return queue.splice(0, k);
}
