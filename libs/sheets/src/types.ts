// Shapes of the spreadsheet artifacts (workbook_json, tables_json) and of the parse API.
import type { GroundingDocument, SheetRange } from '@docfleet/contracts';
import type { BandOptions } from './bands';
import type { SheetLimits } from './limits';

export type SpreadsheetKind = 'xlsx' | 'csv';

export type CellType = 'string' | 'number' | 'boolean' | 'date' | 'formula' | 'error' | 'richText' | 'hyperlink';

/** One non-empty cell of workbook_json. Empty cells (including styled empty cells) are not listed. */
export interface WorkbookCell {
  /** 1-based column. */
  c: number;
  a1: string;
  /** Typed value: number, string, boolean, ISO date string; for formulas the cached result. */
  value: string | number | boolean | null;
  type: CellType;
  /** Formula text without '='. Absent for cells of a shared formula other than its first cell. */
  formula?: string;
  /** Cached result of a formula as the file stored it (null when the file has none). */
  result?: string | number | boolean | null;
  /** Hyperlink target (URL or in-workbook location) when type is 'hyperlink'. */
  hyperlink?: string;
  /** Display text: numbers with their percent/decimal/currency format applied, dates as ISO. */
  text: string;
}

export interface WorkbookRow {
  r: number;
  cells: WorkbookCell[];
}

export interface WorkbookSheet {
  index: number;
  name: string;
  hidden?: boolean;
  /** Used range of the non-empty cells, A1 (e.g. 'A1:C7'); null for an empty sheet. */
  dimension: string | null;
  rowCount: number;
  colCount: number;
  merges: string[];
  rows: WorkbookRow[];
}

export interface WorkbookDocument {
  schema_version: string;
  filename: string;
  source_type: 'spreadsheet';
  kind: SpreadsheetKind;
  sheets: WorkbookSheet[];
}

export interface SheetTable extends SheetRange {
  /** Stable within the file: 's<sheetIndex>-t<n>', n counting from 1 in reading order. */
  id: string;
  /** One label per column; multi-level headers joined with ' / ' (e.g. '2023 / Q1'). */
  headers: string[];
  /** Number of sheet rows the header occupies (1, or more for merged/grouped headers). */
  headerRows: number;
  /** Body rows, one string per column; merged cells repeat their value over the span. */
  rows: string[][];
  /** Sheet row number of each body row (rows can be skipped when entirely empty). */
  rowNumbers: number[];
  title?: string;
  notes?: string[];
}

export type SheetTextKind = 'title' | 'note' | 'text';

/** Text outside tables: titles above tables, notes below them, free-standing labels. */
export interface SheetText extends SheetRange {
  /** 's<sheetIndex>-x<n>'. */
  id: string;
  kind: SheetTextKind;
  text: string;
  /** The table this text belongs to (titles and notes). */
  tableId?: string;
}

export interface TablesDocument {
  schema_version: string;
  filename: string;
  sheets: Array<{ index: number; name: string; dimension: string | null }>;
  tables: SheetTable[];
  texts: SheetText[];
}

export interface SheetSummary {
  index: number;
  name: string;
  hidden: boolean;
  dimension: string | null;
  rowCount: number;
  colCount: number;
  cellCount: number;
  tableCount: number;
  textCount: number;
}

export interface ParseSpreadsheetOptions {
  path: string;
  kind: SpreadsheetKind;
  /** Original file name; shown in grounding_json and used as the sheet name of a CSV. */
  filename: string;
  /**
   * When given, workbook.json, tables.json, result.md and grounding.json are streamed there and the
   * result does not hold `workbook` and `markdown` in memory: use it for anything large.
   */
  outDir?: string;
  limits?: Partial<SheetLimits>;
  onProgress?: (doneSheets: number, totalSheets: number) => void;
  /** Polled between sheets and every few thousand rows; returning true aborts with code 'cancelled'. */
  shouldCancel?: () => boolean;
  /** Row bands of the grounding elements; pass the same to buildSheetSegments so the ids match. */
  bands?: BandOptions;
}

export interface SpreadsheetArtifactPaths {
  workbook_json: string;
  tables_json: string;
  result_md: string;
  grounding_json: string;
}

export interface SpreadsheetParseResult {
  sheetCount: number;
  sheets: SheetSummary[];
  tables: TablesDocument;
  /** In memory only when no outDir was given. */
  grounding?: GroundingDocument;
  /** In memory only when no outDir was given. */
  workbook?: WorkbookDocument;
  /** In memory only when no outDir was given. */
  markdown?: string;
  /** File paths when outDir was given. */
  artifacts?: SpreadsheetArtifactPaths;
  stats: {
    /** Non-empty cells stored (empty-but-styled and whitespace-only cells are not data). */
    cellCount: number;
    durationMs: number;
    encoding?: string;
    delimiter?: string;
  };
  warnings: string[];
}
