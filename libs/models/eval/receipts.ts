// The receipt set: MANIFEST.tsv rows with SROIE key fields (company, date, address, total), the
// schema the extraction is asked with, and the comparison the issue defines: exact match after
// case and whitespace normalisation, dates as dates (SROIE prints them day-first), totals as numbers.
import fs from 'node:fs/promises';
import path from 'node:path';
import { findAmounts } from '../src/local/text/amounts';
import { findDates } from '../src/local/text/dates';
import type { FieldListSchema } from '../src/tasks/field-schema';

export const RECEIPT_SCHEMA: FieldListSchema = {
  title: 'Receipt',
  fields: [
    { name: 'company', type: 'string', description: 'Company (shop) that issued the receipt' },
    { name: 'date', type: 'date', description: 'Date of the receipt' },
    { name: 'address', type: 'string', description: 'Postal address of the company' },
    { name: 'total', type: 'number', description: 'Total amount paid' },
  ],
};

export type ReceiptField = 'company' | 'date' | 'address' | 'total';
export const RECEIPT_FIELDS: ReceiptField[] = ['company', 'date', 'address', 'total'];

export interface ReceiptRow {
  path: string;
  truthPath: string;
  half: 'A' | 'B';
}

/** Receipt rows of the manifest (SROIE key-field JSON as ground truth), halves alternating in path order. */
export async function receiptRows(corpus: string): Promise<ReceiptRow[]> {
  const lines = (await fs.readFile(path.join(corpus, 'MANIFEST.tsv'), 'utf8')).split('\n').filter(Boolean);
  const head = lines[0]!.split('\t');
  const col = (name: string) => head.indexOf(name);
  const rows: ReceiptRow[] = [];
  for (const l of lines.slice(1)) {
    const f = l.split('\t');
    if (f[col('doc_class')] !== 'receipt') continue;
    const truth = (f[col('ground_truth')] ?? '').split(';').find((t) => t.endsWith('.json'));
    if (truth) rows.push({ path: f[col('local_path')]!, truthPath: truth, half: 'A' });
  }
  rows
    .sort((a, b) => a.path.localeCompare(b.path))
    .forEach((r, i) => {
      r.half = i % 2 === 0 ? 'A' : 'B';
    });
  return rows;
}

export async function receiptTruth(corpus: string, row: ReceiptRow): Promise<Record<ReceiptField, string>> {
  return JSON.parse(await fs.readFile(path.join(corpus, row.truthPath), 'utf8')) as Record<ReceiptField, string>;
}

/** The value as compared: upper case without whitespace; dates ISO (the truth day-first); totals to 2 decimals. */
export function receiptKey(field: ReceiptField, value: unknown, truth = false): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const s = String(value).trim();
  if (field === 'date') {
    if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return s;
    // The truth is the printed text; SROIE receipts print day first.
    const dm = /^(\d{1,2})[./-](\d{1,2})[./-](\d{2}|\d{4})$/.exec(s);
    if (truth && dm) {
      const y = dm[3]!.length === 2 ? 2000 + Number(dm[3]) : Number(dm[3]);
      return `${y}-${dm[2]!.padStart(2, '0')}-${dm[1]!.padStart(2, '0')}`;
    }
    return findDates(s)[0]?.iso;
  }
  if (field === 'total') {
    const n = typeof value === 'number' ? value : findAmounts(s, { requireMoneyShape: false })[0]?.value;
    return n === undefined ? undefined : n.toFixed(2);
  }
  return s.toUpperCase().replace(/\s+/g, '');
}

export interface FieldCounts {
  tp: number;
  fp: number;
  fn: number;
}

/** tp when equal; a wrong value is a false positive and a false negative; a missing one a false negative. */
export function compareReceiptField(field: ReceiptField, expected: unknown, predicted: unknown): FieldCounts {
  const e = receiptKey(field, expected, true),
    p = receiptKey(field, predicted);
  if (e && p) return e === p ? { tp: 1, fp: 0, fn: 0 } : { tp: 0, fp: 1, fn: 1 };
  return { tp: 0, fp: p ? 1 : 0, fn: e ? 1 : 0 };
}
