// grounding_json for a workbook: one "page" per sheet (page_number = sheet index + 1), measured in
// cells: width = columns and height = rows of the sheet's used range. Boxes are fractions of that
// range; pixel_bbox holds the same box in cell units. Tables appear as their row bands (the same ids
// as the segments), so a citation resolves to the rows it quotes.
import type { ElementType, GroundingElement, GroundingPage, SheetRange } from '@docfleet/contracts';
import type { CellRect } from './a1';
import { tableBands, type BandOptions } from './bands';
import { textMarkdown } from './markdown';
import type { SheetTable, SheetText, SheetTextKind } from './types';

const TEXT_TYPES: Record<SheetTextKind, { type: ElementType; label: string }> = {
  title: { type: 'title', label: 'Title' },
  note: { type: 'footnote', label: 'Footnote' },
  text: { type: 'text', label: 'Text' },
};

export interface UsedRange extends CellRect {
  rowCount: number;
  colCount: number;
}

function boxes(range: SheetRange, used: UsedRange): Pick<GroundingElement, 'bbox' | 'pixel_bbox'> {
  const x1 = range.startCol - used.startCol;
  const y1 = range.startRow - used.startRow;
  const x2 = range.endCol - used.startCol + 1;
  const y2 = range.endRow - used.startRow + 1;
  const fx = (v: number) => round(v / used.colCount);
  const fy = (v: number) => round(v / used.rowCount);
  return { bbox: { x1: fx(x1), y1: fy(y1), x2: fx(x2), y2: fy(y2) }, pixel_bbox: [x1, y1, x2, y2] };
}

function round(v: number): number {
  return Math.round(Math.min(1, Math.max(0, v)) * 1e6) / 1e6;
}

function sheetRange(x: SheetRange): SheetRange {
  const { sheetIndex, sheetName, startRow, endRow, startCol, endCol, rangeA1 } = x;
  return { sheetIndex, sheetName, startRow, endRow, startCol, endCol, rangeA1 };
}

/** Elements of one sheet in reading order. */
export function* sheetElements(
  tables: SheetTable[],
  texts: SheetText[],
  used: UsedRange,
  bandOptions?: BandOptions,
): Generator<GroundingElement> {
  type Item = { row: number; col: number; emit: () => Generator<GroundingElement> };
  const items: Item[] = [];
  for (const table of tables) {
    items.push({
      row: table.startRow,
      col: table.startCol,
      emit: function* () {
        for (const band of tableBands(table, bandOptions)) {
          yield {
            id: band.id,
            type: 'table',
            label: 'Table',
            ...boxes(band.range, used),
            content: band.markdown,
            markdown_anchor: `#${table.id}`,
            sheet: band.range,
          };
        }
      },
    });
  }
  for (const text of texts) {
    const { type, label } = TEXT_TYPES[text.kind];
    items.push({
      row: text.startRow,
      col: text.startCol,
      emit: function* () {
        yield {
          id: text.id,
          type,
          label,
          ...boxes(text, used),
          content: textMarkdown(text),
          markdown_anchor: `#${text.id}`,
          sheet: sheetRange(text),
        };
      },
    });
  }
  items.sort((a, b) => a.row - b.row || a.col - b.col);
  for (const item of items) yield* item.emit();
}

export function groundingPage(index: number, used: UsedRange, elements: GroundingElement[]): GroundingPage {
  return { page_number: index + 1, width: used.colCount, height: used.rowCount, elements };
}
