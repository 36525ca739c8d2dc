// Hostile and broken inputs: each must fail fast with a typed reason, or complete, in bounded time
// and memory, without crashing the process.
import { copyFileSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { inspectSpreadsheet, parseSpreadsheet, SheetParseError, type SheetErrorCode } from '../src';
import { encryptedWorkbookStreams, writeCompoundFile } from './helpers/cfb-writer';
import { SHEETS_CORPUS, tempDir } from './helpers/paths';
import { colLetters, rawXlsxEntries, STYLED_EMPTY_STYLES, writeRawXlsx } from './helpers/xlsx-raw';
import { deflatedZeros, writeZip } from './helpers/zip-writer';

const tmp = tempDir('bad');
afterAll(() => tmp.cleanup());
const TEST01 = path.join(SHEETS_CORPUS, 'docling', 'test-01.xlsx');

async function expectCode(promise: Promise<unknown>, code: SheetErrorCode, message?: RegExp): Promise<SheetParseError> {
  const err = await promise.then(
    () => {
      throw new Error(`expected ${code}, but it succeeded`);
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SheetParseError);
  expect((err as SheetParseError).code).toBe(code);
  if (message) expect((err as SheetParseError).message).toMatch(message);
  return err as SheetParseError;
}

const parseXlsx = (p: string, extra: Partial<Parameters<typeof parseSpreadsheet>[0]> = {}) =>
  parseSpreadsheet({ path: p, kind: 'xlsx', filename: path.basename(p), ...extra });

describe('zip bombs disguised as xlsx', () => {
  test('an entry that would inflate 100 MB of zeros at ~1000:1 is refused from the central directory', async () => {
    const bomb = await deflatedZeros(100 * 1024 * 1024);
    const file = writeZip(
      tmp.file('ratio-bomb.xlsx'),
      rawXlsxEntries([{ name: 'Sheet1', part: '', entry: { deflated: bomb, declaredSize: 100 * 1024 * 1024 } }]),
    );
    const t0 = Date.now();
    const err = await expectCode(parseXlsx(file), 'zip_bomb', /would inflate \d+x/);
    expect(err.details).toMatchObject({ entry: 'xl/worksheets/sheet1.xml', uncompressedSize: 100 * 1024 * 1024 });
    await expectCode(inspectSpreadsheet(file, 'xlsx'), 'zip_bomb');
    expect(Date.now() - t0).toBeLessThan(2000);
  });

  test('total declared size over the limit is refused before inflating', async () => {
    const data = '<row/>'.repeat(400_000);
    const file = writeZip(
      tmp.file('big-total.xlsx'),
      rawXlsxEntries([
        { name: 'A', part: data },
        { name: 'B', part: data },
      ]),
    );
    await expectCode(
      parseXlsx(file, { limits: { maxUncompressedBytes: 4 * 1024 * 1024 } }),
      'zip_bomb',
      /inflates to more than 4194304 bytes/,
    );
  });

  test('a lying header (declares 2 KB, inflates to 50 MB) is stopped at the first extra byte', async () => {
    const bomb = await deflatedZeros(50 * 1024 * 1024);
    const file = writeZip(
      tmp.file('liar.xlsx'),
      rawXlsxEntries([{ name: 'Sheet1', part: '', entry: { deflated: bomb, declaredSize: 2048 } }]),
    );
    const before = process.memoryUsage().rss;
    await expectCode(parseXlsx(file), 'zip_bomb', /inflates past its declared 2048 bytes/);
    expect(process.memoryUsage().rss - before).toBeLessThan(64 * 1024 * 1024);
  });

  test('entries overlapping the same bytes (non-recursive bomb) are refused', async () => {
    const entries = rawXlsxEntries([{ name: 'Sheet1', sheetData: '<row r="1"><c r="A1"><v>1</v></c></row>' }]);
    const buf = (await import('./helpers/zip-writer')).zipBuffer(entries);
    // Point 200 extra central-directory records at the first local entry.
    const eocd = buf.length - 22;
    const cdSize = buf.readUInt32LE(eocd + 12);
    const cdStart = buf.readUInt32LE(eocd + 16);
    const firstRecordLen = 46 + buf.readUInt16LE(cdStart + 28);
    const first = buf.subarray(cdStart, cdStart + firstRecordLen);
    const copies = Array.from({ length: 200 }, (_, k) => {
      const rec = Buffer.from(first);
      const name = Buffer.from(`xl/media/dup${k}.bin`);
      const out = Buffer.concat([rec.subarray(0, 46), name]);
      out.writeUInt16LE(name.length, 28);
      return out;
    });
    const cd = Buffer.concat([buf.subarray(cdStart, cdStart + cdSize), ...copies]);
    const tail = Buffer.from(buf.subarray(eocd));
    tail.writeUInt16LE(entries.length + 200, 8);
    tail.writeUInt16LE(entries.length + 200, 10);
    tail.writeUInt32LE(cd.length, 12);
    const file = tmp.file('overlap.xlsx');
    writeFileSync(file, Buffer.concat([buf.subarray(0, cdStart), cd, tail]));
    await expectCode(parseXlsx(file, { limits: { maxCompressionRatio: 1e9 } }), 'zip_bomb', /overlapping entries/);
  });
});

describe('password-protected and legacy containers', () => {
  test('an encrypted workbook (OLE container with EncryptedPackage) is reported as password_protected', async () => {
    const file = writeCompoundFile(tmp.file('locked.xlsx'), encryptedWorkbookStreams());
    await expectCode(parseXlsx(file), 'password_protected', /password-protected/);
    await expectCode(inspectSpreadsheet(file, 'xlsx'), 'password_protected');
  });

  test('a legacy .xls renamed .xlsx is unsupported_format', async () => {
    const file = writeCompoundFile(tmp.file('old.xlsx'), [{ name: 'Workbook', data: Buffer.alloc(5000, 9) }]);
    await expectCode(parseXlsx(file), 'unsupported_format', /\.xls/);
  });
});

describe('not a spreadsheet, or a damaged one', () => {
  test('random bytes named .xlsx', async () => {
    const bytes = randomBytes(64 * 1024);
    bytes[0] = 0x42;
    const file = tmp.file('random.xlsx');
    writeFileSync(file, bytes);
    await expectCode(parseXlsx(file), 'not_a_spreadsheet', /no zip signature/);
  });

  test('empty file, text file, PDF named .xlsx', async () => {
    writeFileSync(tmp.file('empty.xlsx'), '');
    writeFileSync(tmp.file('text.xlsx'), 'a,b,c\n1,2,3\n');
    writeFileSync(tmp.file('doc.xlsx'), '%PDF-1.7\n%\xe2\xe3\n');
    await expectCode(parseXlsx(tmp.file('empty.xlsx')), 'not_a_spreadsheet', /empty/);
    await expectCode(parseXlsx(tmp.file('text.xlsx')), 'not_a_spreadsheet', /text file/);
    await expectCode(parseXlsx(tmp.file('doc.xlsx')), 'not_a_spreadsheet', /PDF/);
  });

  test('random bytes behind a zip signature, and a truncated workbook, are corrupt', async () => {
    const bytes = randomBytes(64 * 1024);
    bytes.write('PK\x03\x04', 0, 'latin1');
    writeFileSync(tmp.file('fakezip.xlsx'), bytes);
    await expectCode(parseXlsx(tmp.file('fakezip.xlsx')), 'corrupt_spreadsheet', /central directory/);
    const whole = readFileSync(TEST01);
    writeFileSync(tmp.file('truncated.xlsx'), whole.subarray(0, whole.length >> 1));
    await expectCode(parseXlsx(tmp.file('truncated.xlsx')), 'corrupt_spreadsheet');
  });

  test('a zip without a workbook (a Word document) is not_a_spreadsheet', async () => {
    const file = writeZip(tmp.file('letter.xlsx'), [
      { name: '[Content_Types].xml', data: '<Types/>' },
      { name: 'word/document.xml', data: '<w:document/>' },
    ]);
    await expectCode(parseXlsx(file), 'not_a_spreadsheet', /Word document/);
  });

  test('malformed sheet XML is corrupt_spreadsheet naming the sheet', async () => {
    const file = writeRawXlsx(tmp.file('badxml.xlsx'), [
      { name: 'Broken', sheetData: '<row r="1"><c r="A1"><v>1</v></c></row><row r="2"><c r="A2"><v>2</v></row>' },
    ]);
    await expectCode(parseXlsx(file), 'corrupt_spreadsheet', /worksheet 'Broken'/);
  });

  test('binary data named .csv, and an xlsx named .csv', async () => {
    const bin = randomBytes(4096);
    bin[10] = 0;
    writeFileSync(tmp.file('bin.csv'), bin);
    await expectCode(
      parseSpreadsheet({ path: tmp.file('bin.csv'), kind: 'csv', filename: 'bin.csv' }),
      'not_a_spreadsheet',
      /binary/,
    );
    copyFileSync(TEST01, tmp.file('book.csv'));
    await expectCode(
      parseSpreadsheet({ path: tmp.file('book.csv'), kind: 'csv', filename: 'book.csv' }),
      'not_a_spreadsheet',
      /zip archive/,
    );
  });

  test('a workbook whose sheets hold no value is empty_spreadsheet', async () => {
    const file = writeRawXlsx(
      tmp.file('blank.xlsx'),
      [{ name: 'S', sheetData: '<row r="1"><c r="A1" s="1"/></row>' }],
      { styles: STYLED_EMPTY_STYLES },
    );
    await expectCode(parseXlsx(file), 'empty_spreadsheet');
  });
});

describe('resource limits', () => {
  test('a million empty formatted cells are not data: parse completes quickly with the real table only', async () => {
    const rows: string[] = [
      '<row r="1"><c r="A1" t="inlineStr"><is><t>Item</t></is></c><c r="B1" t="inlineStr"><is><t>Qty</t></is></c></row>',
    ];
    rows.push('<row r="2"><c r="A2" t="inlineStr"><is><t>bolts</t></is></c><c r="B2"><v>40</v></c></row>');
    // 1000 rows x 1000 columns of styled, valueless cells.
    for (let r = 3; r <= 1002; r++) {
      const cells: string[] = [];
      for (let c = 1; c <= 1000; c++) cells.push(`<c r="${colLetters(c)}${r}" s="1"/>`);
      rows.push(`<row r="${r}" s="1" customFormat="1">${cells.join('')}</row>`);
    }
    const file = writeRawXlsx(tmp.file('styled.xlsx'), [{ name: 'Styled', sheetData: rows.join('') }], {
      styles: STYLED_EMPTY_STYLES,
    });
    const t0 = Date.now();
    const res = await parseXlsx(file);
    const seconds = (Date.now() - t0) / 1000;
    expect(res.stats.cellCount).toBe(4);
    expect(res.workbook!.sheets[0]).toMatchObject({ dimension: 'A1:B2', rowCount: 2, colCount: 2 });
    expect(res.tables.tables.map((t) => [t.rangeA1, t.headers, t.rows])).toEqual([
      ['Styled!A1:B2', ['Item', 'Qty'], [['bolts', '40']]],
    ]);
    expect(seconds).toBeLessThan(20);
  });

  test('too many non-empty cells', async () => {
    const err = await expectCode(
      parseXlsx(TEST01, { limits: { maxCells: 50 } }),
      'too_many_cells',
      /more than 50 non-empty cells/,
    );
    expect(err.details).toEqual({ limit: 50 });
    await expectCode(
      parseSpreadsheet({
        path: path.join(SHEETS_CORPUS, 'docling', 'csv-comma.csv'),
        kind: 'csv',
        filename: 'c.csv',
        limits: { maxCells: 10 },
      }),
      'too_many_cells',
    );
  });

  test('too many sheets', async () => {
    await expectCode(parseXlsx(TEST01, { limits: { maxSheets: 2 } }), 'too_many_sheets', /3 worksheets/);
  });

  test('cancellation between sheets', async () => {
    let calls = 0;
    const progress: Array<[number, number]> = [];
    await expectCode(
      parseXlsx(TEST01, { shouldCancel: () => ++calls > 2, onProgress: (d, t) => progress.push([d, t]) }),
      'cancelled',
    );
    expect(progress[0]).toEqual([0, 3]);
    expect(progress.length).toBeLessThan(4);
  });

  test('a failure with outDir leaves no partial artifacts, before or after the first sheet', async () => {
    const out = tmp.file('out-fail');
    await expectCode(parseXlsx(TEST01, { outDir: out, limits: { maxCells: 60 } }), 'too_many_cells');
    expect(readdirSync(out)).toEqual([]);
    writeFileSync(tmp.file('junk.xlsx'), 'not a workbook');
    await expectCode(parseXlsx(tmp.file('junk.xlsx'), { outDir: out }), 'not_a_spreadsheet');
    expect(readdirSync(out)).toEqual([]);
  });

  test('invalid limits are a programming error, not a parse failure', async () => {
    await expect(parseXlsx(TEST01, { limits: { maxCells: -1 } })).rejects.toThrow(TypeError);
  });
});
