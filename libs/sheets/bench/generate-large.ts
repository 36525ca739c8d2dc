// Writes a large synthetic workbook with exceljs' streaming writer (bounded memory on the writing side too).
// Usage: tsx libs/sheets/bench/generate-large.ts OUT.xlsx [targetMegabytes=50]
import { statSync } from 'node:fs';
import ExcelJS from 'exceljs';

const CITIES = ['Lyon', 'Osaka', 'Lagos', 'Quito', 'Perth', 'Oslo', 'Pune', 'Tulsa', 'Cork', 'Izmir'];
const PRODUCTS = ['Widget', 'Gadget', 'Sprocket', 'Flange', 'Grommet', 'Bracket', 'Gasket'];

export async function generateLargeWorkbook(
  out: string,
  targetBytes: number,
  opts: { sheets?: number } = {},
): Promise<{ rows: number; cells: number; bytes: number }> {
  const sheets = opts.sheets ?? 2;
  // ~92 bytes of zip per row measured for this row shape; rows are spread over the sheets.
  const rowsTotal = Math.max(10, Math.round(targetBytes / 92));
  const perSheet = Math.ceil(rowsTotal / sheets);
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: out, useSharedStrings: true, useStyles: true });
  let cells = 0;
  for (let s = 0; s < sheets; s++) {
    const ws = wb.addWorksheet(`Data ${s + 1}`);
    ws.addRow([`Sales ledger ${s + 1}`]);
    ws.mergeCells(1, 1, 1, 6);
    ws.getRow(1).commit();
    ws.addRow([
      'Id',
      'Date',
      'City',
      'Product',
      'Units',
      'Price',
      'Total',
      'Discount',
      'Net',
      'Code',
      'Flag',
      'Note',
    ]).commit();
    for (let i = 0; i < perSheet; i++) {
      const r = i + 3;
      const units = (i * 7) % 97;
      const price = Math.round(((i * 13) % 1000) * 1.25) / 100;
      const row = ws.addRow([
        i + 1,
        new Date(Date.UTC(2020, 0, 1 + (i % 1500))),
        CITIES[i % CITIES.length],
        PRODUCTS[(i * 3) % PRODUCTS.length],
        units,
        price,
        { formula: `E${r}*F${r}`, result: Math.round(units * price * 100) / 100 },
        (i % 5) / 100,
        { formula: `G${r}*(1-H${r})`, result: Math.round(units * price * (1 - (i % 5) / 100) * 100) / 100 },
        `C-${(i * 2654435761) % 1000003}`,
        i % 3 === 0,
        i % 11 === 0 ? `check row ${i}` : null,
      ]);
      row.getCell(2).numFmt = 'yyyy-mm-dd';
      row.commit();
      cells += i % 11 === 0 ? 12 : 11;
    }
    ws.commit();
  }
  await wb.commit();
  return { rows: perSheet * sheets, cells, bytes: statSync(out).size };
}

if (require.main === module) {
  const out = process.argv[2] ?? '/tmp/large.xlsx';
  const mb = Number(process.argv[3] ?? '50');
  const t0 = Date.now();
  generateLargeWorkbook(out, mb * 1024 * 1024).then((r) => {
    console.log(
      JSON.stringify({ out, ...r, megabytes: +(r.bytes / 1048576).toFixed(1), seconds: (Date.now() - t0) / 1000 }),
    );
  });
}
