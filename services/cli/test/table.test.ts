// The CLI's tables: the last column is cut to the terminal width; the upload table keeps the end of
// a long path (its file name) rather than its beginning (issue 13.8).
import { table, truncate, truncateStart } from '../src/user/table';

it('cuts a long last column at its end, or with keepEnd at its beginning', () => {
  const path =
    '/home/ada/projects/archive/2024/quarterly-reports/finance/invoices/very-long-supplier-name-invoice-0042.pdf';
  const rows = [['id-1', '10 B', path]];
  const cut = table(['ID', 'SIZE', 'PATH'], rows, 60).split('\n')[1];
  expect(cut.length).toBeLessThanOrEqual(60);
  expect(cut).toContain('/home/ada/projects');
  const kept = table(['ID', 'SIZE', 'PATH'], rows, 60, { keepEnd: true }).split('\n')[1];
  expect(kept.length).toBeLessThanOrEqual(60);
  expect(kept).toMatch(/ ….*very-long-supplier-name-invoice-0042\.pdf$/);
  expect(kept).not.toContain('/home/ada');
  // short texts are untouched either way
  expect(truncateStart('a.pdf', 10)).toBe('a.pdf');
  expect(truncate('a.pdf', 10)).toBe('a.pdf');
  expect(truncateStart('abcdefghij', 5)).toBe('…ghij');
});
