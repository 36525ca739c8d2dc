// parseSpreadsheet: one pass over the sheets (streamed for xlsx), each sheet turned into its
// workbook_json part, tables and texts, markdown and grounding page before the next is read.
import { basename, extname } from 'node:path';
import { rangeA1 } from './a1';
import {
  type ArtifactWriter,
  FileArtifacts,
  MemoryArtifacts,
  SHEETS_SCHEMA_VERSION,
  type DocumentInfo,
} from './artifact-writer';
import { readCsv } from './csv-reader';
import { SheetParseError } from './errors';
import { groundingPage, sheetElements, type UsedRange } from './grounding';
import { detectLayout } from './layout';
import { resolveLimits } from './limits';
import { anchor, markdownHeader, markdownRow, textMarkdown } from './markdown';
import { FormatTable } from './cell-format';
import type { SheetStore } from './sheet-store';
import { SheetView } from './sheet-view';
import type {
  ParseSpreadsheetOptions,
  SheetSummary,
  SheetTable,
  SheetText,
  SpreadsheetParseResult,
  TablesDocument,
  WorkbookRow,
} from './types';
import { cancelledError, readXlsx, type RawSheet } from './xlsx-reader';

export async function parseSpreadsheet(options: ParseSpreadsheetOptions): Promise<SpreadsheetParseResult> {
  const started = Date.now();
  const limits = resolveLimits(options.limits);
  const info: DocumentInfo = {
    filename: options.filename,
    kind: options.kind,
    processedAt: new Date(started).toISOString(),
  };
  const writer: ArtifactWriter = options.outDir
    ? await FileArtifacts.create(options.outDir, info)
    : new MemoryArtifacts(info);
  const formats = new FormatTable();
  const warnings: string[] = [];
  const counter = { cells: 0 };
  const summaries: SheetSummary[] = [];
  const tables: SheetTable[] = [];
  const texts: SheetText[] = [];
  let totalSheets = 0;
  const stats: SpreadsheetParseResult['stats'] = { cellCount: 0, durationMs: 0 };

  const start = async (n: number) => {
    totalSheets = n;
    await writer.begin(n);
    options.onProgress?.(0, n);
  };

  const onSheet = async (sheet: RawSheet) => {
    if (options.shouldCancel?.()) throw cancelledError();
    const view = new SheetView(sheet.store, warnings, sheet.name);
    const layout = detectLayout(view, sheet);
    const used = usedRange(view);
    await writer.workbookSheet(
      {
        index: sheet.index,
        name: sheet.name,
        ...(sheet.hidden ? { hidden: true } : {}),
        dimension: used ? rangeA1(used) : null,
        rowCount: used?.rowCount ?? 0,
        colCount: used?.colCount ?? 0,
        merges: sheet.store.merges,
      },
      workbookRows(sheet.store),
    );
    sheet.store.releaseFormulas();
    await writeSheetMarkdown(writer, sheet, layout.tables, layout.texts, summaries.length === 0);
    const page = used ?? { startRow: 1, endRow: 1, startCol: 1, endCol: 1, rowCount: 0, colCount: 0 };
    await writer.groundingPage(
      groundingPage(sheet.index, page, []),
      used ? sheetElements(layout.tables, layout.texts, used, options.bands) : [],
    );
    tables.push(...layout.tables);
    texts.push(...layout.texts);
    summaries.push({
      index: sheet.index,
      name: sheet.name,
      hidden: sheet.hidden,
      dimension: used ? rangeA1(used) : null,
      rowCount: used?.rowCount ?? 0,
      colCount: used?.colCount ?? 0,
      cellCount: sheet.store.count,
      tableCount: layout.tables.length,
      textCount: layout.texts.length,
    });
    options.onProgress?.(summaries.length, totalSheets);
  };

  try {
    if (options.kind === 'xlsx') {
      await readXlsx(options.path, {
        limits,
        formats,
        warnings,
        counter,
        shouldCancel: options.shouldCancel,
        onStart: start,
        onSheet,
      });
    } else if (options.kind === 'csv') {
      const csv = await readCsv(options.path, { limits, formats, counter, shouldCancel: options.shouldCancel });
      Object.assign(stats, { encoding: csv.encoding, delimiter: csv.delimiter });
      await start(1);
      await onSheet({ index: 0, name: csvSheetName(options.filename), hidden: false, store: csv.store });
    } else {
      throw new SheetParseError('not_a_spreadsheet', `unknown spreadsheet kind ${String(options.kind)}`);
    }
    if (counter.cells === 0) {
      throw new SheetParseError('empty_spreadsheet', `no sheet of ${options.filename} has a non-empty cell`, {
        sheetCount: totalSheets,
      });
    }
    const tablesDoc: TablesDocument = {
      schema_version: SHEETS_SCHEMA_VERSION,
      filename: options.filename,
      sheets: summaries.map((s) => ({ index: s.index, name: s.name, dimension: s.dimension })),
      tables,
      texts,
    };
    await writer.finish(tablesDoc);
    stats.cellCount = counter.cells;
    stats.durationMs = Date.now() - started;
    const result: SpreadsheetParseResult = {
      sheetCount: totalSheets,
      sheets: summaries,
      tables: tablesDoc,
      stats,
      warnings,
    };
    if (writer instanceof MemoryArtifacts) {
      result.workbook = writer.workbook;
      result.grounding = writer.grounding;
      result.markdown = writer.markdownText;
    } else if (writer instanceof FileArtifacts) {
      result.artifacts = writer.paths;
    }
    return result;
  } catch (err) {
    await writer.abort().catch(() => undefined);
    throw err;
  }
}

