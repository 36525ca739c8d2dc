// Segments of a parsed spreadsheet: one per table row band (header repeated, tableMetadata with the
// headers and the band's first-column labels) and one per title, note or free text.
import type { Segment, SpreadsheetCoordinates } from '@docfleet/contracts';
import { tableBands, type BandOptions } from './bands';
import { textMarkdown } from './markdown';
import type { SpreadsheetParseResult, TablesDocument } from './types';

export const SPREADSHEET_SOURCE_TYPE = 'spreadsheet';

export interface SheetSegmentOptions extends BandOptions {
  fileId: string;
  docName: string;
  manifestId?: string;
}

const TEXT_TITLES = { title: 'Title', note: 'Note', text: 'Text' } as const;

/** Accepts a parse result or a tables_json document read back from storage. */
export function* iterateSheetSegments(
  source: Pick<SpreadsheetParseResult, 'tables'> | TablesDocument,
  options: SheetSegmentOptions,
): Generator<Segment> {
  const doc = 'tables' in source && !Array.isArray(source.tables) ? source.tables : (source as TablesDocument);
  // Segments have no PDF to show: the link points at the workbook artifact the range refers to.
  const pdfUrl = options.manifestId ? `/v1/artifacts/${options.manifestId}/workbook_json` : '';
  const base = { docId: options.fileId, docName: options.docName, pdfUrl, sourceType: SPREADSHEET_SOURCE_TYPE };
  type Item = { sheet: number; row: number; col: number; emit: () => Generator<Segment> };
  const items: Item[] = [];
  for (const table of doc.tables) {
    items.push({
      sheet: table.sheetIndex,
      row: table.startRow,
      col: table.startCol,
      emit: function* () {
        const label = table.title ?? `Table ${table.id.slice(table.id.lastIndexOf('-t') + 2)}`;
        for (const band of tableBands(table, options)) {
          const coordinates: SpreadsheetCoordinates = { ...band.range, sourceType: SPREADSHEET_SOURCE_TYPE };
          yield {
            ...base,
            id: band.id,
            title: `${table.sheetName}: ${label} (rows ${band.range.startRow}-${band.range.endRow})`,
            markdown: band.markdown,
            coordinates,
            tableMetadata: {
              isTable: true,
              headers: table.headers,
              rowLabels: table.rows.slice(band.from, band.to).map((r) => r[0] ?? ''),
            },
            elementIds: [band.id],
          };
        }
      },
    });
  }
  for (const text of doc.texts) {
    items.push({
      sheet: text.sheetIndex,
      row: text.startRow,
      col: text.startCol,
      emit: function* () {
        const markdown = textMarkdown(text);
        if (!markdown.trim()) return;
        const { sheetIndex, sheetName, startRow, endRow, startCol, endCol, rangeA1 } = text;
        yield {
          ...base,
          id: text.id,
          title: `${sheetName}: ${TEXT_TITLES[text.kind]}`,
          markdown,
          coordinates: {
            sheetIndex,
            sheetName,
            startRow,
            endRow,
            startCol,
            endCol,
            rangeA1,
            sourceType: SPREADSHEET_SOURCE_TYPE,
          },
          tableMetadata: { isTable: false },
          elementIds: [text.id],
        };
      },
    });
  }
  items.sort((a, b) => a.sheet - b.sheet || a.row - b.row || a.col - b.col);
  for (const item of items) yield* item.emit();
}

export function buildSheetSegments(
  source: Pick<SpreadsheetParseResult, 'tables'> | TablesDocument,
  options: SheetSegmentOptions,
): Segment[] {
  return [...iterateSheetSegments(source, options)];
}

/** The spreadsheet fields of a parse manifest (unit, source_type, segment_count; api.ArtifactManifest). */
export function spreadsheetManifestFields(
  sheetCount: number,
  segmentCount: number,
): { unit: 'sheets'; source_type: 'spreadsheet'; segment_count: number; sheet_count: number } {
  return { unit: 'sheets', source_type: SPREADSHEET_SOURCE_TYPE, segment_count: segmentCount, sheet_count: sheetCount };
}
