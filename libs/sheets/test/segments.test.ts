// Row-band segments and the grounding document built from the same bands.
import ExcelJS from 'exceljs';
import {
  buildSheetSegments,
  iterateSheetSegments,
  parseSpreadsheet,
  spreadsheetManifestFields,
  tableBands,
  type SpreadsheetParseResult,
} from '../src';
import type { SpreadsheetCoordinates } from '@docfleet/contracts';
import { tempDir } from './helpers/paths';

const tmp = tempDir('segments');
afterAll(() => tmp.cleanup());

let result: SpreadsheetParseResult;

beforeAll(async () => {
  const wb = new ExcelJS.Workbook();
  const ws = wb.addWorksheet('Ledger');
  ws.getCell('B2').value = 'Ledger 2024';
  ws.getRow(4).values = [undefined, 'Invoice', 'Customer', 'Amount'];
  for (let i = 0; i < 60; i++) ws.getRow(5 + i).values = [undefined, `INV-${1000 + i}`, `Customer ${i % 7}`, 100 + i];
  ws.getCell('B66').value = 'Note: amounts in EUR, excluding VAT and fees';
  const notes = wb.addWorksheet('Notes');
  notes.getCell('A1').value = 'Only text here';
  const file = tmp.file('ledger.xlsx');
  await wb.xlsx.writeFile(file);
  result = await parseSpreadsheet({ path: file, kind: 'xlsx', filename: 'ledger.xlsx' });
});

test('a 60-row table becomes 3 bands of at most 25 rows, each repeating the header', () => {
  const segments = buildSheetSegments(result, { fileId: 'f-1', docName: 'ledger.xlsx', manifestId: 'm-1' });
  const tableSegs = segments.filter((s) => s.tableMetadata?.isTable);
  expect(tableSegs.map((s) => s.id)).toEqual(['s0-t1-r4', 's0-t1-r30', 's0-t1-r55']);
  expect(tableSegs.map((s) => (s.coordinates as SpreadsheetCoordinates).rangeA1)).toEqual([
    'Ledger!B4:D29',
    'Ledger!B30:D54',
    'Ledger!B55:D64',
  ]);
  for (const s of tableSegs) {
    expect(s.markdown.startsWith('**Ledger 2024**\n\n| Invoice | Customer | Amount |\n| --- | --- | --- |\n')).toBe(
      true,
    );
    expect(s.tableMetadata!.headers).toEqual(['Invoice', 'Customer', 'Amount']);
  }
  expect(tableSegs.map((s) => s.markdown.split('\n').length - 4)).toEqual([25, 25, 10]);
  expect(tableSegs[1]!.tableMetadata!.rowLabels).toEqual(Array.from({ length: 25 }, (_, k) => `INV-${1025 + k}`));
  expect(tableSegs[2]).toMatchObject({
    docId: 'f-1',
    docName: 'ledger.xlsx',
    pdfUrl: '/v1/artifacts/m-1/workbook_json',
    sourceType: 'spreadsheet',
    title: 'Ledger: Ledger 2024 (rows 55-64)',
    coordinates: {
      sheetIndex: 0,
      sheetName: 'Ledger',
      startRow: 55,
      endRow: 64,
      startCol: 2,
      endCol: 4,
      rangeA1: 'Ledger!B55:D64',
      sourceType: 'spreadsheet',
    },
    elementIds: ['s0-t1-r55'],
  });
});

test('titles, notes and text-only sheets become text segments in reading order', () => {
  const segments = buildSheetSegments(result, { fileId: 'f-1', docName: 'ledger.xlsx' });
  expect(segments.map((s) => s.id)).toEqual(['s0-x1', 's0-t1-r4', 's0-t1-r30', 's0-t1-r55', 's0-x2', 's1-x1']);
  expect(segments.filter((s) => !s.tableMetadata?.isTable).map((s) => [s.title, s.markdown])).toEqual([
    ['Ledger: Title', 'Ledger 2024'],
    ['Ledger: Note', 'Note: amounts in EUR, excluding VAT and fees'],
    ['Notes: Text', 'Only text here'],
  ]);
  expect(segments.every((s) => s.markdown.trim() !== '')).toBe(true);
});

