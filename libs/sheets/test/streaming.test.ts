// The streamed path on a generated multi-sheet workbook (~1 MB; the 50 MB run lives in bench/):
// artifacts written to outDir are valid JSON/markdown and match what the in-memory path returns.
import { readFileSync } from 'node:fs';
import { buildSheetSegments, parseSpreadsheet } from '../src';
import { generateLargeWorkbook } from '../bench/generate-large';
import { tempDir } from './helpers/paths';

const tmp = tempDir('stream');
afterAll(() => tmp.cleanup());
let generated: { rows: number; cells: number };

beforeAll(async () => {
  generated = await generateLargeWorkbook(tmp.file('big.xlsx'), 1024 * 1024, { sheets: 2 });
});

test('outDir: artifacts are streamed to files and equal the in-memory results', async () => {
  const progress: Array<[number, number]> = [];
  const onDisk = await parseSpreadsheet({
    path: tmp.file('big.xlsx'),
    kind: 'xlsx',
    filename: 'big.xlsx',
    outDir: tmp.file('out'),
    onProgress: (d, t) => progress.push([d, t]),
  });
  expect(progress).toEqual([
    [0, 2],
    [1, 2],
    [2, 2],
  ]);
  expect(onDisk.workbook).toBeUndefined();
  expect(onDisk.markdown).toBeUndefined();
  const inMemory = await parseSpreadsheet({ path: tmp.file('big.xlsx'), kind: 'xlsx', filename: 'big.xlsx' });
  const read = (p: string) => readFileSync(p, 'utf8');
  const a = onDisk.artifacts!;
  // Same key order on both paths: compare the serialised text (a deep equal of 120k cells is slow).
  expect(read(a.workbook_json) === JSON.stringify(inMemory.workbook)).toBe(true);
  expect(JSON.parse(read(a.workbook_json)).sheets[1].rows.at(-1)).toEqual(inMemory.workbook!.sheets[1]!.rows.at(-1));
  expect(JSON.parse(read(a.tables_json))).toEqual(inMemory.tables);
  expect({ ...JSON.parse(read(a.grounding_json)), document: {} }).toEqual({ ...inMemory.grounding, document: {} });
  expect(read(a.result_md)).toBe(inMemory.markdown);

  // Each sheet: merged title row, header row, then the generated rows.
  expect(onDisk.stats.cellCount).toBe(generated.cells + 2 * 13);
  const tables = onDisk.tables.tables;
  expect(tables.map((t) => [t.title, t.headers.length, t.rows.length])).toEqual([
    ['Sales ledger 1', 12, generated.rows / 2],
    ['Sales ledger 2', 12, generated.rows / 2],
  ]);
  const row = tables[0]!.rows[0]!;
  expect(row.slice(0, 9)).toEqual(['1', '2020-01-01', 'Lyon', 'Widget', '0', '0', '0', '0', '0']);
  const seg = buildSheetSegments(onDisk, { fileId: 'f', docName: 'big.xlsx' });
  expect(seg.length).toBe(2 + 2 * Math.ceil(generated.rows / 2 / 25));
});
