// Row bands: a table is cut into bands of up to `rowsPerBand` body rows (fewer when the rows are
// long), each rendered with the header repeated so it stands alone as search evidence or as a
// citation. Grounding elements and segments use the same bands and the same ids.
import type { SheetRange } from '@docfleet/contracts';
import { qualifiedRangeA1 } from './a1';
import { tableMarkdown } from './markdown';
import type { SheetTable } from './types';

export interface BandOptions {
  /** Body rows per band. */
  rowsPerBand?: number;
  /** Markdown characters per band before it is cut short (at least one row per band). */
  maxBandChars?: number;
}

export const DEFAULT_BAND_OPTIONS: Required<BandOptions> = { rowsPerBand: 25, maxBandChars: 8_000 };

export interface TableBand {
  /** 's<sheet>-t<table>-r<first sheet row of the band>'. */
  id: string;
  table: SheetTable;
  /** Body rows [from, to) of table.rows. */
  from: number;
  to: number;
  range: SheetRange;
  markdown: string;
}

export function* tableBands(table: SheetTable, options: BandOptions = {}): Generator<TableBand> {
  const { rowsPerBand, maxBandChars } = { ...DEFAULT_BAND_OPTIONS, ...options };
  const headerChars = table.headers.reduce((n, h) => n + h.length + 3, 2) * 2;
  let from = 0;
  while (from < table.rows.length) {
    let to = from;
    let chars = headerChars;
    while (to < table.rows.length && to - from < rowsPerBand) {
      const rowChars = table.rows[to]!.reduce((n, c) => n + c.length + 3, 2);
      if (to > from && chars + rowChars > maxBandChars) break;
      chars += rowChars;
      to++;
    }
    // The first band also covers the header rows, so a hit on a column name points at the header.
    const startRow = from === 0 ? table.startRow : table.rowNumbers[from]!;
    const endRow = table.rowNumbers[to - 1]!;
    const rect = { startRow, endRow, startCol: table.startCol, endCol: table.endCol };
    const rows = table.rows.slice(from, to);
    const body = tableMarkdown(table, rows);
    yield {
      id: `${table.id}-r${startRow}`,
      table,
      from,
      to,
      range: {
        sheetIndex: table.sheetIndex,
        sheetName: table.sheetName,
        ...rect,
        rangeA1: qualifiedRangeA1(table.sheetName, rect),
      },
      markdown: table.title ? `**${table.title}**\n\n${body}` : body,
    };
    from = to;
  }
}
