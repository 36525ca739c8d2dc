// Background page-image pipeline: pdftoppm renders small batches of pages to PPM in a temp dir
// and sharp encodes each to pages/page_NNNN.png, while the main thread extracts text. Only one
// batch of raw rasters exists at a time, so memory and temp disk stay flat for any page count.
// A page whose rendering has not started can be claimed by the OCR path, which makes its image
// from its own raster (one rasterisation per page).
import fs from 'node:fs/promises';
import path from 'node:path';
import { readPnm } from './ppm';
import { writePagePng } from './page-image';
import { rasterisePdf } from './rasterise';

export interface RenderedPage { file: string; relPath: string; width: number; height: number }

const BATCH = 6;

export const pageImageName = (n: number) => `page_${String(n).padStart(4, '0')}.png`;

export class PageRenderer {
  private readonly waiting = new Map<number, { promise: Promise<RenderedPage>; resolve: (p: RenderedPage) => void; reject: (e: unknown) => void }>();
  private readonly abort = new AbortController();
  private readonly done: Promise<void>;
  /** Pages not yet handed to pdftoppm, ascending. */
  private readonly queue: number[];

  constructor(private readonly pdfPath: string, pages: number[], private readonly dpi: number, private readonly tmpDir: string,
    private readonly outDir: string, private readonly pageTimeoutMs: number) {
    for (const n of pages) {
      let resolve!: (p: RenderedPage) => void, reject!: (e: unknown) => void;
      const promise = new Promise<RenderedPage>((res, rej) => { resolve = res; reject = rej; });
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
      const group = nextBatch(this.queue);
      const first = group[0]!, last = group[group.length - 1]!;
      try {
        const files = await rasterisePdf(this.pdfPath, dir, {
          dpi: this.dpi, firstPage: first, lastPage: last, timeoutMs: this.pageTimeoutMs * group.length, signal: this.abort.signal,
        });
        for (const n of group) {
          const file = files.get(n);
          if (!file) throw new Error(`pdftoppm produced no image for page ${n}`);
          const raw = await readPnm(file);
          const relPath = `pages/${pageImageName(n)}`;
          const out = path.join(this.outDir, relPath);
          await writePagePng(raw, out);
          await fs.rm(file, { force: true });
          this.waiting.get(n)!.resolve({ file: out, relPath, width: raw.width, height: raw.height });
        }
      } catch (err) {
        for (const n of group) this.waiting.get(n)!.reject(err);
      }
    }
    const stopped = new Error('page rendering stopped');
    for (const w of this.waiting.values()) w.reject(stopped); // no-op for settled pages
  }
}

/** Removes and returns the next run of up to BATCH consecutive pages. */
function nextBatch(queue: number[]): number[] {
  let k = 1;
  while (k < queue.length && k < BATCH && queue[k] === queue[k - 1]! + 1) k++;
  return queue.splice(0, k);
}
