// The corpus spreadsheets, read in place, against their third-party ground truth.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { buildSheetSegments, inspectSpreadsheet, parseSpreadsheet, type SheetTable } from '../src';
import { htmlTableRows, markdownTables } from './helpers/ground-truth';
import { SHEETS_CORPUS } from './helpers/paths';

const docling = (name: string) => path.join(SHEETS_CORPUS, 'docling', name);
const unstructured = (name: string) => path.join(SHEETS_CORPUS, 'unstructured', name);
const asGrid = (t: SheetTable) => [t.headers, ...t.rows];

beforeAll(() => {
  if (!existsSync(SHEETS_CORPUS)) throw new Error(`corpus not found at ${SHEETS_CORPUS} (set DOCFLEET_CORPUS_DIR)`);
});

describe('docling test-01.xlsx (3 sheets, several tables per sheet)', () => {
  const file = docling('test-01.xlsx');

  test('inspect lists the 3 sheets without parsing them', async () => {
    await expect(inspectSpreadsheet(file, 'xlsx')).resolves.toMatchObject({
      sheetCount: 3,
      sheetNames: ['Sheet1', 'Sheet2', 'Sheet3'],
    });
  });

  test('finds the 6 tables at their ranges, in docling order', async () => {
    const res = await parseSpreadsheet({ path: file, kind: 'xlsx', filename: 'test-01.xlsx' });
    expect(res.sheetCount).toBe(3);
    expect(res.tables.tables.map((t) => t.rangeA1)).toEqual([
      'Sheet1!A1:C7',
      'Sheet2!A1:D9',
      'Sheet2!G5:I9',
      'Sheet2!C14:E18',
      'Sheet3!A1:C7',
      'Sheet3!E7:G13',
    ]);
    expect(res.sheets.map((s) => s.tableCount)).toEqual([1, 3, 2]);
    expect(res.tables.texts).toEqual([]);
  });

  test('plain tables match the docling markdown cell for cell', async () => {
    const res = await parseSpreadsheet({ path: file, kind: 'xlsx', filename: 'test-01.xlsx' });
    const gt = markdownTables(docling('test-01.xlsx.md'));
    expect(gt).toHaveLength(6);
    for (let k = 0; k < 4; k++) expect(asGrid(res.tables.tables[k]!)).toEqual(gt[k]);
  });

  test('merged two-row headers of Sheet3 become one multi-level header; bodies match docling', async () => {
    const res = await parseSpreadsheet({ path: file, kind: 'xlsx', filename: 'test-01.xlsx' });
    const gt = markdownTables(docling('test-01.xlsx.md'));
    for (const k of [4, 5]) {
      const ours = res.tables.tables[k]!;
      const [top, sub, ...body] = gt[k]!;
      // docling keeps the second header row as data; here both rows form the header.
      const expected = top!.map((label, c) => (label === sub![c] ? label : `${label} / ${sub![c]}`));
      expect(ours.headerRows).toBe(2);
      expect(ours.headers).toEqual(expected);
      expect(ours.rows).toEqual(body);
    }
    expect(res.tables.tables[4]!.headers).toEqual(['first', 'header / second', 'header / third']);
    expect(res.workbook!.sheets[2]!.merges).toEqual(expect.arrayContaining(['A1:A2', 'B1:C1', 'B6:C7', 'F12:G13']));
  });

  test('workbook_json lists every non-empty cell with its type and A1 address', async () => {
    const res = await parseSpreadsheet({ path: file, kind: 'xlsx', filename: 'test-01.xlsx' });
    const sheet2 = res.workbook!.sheets[1]!;
    expect(sheet2).toMatchObject({ index: 1, name: 'Sheet2', dimension: 'A1:I18', rowCount: 18, colCount: 9 });
    const g5 = sheet2.rows.find((r) => r.r === 5)!.cells.find((c) => c.a1 === 'G5');
    expect(g5).toEqual({ c: 7, a1: 'G5', value: 'col-1', type: 'string', text: 'col-1' });
    const cells = res.workbook!.sheets.flatMap((s) => s.rows.flatMap((r) => r.cells));
    expect(cells).toHaveLength(res.stats.cellCount);
    expect(sheet2.rows.map((r) => r.r)).not.toContain(10);
  });
});

