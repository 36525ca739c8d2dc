// CSV decoding: encodings, delimiters, quoting, ragged rows, blank-line separated blocks.
import { writeFileSync } from 'node:fs';
import { detectDelimiter, inspectSpreadsheet, parseSpreadsheet } from '../src';
import { tempDir } from './helpers/paths';

const tmp = tempDir('csv');
afterAll(() => tmp.cleanup());

async function parseBytes(name: string, bytes: Buffer | string) {
  const file = tmp.file(name);
  writeFileSync(file, bytes);
  return parseSpreadsheet({ path: file, kind: 'csv', filename: name });
}

test.each([
  ['comma', 'a,b,c\n1,2,3\n4,5,6\n', ','],
  ['semicolon', 'a;b;c\n1;2,5;3\n4;5;6\n', ';'],
  ['tab', 'a\tb\tc\n1\t2\t3\n', '\t'],
  ['pipe', 'a|b|c\n1|2|3\n', '|'],
  ['semicolon with decimal commas', 'name;price;qty\nnut;0,5;3\nbolt;0,75;4\n', ';'],
  ['comma inside quotes only', '"x;y",b\n"1;2",3\n', ','],
  ['single column', 'name\nalpha\nbeta\n', ','],
])('detectDelimiter: %s', (_, sample, expected) => {
  expect(detectDelimiter(sample)).toBe(expected);
});

test('quoted cells keep delimiters, doubled quotes and newlines', async () => {
  const res = await parseBytes('quoted.csv', 'id,comment\r\n1,"says ""hi"", then leaves"\r\n2,"two\nlines"\r\n');
  expect(res.tables.tables[0]!.rows).toEqual([
    ['1', 'says "hi", then leaves'],
    ['2', 'two\nlines'],
  ]);
  expect(res.markdown).toContain('| 2 | two<br>lines |');
});

test('ragged rows are padded to the table width', async () => {
  const res = await parseBytes('ragged.csv', 'a,b,c\n1,2\n3,4,5,6\n7\n');
  const t = res.tables.tables[0]!;
  expect(t.rangeA1).toBe('ragged!A1:D4');
  expect(t.headers).toEqual(['a', 'b', 'c', '']);
  expect(t.rows).toEqual([
    ['1', '2', '', ''],
    ['3', '4', '5', '6'],
    ['7', '', '', ''],
  ]);
});

test('UTF-8 with BOM: BOM stripped, text intact', async () => {
  const res = await parseBytes(
    'bom.csv',
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('città,prezzo\nTorino,3\n', 'utf8')]),
  );
  expect(res.stats.encoding).toBe('utf-8');
  expect(res.tables.tables[0]!.headers).toEqual(['città', 'prezzo']);
});

test('bytes that are not valid UTF-8 are read as Windows-1252', async () => {
  // 'Müller;Straße;5 €' in Windows-1252: ü=0xFC, ß=0xDF, €=0x80.
  const latin = Buffer.from([
    ...Buffer.from('name;street;fee\nM'),
    0xfc,
    ...Buffer.from('ller;Stra'),
    0xdf,
    ...Buffer.from('e;5 '),
    0x80,
    0x0a,
  ]);
  const res = await parseBytes('latin1.csv', latin);
  expect(res.stats).toMatchObject({ encoding: 'windows-1252', delimiter: ';' });
  expect(res.tables.tables[0]!.rows).toEqual([['Müller', 'Straße', '5 €']]);
});

test('invalid UTF-8 late in a large file still switches the whole file to Windows-1252', async () => {
  const lines = ['k,v'];
  for (let i = 0; i < 30_000; i++) lines.push(`row${i},${i}`);
  const tail = Buffer.from([...Buffer.from('caf'), 0xe9, ...Buffer.from(',1\n')]);
  const res = await parseBytes('late.csv', Buffer.concat([Buffer.from(`${lines.join('\n')}\n`), tail]));
  expect(res.stats.encoding).toBe('windows-1252');
  expect(res.tables.tables[0]!.rows.at(-1)).toEqual(['café', '1']);
  expect(res.stats.cellCount).toBe(2 * 30_002);
});

test('UTF-16LE with BOM', async () => {
  const body = Buffer.from('a\tb\n日本\t2\n', 'utf16le');
  const res = await parseBytes('utf16.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), body]));
  expect(res.stats).toMatchObject({ encoding: 'utf-16le', delimiter: '\t' });
  expect(res.tables.tables[0]!.rows).toEqual([['日本', '2']]);
});

test('numbers are typed but keep their source text; ids with leading zeros stay text', async () => {
  const res = await parseBytes('types.csv', 'zip,price,qty\n01234,1.50,-3\n');
  const cells = res.workbook!.sheets[0]!.rows[1]!.cells;
  expect(cells.map((c) => [c.type, c.value, c.text])).toEqual([
    ['string', '01234', '01234'],
    ['number', 1.5, '1.50'],
    ['number', -3, '-3'],
  ]);
});

test('blank lines separate blocks: a CSV with two tables gives two tables', async () => {
  const res = await parseBytes('two.csv', 'a,b\n1,2\n3,4\n\n\nc,d,e\n5,6,7\n');
  expect(res.tables.tables.map((t) => [t.rangeA1, t.headers])).toEqual([
    ['two!A1:B3', ['a', 'b']],
    ['two!A6:C7', ['c', 'd', 'e']],
  ]);
});

test('an unterminated quote is corrupt, not a hang or a crash', async () => {
  await expect(parseBytes('open.csv', 'a,b\n1,"never closed\n2,3\n')).rejects.toMatchObject({
    code: 'corrupt_spreadsheet',
  });
});

test('a record longer than the limit is refused', async () => {
  const file = tmp.file('long.csv');
  writeFileSync(file, `a,b\n1,"${'x'.repeat(200_000)}"\n`);
  await expect(
    parseSpreadsheet({ path: file, kind: 'csv', filename: 'long.csv', limits: { maxCsvRecordChars: 100_000 } }),
  ).rejects.toMatchObject({ code: 'corrupt_spreadsheet' });
});

test('inspect: a CSV is one sheet named after the file', async () => {
  const file = tmp.file('orders-2024.csv');
  writeFileSync(file, 'a,b\n1,2\n');
  await expect(inspectSpreadsheet(file, 'csv', { filename: 'Orders 2024.csv' })).resolves.toMatchObject({
    sheetCount: 1,
    sheetNames: ['Orders 2024'],
  });
});
