// Workbooks written with exceljs for one feature each: cell types, formulas' cached results, merged
// and grouped headers, several blocks per sheet, titles and notes, hyperlinks, non-ASCII text.
import ExcelJS from 'exceljs';
import { parseSpreadsheet, type SpreadsheetParseResult, type WorkbookCell } from '../src';
import { tempDir } from './helpers/paths';
import { writeRawXlsx } from './helpers/xlsx-raw';

const tmp = tempDir('features');
afterAll(() => tmp.cleanup());

async function build(name: string, fill: (wb: ExcelJS.Workbook) => void): Promise<SpreadsheetParseResult> {
  const wb = new ExcelJS.Workbook();
  fill(wb);
  const file = tmp.file(name);
  await wb.xlsx.writeFile(file);
  return parseSpreadsheet({ path: file, kind: 'xlsx', filename: name });
}

function cell(res: SpreadsheetParseResult, sheet: number, a1: string): WorkbookCell | undefined {
  return res.workbook!.sheets[sheet]!.rows.flatMap((r) => r.cells).find((c) => c.a1 === a1);
}

test('cell types, number formats, dates and formulas with their cached results', async () => {
  const res = await build('types.xlsx', (wb) => {
    const ws = wb.addWorksheet('Types');
    ws.addRow(['Label', 'Value']);
    ws.addRow(['int', 42]);
    ws.addRow(['ratio', 0.256]).getCell(2).numFmt = '0.0%';
    ws.addRow(['money', 1234.5]).getCell(2).numFmt = '$#,##0.00';
    ws.addRow(['when', new Date(Date.UTC(2024, 1, 29))]).getCell(2).numFmt = 'yyyy-mm-dd';
    ws.addRow(['flag', true]);
    ws.addRow(['sum', { formula: 'B2*2', result: 84 }]);
    ws.addRow(['name', { formula: 'UPPER(A2)', result: 'INT' }]);
    ws.addRow(['check', { formula: 'B2>40', result: true }]);
    ws.addRow(['broken', { formula: '1/0', result: { error: '#DIV/0!' } }]);
    ws.addRow(['rich', { richText: [{ text: 'bold ', font: { bold: true } }, { text: 'plain' }] }]);
    ws.addRow(['err', { error: '#N/A' }]);
    ws.addRow(['nocache', { formula: 'B2+1' }]);
  });
  expect(cell(res, 0, 'B2')).toEqual({ c: 2, a1: 'B2', value: 42, type: 'number', text: '42' });
  expect(cell(res, 0, 'B3')).toMatchObject({ value: 0.256, type: 'number', text: '25.6%' });
  expect(cell(res, 0, 'B4')).toMatchObject({ value: 1234.5, text: '$1,234.50' });
  expect(cell(res, 0, 'B5')).toMatchObject({ value: '2024-02-29T00:00:00.000Z', type: 'date', text: '2024-02-29' });
  expect(cell(res, 0, 'B6')).toMatchObject({ value: true, type: 'boolean', text: 'TRUE' });
  expect(cell(res, 0, 'B7')).toEqual({
    c: 2,
    a1: 'B7',
    value: 84,
    type: 'formula',
    formula: 'B2*2',
    result: 84,
    text: '84',
  });
  expect(cell(res, 0, 'B8')).toMatchObject({ type: 'formula', formula: 'UPPER(A2)', result: 'INT', text: 'INT' });
  expect(cell(res, 0, 'B9')).toMatchObject({ type: 'formula', formula: 'B2>40', result: true, text: 'TRUE' });
  expect(cell(res, 0, 'B10')).toMatchObject({ type: 'formula', formula: '1/0', result: '#DIV/0!', text: '#DIV/0!' });
  expect(cell(res, 0, 'B11')).toMatchObject({ type: 'richText', value: 'bold plain', text: 'bold plain' });
  expect(cell(res, 0, 'B12')).toMatchObject({ type: 'error', value: '#N/A' });
  expect(cell(res, 0, 'B13')).toMatchObject({ type: 'formula', formula: 'B2+1', result: null, text: '=B2+1' });
  expect(res.tables.tables[0]!.rows.map((r) => r[1])).toEqual([
    '42',
    '25.6%',
    '$1,234.50',
    '2024-02-29',
    'TRUE',
    '84',
    'INT',
    'TRUE',
    '#DIV/0!',
    'bold plain',
    '#N/A',
    '=B2+1',
  ]);
});

test('hyperlinks: cells get type hyperlink and their target', async () => {
  const res = await build('links.xlsx', (wb) => {
    const ws = wb.addWorksheet('Links');
    ws.addRow(['Site', 'Note']);
    ws.addRow([{ text: 'Example', hyperlink: 'https://example.com/a?b=1&c=2' }, 'external']);
    ws.addRow([{ text: 'Jump', hyperlink: '#Links!A1' }, 'internal']);
  });
  expect(cell(res, 0, 'A2')).toMatchObject({
    type: 'hyperlink',
    value: 'Example',
    text: 'Example',
    hyperlink: 'https://example.com/a?b=1&c=2',
  });
  expect(cell(res, 0, 'A3')).toMatchObject({ type: 'hyperlink', hyperlink: '#Links!A1' });
});