test('ids are stable across parses and the tables_json document alone rebuilds the same segments', async () => {
  const again = await parseSpreadsheet({ path: tmp.file('ledger.xlsx'), kind: 'xlsx', filename: 'ledger.xlsx' });
  const opts = { fileId: 'f-1', docName: 'ledger.xlsx', manifestId: 'm-1' };
  const fromTablesJson = buildSheetSegments(JSON.parse(JSON.stringify(again.tables)), opts);
  expect(fromTablesJson).toEqual(buildSheetSegments(result, opts));
  expect([...iterateSheetSegments(result, opts)]).toHaveLength(6);
  expect(spreadsheetManifestFields(result.sheetCount, 6)).toEqual({
    unit: 'sheets',
    source_type: 'spreadsheet',
    segment_count: 6,
    sheet_count: 2,
  });
});

test('long rows shorten a band so its markdown stays under the character budget', () => {
  const table = result.tables.tables[0]!;
  const bands = [...tableBands(table, { rowsPerBand: 25, maxBandChars: 400 })];
  expect(bands.length).toBeGreaterThan(3);
  expect(bands.every((b) => b.to - b.from >= 1)).toBe(true);
  expect(bands.reduce((n, b) => n + (b.to - b.from), 0)).toBe(60);
  for (const b of bands) expect(b.markdown.length).toBeLessThan(400 + 80);
});

test('grounding: one page per sheet sized in cells, elements carry sheet ranges and fractional boxes', () => {
  const g = result.grounding!;
  expect(g.document).toMatchObject({ filename: 'ledger.xlsx', file_type: 'xlsx', page_count: 2, mode: 'spreadsheet' });
  const [ledger, notes] = g.pages;
  expect(ledger).toMatchObject({ page_number: 1, width: 3, height: 65 });
  expect(notes).toMatchObject({ page_number: 2, width: 1, height: 1 });
  expect(ledger!.elements.map((e) => [e.id, e.type])).toEqual([
    ['s0-x1', 'title'],
    ['s0-t1-r4', 'table'],
    ['s0-t1-r30', 'table'],
    ['s0-t1-r55', 'table'],
    ['s0-x2', 'footnote'],
  ]);
  const band = ledger!.elements[2]!;
  expect(band.sheet).toEqual({
    sheetIndex: 0,
    sheetName: 'Ledger',
    startRow: 30,
    endRow: 54,
    startCol: 2,
    endCol: 4,
    rangeA1: 'Ledger!B30:D54',
  });
  // Used range B2:D66: row 30 is offset 28 of 65 rows.
  expect(band.bbox).toEqual({ x1: 0, y1: +(28 / 65).toFixed(6), x2: 1, y2: +(53 / 65).toFixed(6) });
  expect(band.pixel_bbox).toEqual([0, 28, 3, 53]);
  expect(band.markdown_anchor).toBe('#s0-t1');
  expect(result.markdown).toContain('<a id="s0-t1"></a>');
});

test('custom bands: grounding elements and segments share ids when given the same band options', async () => {
  const bands = { rowsPerBand: 10 };
  const res = await parseSpreadsheet({ path: tmp.file('ledger.xlsx'), kind: 'xlsx', filename: 'ledger.xlsx', bands });
  const tableElements = res.grounding!.pages[0]!.elements.filter((e) => e.type === 'table').map((e) => e.id);
  const tableSegments = buildSheetSegments(res, { fileId: 'f', docName: 'd', ...bands })
    .filter((s) => s.tableMetadata?.isTable)
    .map((s) => s.id);
  expect(tableElements).toHaveLength(6);
  expect(tableSegments).toEqual(tableElements);
});
