import { openPdf } from '../src/pdfjs-loader';

/**
 * The benchmarks' baseline: raw pdf.js text extraction plus rendering (and PNG encoding) of every
 * page, with none of docfleet's work. Shared by libs/pdf/bench/parse-speed.ts and bench/parse.bench.ts.
 */
export async function rawPdfjs(files: string[], dpi: number): Promise<void> {
  for (const file of files) {
    const doc = await openPdf(file);
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      await page.getTextContent();
      const viewport = page.getViewport({ scale: dpi / 72 });
      const factory = (
        doc as unknown as {
          canvasFactory: { create(w: number, h: number): { canvas: { encode(f: string): Promise<Buffer> } } };
        }
      ).canvasFactory;
      const { canvas } = factory.create(Math.ceil(viewport.width), Math.ceil(viewport.height));
      await page.render({ canvas: canvas as never, viewport }).promise;
      await canvas.encode('png');
      page.cleanup();
    }
    await doc.destroy();
  }
}
