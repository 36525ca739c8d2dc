// When page images are off, pages with figures or tables still need a raster for their crops.
// Those pages are queued as soon as the text phase finds them, so pdftoppm renders them in the
// background (one at a time) instead of serially inside the figures phase.
import fs from 'node:fs/promises';
import path from 'node:path';
import { readPnm, type RawImage } from './ppm';
import { rasterisePdf } from './rasterise';

export class CropRasters {
  private chain: Promise<unknown> = Promise.resolve();
  private readonly files = new Map<number, Promise<string>>();
  private readonly abort = new AbortController();

  /** `dpiOf`: each page's resolution (capped by the pixel budget); `budgetMs` bounds each render. */
  constructor(
    private readonly pdfPath: string,
    private readonly dir: string,
    private readonly dpiOf: (n: number) => number,
    private readonly timeoutMs: number,
    private readonly budgetMs?: number,
  ) {}

  schedule(n: number): void {
    if (this.files.has(n)) return;
    const job = this.chain.then(async () => {
      await fs.mkdir(this.dir, { recursive: true });
      const out = await rasterisePdf(this.pdfPath, this.dir, {
        dpi: this.dpiOf(n),
        firstPage: n,
        lastPage: n,
        timeoutMs: this.timeoutMs,
        budgetMs: this.budgetMs,
        signal: this.abort.signal,
      });
      const f = out.get(n);
      if (!f) throw new Error(`no raster for page ${n}`);
      return f;
    });
    job.catch(() => undefined);
    this.chain = job.catch(() => undefined);
    this.files.set(n, job);
  }

  async take(n: number): Promise<RawImage> {
    this.schedule(n);
    const file = await this.files.get(n)!;
    this.files.delete(n);
    try {
      return await readPnm(file);
    } finally {
      await fs.rm(file, { force: true });
    }
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.chain;
  }

  static dirIn(tmp: string): string {
    return path.join(tmp, 'crops');
  }
}