export function csvSheetName(filename: string): string {
  const stem = basename(filename, extname(filename)).trim();
  return stem || 'Sheet1';
}

function usedRange(view: SheetView): UsedRange | null {
  const { store } = view;
  if (store.count === 0) return null;
  let { minRow: startRow, maxRow: endRow, minCol: startCol, maxCol: endCol } = store;
  for (const m of view.valueMerges) {
    startRow = Math.min(startRow, m.startRow);
    endRow = Math.max(endRow, m.endRow);
    startCol = Math.min(startCol, m.startCol);
    endCol = Math.max(endCol, m.endCol);
  }
  return { startRow, endRow, startCol, endCol, rowCount: endRow - startRow + 1, colCount: endCol - startCol + 1 };
}

function* workbookRows(store: SheetStore): Generator<WorkbookRow> {
  for (let k = 0; k < store.rowNumbers.length; k++) {
    const cells = [];
    for (let i = store.rowOffsets[k]!; i < store.rowOffsets[k + 1]!; i++) cells.push(store.toJson(i));
    yield { r: store.rowNumbers[k]!, cells };
  }
}

const MD_ROWS_PER_WRITE = 500;

async function writeSheetMarkdown(
  writer: ArtifactWriter,
  sheet: RawSheet,
  tables: SheetTable[],
  texts: SheetText[],
  first: boolean,
): Promise<void> {
  await writer.markdown(`${first ? '' : '\n'}## ${sheet.name}\n`);
  type Item = { row: number; col: number; table?: SheetTable; text?: SheetText };
  const items: Item[] = [
    ...tables.map((table) => ({ row: table.startRow, col: table.startCol, table })),
    ...texts.map((text) => ({ row: text.startRow, col: text.startCol, text })),
  ].sort((a, b) => a.row - b.row || a.col - b.col);
  for (const item of items) {
    if (item.text) {
      await writer.markdown(`\n${anchor(item.text.id)}\n${textMarkdown(item.text)}\n`);
      continue;
    }
    const table = item.table!;
    await writer.markdown(`\n${anchor(table.id)}\n${markdownHeader(table.headers)}\n`);
    for (let i = 0; i < table.rows.length; i += MD_ROWS_PER_WRITE) {
      const lines = table.rows.slice(i, i + MD_ROWS_PER_WRITE).map(markdownRow);
      await writer.markdown(`${lines.join('\n')}\n`);
    }
  }
}