test('merged group headers give one table with multi-level labels such as "2023 / Q1"', async () => {
  const res = await build('grouped.xlsx', (wb) => {
    const ws = wb.addWorksheet('Revenue');
    ws.getCell('A1').value = 'Region';
    ws.mergeCells('A1:A2');
    ws.getCell('B1').value = '2023';
    ws.mergeCells('B1:C1');
    ws.getCell('D1').value = '2024';
    ws.mergeCells('D1:E1');
    ['B2', 'C2', 'D2', 'E2'].forEach((a1, k) => {
      ws.getCell(a1).value = k % 2 ? 'Q2' : 'Q1';
    });
    ws.addRow(['North', 10, 11, 12, 13]);
    ws.addRow(['South', 20, 21, 22, 23]);
  });
  expect(res.tables.tables).toHaveLength(1);
  const t = res.tables.tables[0]!;
  expect(t).toMatchObject({
    rangeA1: 'Revenue!A1:E4',
    headerRows: 2,
    headers: ['Region', '2023 / Q1', '2023 / Q2', '2024 / Q1', '2024 / Q2'],
  });
  expect(t.rows).toEqual([
    ['North', '10', '11', '12', '13'],
    ['South', '20', '21', '22', '23'],
  ]);
  expect(res.workbook!.sheets[0]!.merges.sort()).toEqual(['A1:A2', 'B1:C1', 'D1:E1']);
});

test('group labels without merges (a sparse row above a full label row) also form one header', async () => {
  const res = await build('sparse-header.xlsx', (wb) => {
    const ws = wb.addWorksheet('S');
    ws.addRow(['', 'Budget', '', 'Actual', '']);
    ws.addRow(['Dept', 'Q1', 'Q2', 'Q1', 'Q2']);
    ws.addRow(['Ops', 1, 2, 3, 4]);
  });
  expect(res.tables.tables.map((t) => t.headers)).toEqual([
    ['Dept', 'Budget / Q1', 'Budget / Q2', 'Actual / Q1', 'Actual / Q2'],
  ]);
});

test('blocks separated by empty rows/columns are separate tables; a spacer column inside a table is not', async () => {
  const res = await build('blocks.xlsx', (wb) => {
    const ws = wb.addWorksheet('Blocks');
    const put = (r: number, c: number, values: Array<string | number | null>) =>
      values.forEach((v, k) => {
        if (v !== null) ws.getCell(r, c + k).value = v;
      });
    // Table 1 at B2:C4; table 2 to its right after two empty columns, on other rows.
    put(2, 2, ['k', 'v']);
    put(3, 2, ['a', 1]);
    put(4, 2, ['b', 2]);
    put(3, 6, ['x', 'y']);
    put(4, 6, [5, 6]);
    put(5, 6, [7, 8]);
    // Table 3: one empty spacer column (E) between two parts spanning the same rows.
    put(8, 3, ['Name', 'Qty', null, 'Price']);
    put(9, 3, ['nut', 3, null, 0.5]);
    put(10, 3, ['bolt', 4, null, 0.75]);
    // Table 4: a cell touching the block only by a corner still belongs to it.
    put(14, 3, ['p', 'q']);
    put(15, 3, [1, 2]);
    put(16, 3, [3, 4]);
    put(17, 5, ['total']);
  });
  expect(res.tables.tables.map((t) => t.rangeA1)).toEqual([
    'Blocks!B2:C4',
    'Blocks!F3:G5',
    'Blocks!C8:F10',
    'Blocks!C14:E17',
  ]);
  expect(res.tables.tables[2]!.headers).toEqual(['Name', 'Qty', '', 'Price']);
  expect(res.tables.tables[2]!.rows).toEqual([
    ['nut', '3', '', '0.5'],
    ['bolt', '4', '', '0.75'],
  ]);
  expect(res.tables.tables[3]!.rows.at(-1)).toEqual(['', '', 'total']);
});

test('titles above tables, notes below them and free text become texts, not tables', async () => {
  const res = await build('texts.xlsx', (wb) => {
    const ws = wb.addWorksheet('Report');
    ws.getCell('A1').value = 'Quarterly report';
    ws.getCell('A3').value = 'Fleet costs';
    ws.addRows([]);
    ws.getRow(4).values = ['Truck', 'Cost'];
    ws.getRow(5).values = ['T-1', 100];
    ws.getRow(6).values = ['T-2', 200];
    ws.getCell('A7').value = 'Source: depot ledgers, unaudited figures';
    ws.getCell('E2').value = 'Prepared by the finance team';
  });
  expect(res.tables.tables).toHaveLength(1);
  const t = res.tables.tables[0]!;
  expect(t).toMatchObject({
    rangeA1: 'Report!A4:B6',
    title: 'Fleet costs',
    notes: ['Source: depot ledgers, unaudited figures'],
  });
  expect(res.tables.texts.map((x) => [x.id, x.kind, x.text, x.rangeA1, x.tableId])).toEqual([
    ['s0-x1', 'text', 'Quarterly report', 'Report!A1', undefined],
    ['s0-x2', 'text', 'Prepared by the finance team', 'Report!E2', undefined],
    ['s0-x3', 'title', 'Fleet costs', 'Report!A3', 's0-t1'],
    ['s0-x4', 'note', 'Source: depot ledgers, unaudited figures', 'Report!A7', 's0-t1'],
  ]);
  expect(res.markdown).toContain('Fleet costs\n\n<a id="s0-t1"></a>\n| Truck | Cost |');
});

