// Cheap look at a spreadsheet for credit estimation (1 credit per sheet): the zip central directory
// and workbook.xml only; no worksheet is inflated.
import { checkCsvFile } from './csv-reader';
import { resolveLimits, type SheetLimits } from './limits';
import { csvSheetName } from './parse-spreadsheet';
import type { SpreadsheetKind } from './types';
import { readWorkbookIndex } from './xlsx-package';
import { openXlsxZip } from './xlsx-open';

export interface SpreadsheetInspection {
  sheetCount: number;
  sheetNames: string[];
  hiddenSheets: string[];
  /** Declared uncompressed size of the package (xlsx) or the file size (csv). */
  uncompressedBytes: number;
}

export async function inspectSpreadsheet(
  path: string,
  kind: SpreadsheetKind,
  options: { filename?: string; limits?: Partial<SheetLimits> } = {},
): Promise<SpreadsheetInspection> {
  const limits = resolveLimits(options.limits);
  if (kind === 'csv') {
    const { size } = await checkCsvFile(path, limits);
    const name = csvSheetName(options.filename ?? path);
    return { sheetCount: 1, sheetNames: [name], hiddenSheets: [], uncompressedBytes: size };
  }
  const zip = await openXlsxZip(path, limits);
  try {
    const index = await readWorkbookIndex(zip);
    return {
      sheetCount: index.sheets.length,
      sheetNames: index.sheets.map((s) => s.name),
      hiddenSheets: index.sheets.filter((s) => s.hidden).map((s) => s.name),
      uncompressedBytes: zip.totalUncompressed,
    };
  } finally {
    zip.close();
  }
}
