// The evaluation's parse step implemented with this library (inspect → parse → assemble).
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { assembleDocument, inspectDocument, parsePages } from '../src';
import { openPdf } from '../src/pdfjs-loader';
import type { EvalParseFn } from './corpus-eval';

export const libraryParse: EvalParseFn = async (file, kind, backend) => {
  const outDir = await fs.mkdtemp(path.join(os.tmpdir(), 'docfleet-eval-'));
  try {
    const chosen = backend === 'auto' ? (await inspectDocument(file, kind)).backend.backend : backend;
    const res = await parsePages({ path: file, kind, backend: chosen, outDir, renderPages: false });
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
    return { markdown, grounding, pageSizesPt };
  } finally {
    await fs.rm(outDir, { recursive: true, force: true });
  }
};

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