test('hidden sheets are parsed and flagged; sheet order follows the workbook, not the zip', async () => {
  const res = await build('order.xlsx', (wb) => {
    wb.addWorksheet('Zeta').addRows([
      ['a', 'b'],
      [1, 2],
    ]);
    const hidden = wb.addWorksheet('Hidden', { state: 'hidden' });
    hidden.addRows([
      ['c', 'd'],
      [3, 4],
    ]);
    wb.addWorksheet('Alpha').addRows([
      ['e', 'f'],
      [5, 6],
    ]);
  });
  expect(res.sheets.map((s) => [s.name, s.hidden])).toEqual([
    ['Zeta', false],
    ['Hidden', true],
    ['Alpha', false],
  ]);
  expect(res.workbook!.sheets[1]!.hidden).toBe(true);
});

test('multi-byte text split across inflate chunks survives (exceljs decodes chunk by chunk)', async () => {
  const long = 'Überweisung — 東京 ✓ '.repeat(5000);
  const rows = [
    `<row r="1"><c r="A1" t="inlineStr"><is><t>${long}</t></is></c><c r="B1" t="inlineStr"><is><t>h</t></is></c></row>`,
  ];
  for (let r = 2; r < 400; r++)
    rows.push(
      `<row r="${r}"><c r="A${r}" t="inlineStr"><is><t>Zürich ${r} 日本語</t></is></c><c r="B${r}"><v>${r}</v></c></row>`,
    );
  const file = writeRawXlsx(tmp.file('utf8.xlsx'), [{ name: 'Ünïcode', sheetData: rows.join('') }]);
  const res = await parseSpreadsheet({ path: file, kind: 'xlsx', filename: 'utf8.xlsx' });
  const texts = res.workbook!.sheets[0]!.rows.flatMap((r) => r.cells.map((c) => c.text)).join('');
  // Counted, not compared, so a failure does not print 100 KB of text.
  expect(texts.split('\uFFFD').length - 1).toBe(0);
  expect(res.workbook!.sheets[0]!.rows[0]!.cells[0]!.text === long).toBe(true);
  expect(res.sheets[0]!.name).toBe('Ünïcode');
});

test('shared formulas keep their cached results; only the first cell carries the formula text', async () => {
  const rows = [
    '<row r="1"><c r="A1" t="inlineStr"><is><t>n</t></is></c><c r="B1" t="inlineStr"><is><t>double</t></is></c></row>',
    '<row r="2"><c r="A2"><v>1</v></c><c r="B2"><f t="shared" ref="B2:B4" si="0">A2*2</f><v>2</v></c></row>',
    '<row r="3"><c r="A3"><v>2</v></c><c r="B3"><f t="shared" si="0"/><v>4</v></c></row>',
    '<row r="4"><c r="A4"><v>3</v></c><c r="B4" t="e"><f t="shared" si="0"/><v>#REF!</v></c></row>',
    // Falsy cached results, which exceljs' reader drops or mangles.
    '<row r="5"><c r="A5"><v>0</v></c><c r="B5"><f>A5*3</f><v>0</v></c><c r="C5" t="str"><f>""</f><v></v></c><c r="D5" t="b"><f>1=2</f><v>0</v></c></row>',
  ];
  const file = writeRawXlsx(tmp.file('shared.xlsx'), [{ name: 'F', sheetData: rows.join('') }]);
  const res = await parseSpreadsheet({ path: file, kind: 'xlsx', filename: 'shared.xlsx' });
  expect(cell(res, 0, 'B2')).toMatchObject({ type: 'formula', formula: 'A2*2', result: 2 });
  expect(cell(res, 0, 'B3')).toEqual({ c: 2, a1: 'B3', value: 4, type: 'formula', result: 4, text: '4' });
  expect(cell(res, 0, 'B4')).toMatchObject({ type: 'formula', result: '#REF!', text: '#REF!' });
  expect(cell(res, 0, 'B5')).toEqual({
    c: 2,
    a1: 'B5',
    value: 0,
    type: 'formula',
    formula: 'A5*3',
    result: 0,
    text: '0',
  });
  expect(cell(res, 0, 'C5')).toMatchObject({ type: 'formula', formula: '""', result: '', text: '' });
  expect(cell(res, 0, 'D5')).toMatchObject({ type: 'formula', formula: '1=2', result: false, text: 'FALSE' });
});
