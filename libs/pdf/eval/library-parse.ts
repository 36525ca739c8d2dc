// The evaluation's parse step implemented with this library (inspect → parse → assemble).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assembleDocument, inspectDocument, parsePages } from '../src';
import { openPdf } from '../src/pdfjs-loader';
import type { TextLayerUse } from '../src/ocr/text-layer-words';
import type { EvalParseFn, ParsedForEval } from './corpus-eval';

export const libraryParse: EvalParseFn = (file, kind, backend) => libraryParsePages(file, kind, backend);

/**
 * libraryParse on some pages only (default every page), with what OCR did with each page's text
 * layer (pages read by OCR over a text layer).
 */
export async function libraryParsePages(
  file: string,
  kind: 'pdf' | 'image',
  backend: 'auto' | 'text' | 'ocr',
  pageNumbers?: number[],
  timeoutSeconds?: number,
): Promise<ParsedForEval & { textLayer: Array<TextLayerUse | undefined> }> {
  const outDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docfleet-eval-'));
  try {
    const chosen = backend === 'auto' ? (await inspectDocument(file, kind)).backend.backend : backend;
    const res = await parsePages({
      path: file,
      kind,
      backend: chosen,
      outDir,
      renderPages: false,
      ...(pageNumbers ? { pageNumbers } : {}),
      ...(timeoutSeconds ? { timeoutSeconds } : {}),
    });
    const { grounding, markdown } = assembleDocument(
      path.basename(file),
      kind,
      res.pages.map((p) => p.grounding),
      res.pages.map((p) => p.markdown),
      chosen,
    );
    const pageSizesPt =
      kind === 'pdf'
        ? await pdfPageSizes(file)
        : grounding.pages.map((p) => ({
            width: (p.width * 72) / (p.dpi ?? 72),
            height: (p.height * 72) / (p.dpi ?? 72),
          }));
    return { markdown, grounding, pageSizesPt, textLayer: res.pages.map((p) => p.textLayer) };
  } finally {
    await fs.rm(outDir, { recursive: true, force: true });
  }
}

async function pdfPageSizes(file: string): Promise<Array<{ width: number; height: number }>> {
  const doc = await openPdf(file);
  try {
    const out = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const vp = (await doc.getPage(n)).getViewport({ scale: 1 });
      out.push({ width: vp.width, height: vp.height });
    }
    return out;
  } finally {
    await doc.destroy();
  }
}
