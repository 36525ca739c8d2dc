// @docfleet/sheets: spreadsheet (xlsx, csv) parsing for the parse worker. See README.md.
export { inspectSpreadsheet, type SpreadsheetInspection } from './inspect-spreadsheet';
export { parseSpreadsheet, csvSheetName } from './parse-spreadsheet';
export {
  buildSheetSegments,
  iterateSheetSegments,
  spreadsheetManifestFields,
  SPREADSHEET_SOURCE_TYPE,
  type SheetSegmentOptions,
} from './segments';
export { tableBands, DEFAULT_BAND_OPTIONS, type BandOptions, type TableBand } from './bands';
export { SheetParseError, isSheetParseError, type SheetErrorCode } from './errors';
export { DEFAULT_SHEET_LIMITS, resolveLimits, type SheetLimits } from './limits';
export { ARTIFACT_FILES, SHEETS_SCHEMA_VERSION } from './artifact-writer';
export { detectDelimiter } from './csv-reader';
export { colToLetters, lettersToCol, cellA1, rangeA1, qualifiedRangeA1, parseRangeA1 } from './a1';
export type * from './types';
