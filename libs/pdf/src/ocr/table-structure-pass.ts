// Structure pass for tables on scanned pages: the table region is read again with its ruling
// lines erased and Tesseract's adaptive thresholding, in one uniform text block (psm 6). Rules
// make Tesseract drop isolated cell values ("5", "1") and tinted header rows; without them the
// region reads cleanly. Words inside the region are replaced by the second reading.
import fs from 'node:fs/promises';
import path from 'node:path';
import { runTesseractTsv, tsvToRuns } from './tesseract-tsv';
import { eraseLines, type RasterLine } from './raster-rulings';
import { writePgm } from './preprocess';
import type { RawImage } from '../render/ppm';
import type { Box } from '../geometry';
import type { TextRun } from '../types';

export interface StructurePassInput {
  raster: RawImage;
  dpi: number;
  lines: RasterLine[];
  tables: Box[];
  runs: TextRun[];
  tmpDir: string;
  pageNumber: number;
  lang: string;
  timeoutSeconds: number;
}

export async function rereadTables(inp: StructurePassInput): Promise<TextRun[]> {
  let runs = inp.runs;
  const px = inp.dpi / 72;
  for (const [i, t] of inp.tables.entries()) {
    const left = Math.max(0, Math.floor(t.x0 * px) - 6),
      top = Math.max(0, Math.floor(t.y0 * px) - 6);
    const width = Math.min(inp.raster.width, Math.ceil(t.x1 * px) + 6) - left;
    const height = Math.min(inp.raster.height, Math.ceil(t.y1 * px) + 6) - top;
    if (width < 10 || height < 10) continue;
    const crop = eraseLines(inp.raster, inp.lines, { left, top, width, height });
    const file = path.join(inp.tmpDir, `table-${inp.pageNumber}-${i}.pgm`);
    await writePgm(file, crop);
    try {
      const tsv = await runTesseractTsv(file, {
        dpi: inp.dpi,
        lang: inp.lang,
        psm: 6,
        timeoutSeconds: inp.timeoutSeconds,
        pageNumber: inp.pageNumber,
        vars: { thresholding_method: 1 },
      });
      const fresh = tsvToRuns(tsv, inp.dpi, 0.3, { x: left / px, y: top / px, key: `t${i}:` });
      const inside = (r: TextRun) => {
        const cx = (r.x0 + r.x1) / 2,
          cy = (r.y0 + r.y1) / 2;
        return cx >= t.x0 && cx <= t.x1 && cy >= t.y0 && cy <= t.y1;
      };
      // Keep the first reading when the second found less text (a poor crop must not lose words).
      const before = runs.filter(inside).reduce((n, r) => n + r.text.length, 0);
      const after = fresh.filter(inside).reduce((n, r) => n + r.text.length, 0);
      if (after >= before) runs = [...runs.filter((r) => !inside(r)), ...fresh.filter(inside)];
    } finally {
      await fs.rm(file, { force: true });
    }
  }
  return runs;
}