describe('unstructured stanley-cups.xlsx (2 sheets, title row above a 3x4 table)', () => {
  const file = unstructured('stanley-cups.xlsx');

  test('gives exactly 2 tables, each titled, matching the expected HTML table', async () => {
    const res = await parseSpreadsheet({ path: file, kind: 'xlsx', filename: 'stanley-cups.xlsx' });
    const tables = res.tables.tables;
    expect(tables).toHaveLength(2);
    expect(tables.map((t) => t.title)).toEqual(['Stanley Cups', 'Stanley Cups Since 67']);
    expect(tables.map((t) => t.rangeA1)).toEqual(["'Stanley Cups'!A2:C5", "'Stanley Cups Since 67'!A2:C5"]);
    expect(asGrid(tables[0]!)).toEqual(htmlTableRows(unstructured('stanley-cups.xlsx.expected.html')));
    expect(res.tables.texts.map((t) => [t.kind, t.text, t.tableId])).toEqual([
      ['title', 'Stanley Cups', 's0-t1'],
      ['title', 'Stanley Cups Since 67', 's1-t1'],
    ]);
  });

  test('markdown has a section per sheet, the title as text and the table as a pipe table', async () => {
    const res = await parseSpreadsheet({ path: file, kind: 'xlsx', filename: 'stanley-cups.xlsx' });
    const [title, text] = readFileSync(unstructured('stanley-cups.xlsx.expected.txt'), 'utf8').trim().split('\n');
    const md = res.markdown!;
    expect(md).toMatch(/^## Stanley Cups\n/);
    expect(md).toContain('\n## Stanley Cups Since 67\n');
    expect(md).toContain(`\n${title}\n`);
    expect(md).toContain('| Team | Location | Stanley Cups |\n| --- | --- | --- |\n| Blues | STL | 1 |');
    expect(asGrid(res.tables.tables[0]!).flat().join(' ')).toBe(text);
  });

  test('segments: a text segment per title and a table segment per table', async () => {
    const res = await parseSpreadsheet({ path: file, kind: 'xlsx', filename: 'stanley-cups.xlsx' });
    const segments = buildSheetSegments(res, { fileId: 'file-1', docName: 'stanley-cups.xlsx', manifestId: 'man-1' });
    expect(segments.map((s) => s.id)).toEqual(['s0-x1', 's0-t1-r2', 's1-x1', 's1-t1-r2']);
    expect(segments[1]!.coordinates).toEqual({
      sheetIndex: 0,
      sheetName: 'Stanley Cups',
      startRow: 2,
      endRow: 5,
      startCol: 1,
      endCol: 3,
      rangeA1: "'Stanley Cups'!A2:C5",
      sourceType: 'spreadsheet',
    });
    expect(segments[1]!.tableMetadata).toEqual({
      isTable: true,
      headers: ['Team', 'Location', 'Stanley Cups'],
      rowLabels: ['Blues', 'Flyers', 'Maple Leafs'],
    });
  });
});

describe('docling CSV edge cases', () => {
  test.each([
    ['csv-comma.csv', ','],
    ['csv-semicolon.csv', ';'],
    ['csv-comma-in-cell.csv', ','],
  ])('%s: delimiter %j detected, table equals the docling markdown', async (name, delimiter) => {
    const res = await parseSpreadsheet({ path: docling(name), kind: 'csv', filename: name });
    expect(res.stats.delimiter).toBe(delimiter);
    expect(res.stats.encoding).toBe('utf-8');
    expect(res.tables.tables).toHaveLength(1);
    expect([asGrid(res.tables.tables[0]!)]).toEqual(markdownTables(docling(`${name}.md`)));
  });

  test('quoted delimiters stay inside their cell', async () => {
    const res = await parseSpreadsheet({ path: docling('csv-comma.csv'), kind: 'csv', filename: 'csv-comma.csv' });
    const t = res.tables.tables[0]!;
    expect(t.rows[1]![3]).toBe('Lozano, Dr');
    expect(t.rows[3]![4]).toBe('Dominguez, Mcmillan and Donovan');
    expect(t.headers).toHaveLength(12);
    expect(res.workbook!.sheets[0]!.name).toBe('csv-comma');
    expect(res.workbook!.sheets[0]!.rows[1]!.cells[0]).toEqual({ c: 1, a1: 'A2', value: 1, type: 'number', text: '1' });
  });
});
