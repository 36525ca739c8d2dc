// CSV into a SheetStore: encoding sniffed (BOM, else strict UTF-8, else Windows-1252), delimiter
// voted on a sample, then csv-parse streams records (quoted delimiters and newlines, ragged rows).
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { once } from 'node:events';
import { parse } from 'csv-parse';
import { SheetParseError, asSheetParseError } from './errors';
import type { SheetLimits } from './limits';
import { FormatTable } from './cell-format';
import { KIND, SheetStore } from './sheet-store';
import { looksBinary, readHead, signatureOf } from './sniff';
import { cancelledError } from './xlsx-reader';

export type CsvEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252';
export const CSV_DELIMITERS = [',', ';', '\t', '|'] as const;
export type CsvDelimiter = (typeof CSV_DELIMITERS)[number];

export interface CsvReadResult {
  store: SheetStore;
  encoding: CsvEncoding;
  bom: boolean;
  delimiter: CsvDelimiter;
}

const SAMPLE_BYTES = 64 * 1024;
const CANCEL_CHECK_ROWS = 5000;

export async function checkCsvFile(path: string, limits: SheetLimits): Promise<{ head: Buffer; size: number }> {
  const size = (await stat(path)).size;
  if (size > limits.maxCsvBytes) {
    throw new SheetParseError('too_many_cells', `CSV is ${size} bytes, limit ${limits.maxCsvBytes}`, {
      size,
      limit: limits.maxCsvBytes,
    });
  }
  const head = await readHead(path, SAMPLE_BYTES);
  const sig = signatureOf(head);
  if (sig !== 'other') {
    throw new SheetParseError(
      'not_a_spreadsheet',
      `file named as CSV is a ${sig === 'zip' ? 'zip archive (an xlsx?)' : 'binary Office document'}`,
    );
  }
  if (looksBinary(head))
    throw new SheetParseError('not_a_spreadsheet', 'file named as CSV contains binary data, not delimited text');
  return { head, size };
}

export function detectBom(head: Buffer): { encoding: CsvEncoding; bomLength: number } | null {
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', bomLength: 3 };
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', bomLength: 2 };
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', bomLength: 2 };
  return null;
}

/**
 * Picks the delimiter whose per-record count is the most consistent over the sample (ignoring
 * quoted text); ties go to the earlier of comma, semicolon, tab, pipe. A single column gives comma.
 */
export function detectDelimiter(sample: string): CsvDelimiter {
  const records = splitSampleRecords(sample, 50);
  let best: CsvDelimiter = ',';
  let bestScore = 0;
  for (const d of CSV_DELIMITERS) {
    const counts = records.map((rec) => countOutsideQuotes(rec, d));
    const freq = new Map<number, number>();
    for (const n of counts) if (n > 0) freq.set(n, (freq.get(n) ?? 0) + 1);
    let modeCount = 0;
    let mode = 0;
    for (const [n, f] of freq)
      if (f > modeCount || (f === modeCount && n > mode)) {
        modeCount = f;
        mode = n;
      }
    if (mode === 0) continue;
    // Share of records agreeing on the mode, weighted slightly by the number of columns it implies.
    const score = (modeCount / records.length) * (1 + Math.log2(1 + mode) / 8);
    if (score > bestScore + 1e-9) {
      bestScore = score;
      best = d;
    }
  }
  return best;
}

function splitSampleRecords(sample: string, max: number): string[] {
  const out: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < sample.length && out.length < max; i++) {
    const ch = sample[i];
    if (ch === '"') quoted = !quoted;
    else if ((ch === '\n' || ch === '\r') && !quoted) {
      if (i > start) out.push(sample.slice(start, i));
      start = i + 1;
    }
  }
  // The last record of a sample cut mid-file may be partial; keep it only if it is all there is.
  if (out.length === 0 && start < sample.length) out.push(sample.slice(start));
  return out.filter((r) => r.trim() !== '');
}

function countOutsideQuotes(record: string, d: string): number {
  let n = 0;
  let quoted = false;
  for (const ch of record) {
    if (ch === '"') quoted = !quoted;
    else if (ch === d && !quoted) n++;
  }
  return n;
}

// Plain decimal numbers become numbers; ids with leading zeros, phone numbers, thousands
// separators and dates stay text (the display text is always the original field).
const NUMBER_RE = /^[+-]?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$|^[+-]?\.\d+$/;

class Utf8Invalid extends Error {}

export async function readCsv(
  path: string,
  opts: { limits: SheetLimits; formats: FormatTable; counter: { cells: number }; shouldCancel?: () => boolean },
): Promise<CsvReadResult> {
  const { head } = await checkCsvFile(path, opts.limits);
  const bom = detectBom(head);
  if (bom) return readWith(path, bom.encoding, bom.bomLength, head, opts);
  try {
    return await readWith(path, 'utf-8', 0, head, opts);
  } catch (err) {
    if (!(err instanceof Utf8Invalid)) throw err;
    return readWith(path, 'windows-1252', 0, head, opts);
  }
}

async function readWith(
  path: string,
  encoding: CsvEncoding,
  bomLength: number,
  head: Buffer,
  opts: { limits: SheetLimits; formats: FormatTable; counter: { cells: number }; shouldCancel?: () => boolean },
): Promise<CsvReadResult> {
  const fatal = encoding === 'utf-8';
  const sample = new TextDecoder(encoding).decode(head.subarray(bomLength));
  const delimiter = detectDelimiter(sample);
  const store = new SheetStore(opts.formats);
  const startCells = opts.counter.cells;
  const parser = parse({
    delimiter,
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
    max_record_size: opts.limits.maxCsvRecordChars,
  });
  const feed = (async () => {
    const decoder = new TextDecoder(encoding, { fatal });
    try {
      for await (const chunk of createReadStream(path, { start: bomLength, highWaterMark: 256 * 1024 })) {
        let text: string;
        try {
          text = decoder.decode(chunk as Buffer, { stream: true });
        } catch {
          throw new Utf8Invalid();
        }
        if (parser.destroyed) return;
        if (text && !parser.write(text)) await Promise.race([once(parser, 'drain'), once(parser, 'close')]);
      }
      if (parser.destroyed) return;
      const rest = decoder.decode();
      if (rest) parser.write(rest);
      parser.end();
    } catch (err) {
      if (!parser.destroyed) parser.destroy(err instanceof Error ? err : new Error(String(err)));
    }
  })();
  let r = 0;
  try {
    for await (const record of parser as AsyncIterable<string[]>) {
      r++;
      for (let c = 0; c < record.length; c++) {
        const field = record[c]!;
        if (field.trim() === '') continue;
        const t = field.trim();
        if (NUMBER_RE.test(t)) store.push(r, c + 1, KIND.number, Number(t), field);
        else store.push(r, c + 1, KIND.string, 0, field);
        if (++opts.counter.cells > opts.limits.maxCells) {
          throw new SheetParseError(
            'too_many_cells',
            `CSV has more than ${opts.limits.maxCells} non-empty cells (limit)`,
            { limit: opts.limits.maxCells },
          );
        }
      }
      if (r % CANCEL_CHECK_ROWS === 0 && opts.shouldCancel?.()) throw cancelledError();
    }
  } catch (err) {
    parser.destroy();
    await feed;
    opts.counter.cells = startCells;
    if (err instanceof Utf8Invalid) throw err;
    throw asSheetParseError(err, 'corrupt_spreadsheet', 'cannot parse CSV');
  }
  await feed;
  store.finish();
  return { store, encoding, bom: bomLength > 0, delimiter };
}
