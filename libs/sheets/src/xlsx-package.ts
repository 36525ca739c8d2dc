// The package layer of an xlsx: where the workbook, its sheets, shared strings and styles live.
// Parsing of these small parts is delegated to exceljs' own streaming WorkbookReader (its part
// parsers are reused as-is), fed from yauzl streams instead of exceljs' unzipper-based stream so that
// the central-directory guard applies and parts are read in the order we need.
import { Readable } from 'node:stream';
import { posix } from 'node:path';
import ExcelJS from 'exceljs';
import { SheetParseError, asSheetParseError } from './errors';
import type { GuardedZip } from './zip-archive';

/** The exceljs 4.4.0 WorkbookReader internals used here (pinned version; see README). */
export interface ExcelJsWorkbookReader {
  sharedStrings?: unknown[];
  workbookRels?: Array<{ Id: string; Type: string; Target: string; TargetMode?: string }>;
  model?: { sheets?: Array<{ name: string; id: number; rId: string; state?: string }> };
  properties?: { model?: { date1904?: boolean } };
  _parseRels(entry: Readable): Promise<void>;
  _parseWorkbook(entry: Readable): Promise<void>;
  _parseSharedStrings(entry: Readable): AsyncGenerator<unknown>;
  _parseStyles(entry: Readable): Promise<void>;
  _parseWorksheet(
    iterator: AsyncIterable<string>,
    sheetNo: string,
  ): Generator<{ eventType: string; value: ExcelJsWorksheetReader }>;
}

export interface ExcelJsCell {
  value: unknown;
  numFmt?: string;
}

export interface ExcelJsRow {
  number: number;
  eachCell(cb: (cell: ExcelJsCell, colNumber: number) => void): void;
}

export interface ExcelJsWorksheetReader extends AsyncIterable<ExcelJsRow> {
  name: string;
}

export interface WorkbookSheetRef {
  /** Position among worksheets, 0-based, in workbook order. */
  index: number;
  name: string;
  hidden: boolean;
  /** Zip entry of the sheet XML. */
  part: string;
  /** Zip entry of the sheet's relationships (hyperlink targets), when present. */
  relsPart: string | null;
}

export interface WorkbookIndex {
  reader: ExcelJsWorkbookReader;
  workbookPart: string;
  sheets: WorkbookSheetRef[];
  sharedStringsPart: string | null;
  stylesPart: string | null;
  date1904: boolean;
}

const REL_WORKSHEET = /\/worksheet$/;
const REL_SHARED_STRINGS = /\/sharedStrings$/;
const REL_STYLES = /\/styles$/;

export function newExcelJsReader(): ExcelJsWorkbookReader {
  // The input argument is never read: parts are handed to the reader's part parsers directly.
  const reader = new ExcelJS.stream.xlsx.WorkbookReader('unused.xlsx', {
    worksheets: 'emit',
    sharedStrings: 'cache',
    // exceljs attaches hyperlinks only to rows after the <hyperlinks> element, which comes after
    // <sheetData>; the side scanner collects them instead.
    hyperlinks: 'ignore',
    styles: 'cache',
    entries: 'ignore',
  });
  return reader as unknown as ExcelJsWorkbookReader;
}

/** UTF-8 decoding that survives multi-byte characters split across chunks (exceljs decodes per chunk). */
export async function* decodeUtf8(source: AsyncIterable<Buffer | string>): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    if (text) yield text;
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

export function decodedStream(source: Readable): Readable {
  return Readable.from(decodeUtf8(source), { objectMode: true });
}

function resolvePart(baseDir: string, target: string): string {
  const joined = target.startsWith('/') ? target.slice(1) : posix.join(baseDir, target);
  return posix.normalize(joined).replace(/^(\.\.\/)+/, '');
}

function relsPartOf(part: string): string {
  return posix.join(posix.dirname(part), '_rels', `${posix.basename(part)}.rels`);
}

/** Finds an entry by name, tolerating producers that differ in letter case. */
export function findPart(zip: GuardedZip, name: string): string | null {
  if (zip.has(name)) return name;
  const lower = name.toLowerCase();
  return zip.names().find((n) => n.toLowerCase() === lower) ?? null;
}

async function runPartParser(zip: GuardedZip, part: string, parse: (s: Readable) => Promise<void>): Promise<void> {
  const stream = decodedStream(await zip.stream(part));
  try {
    await parse(stream);
  } catch (err) {
    throw asSheetParseError(err, 'corrupt_spreadsheet', `cannot parse ${part}`);
  }
}

/** Reads the package relationships and workbook.xml: enough to list the worksheets. */
export async function readWorkbookIndex(zip: GuardedZip): Promise<WorkbookIndex> {
  const reader = newExcelJsReader();
  let workbookPart = findPart(zip, 'xl/workbook.xml');
  const rootRels = findPart(zip, '_rels/.rels');
  if (rootRels) {
    const rels = await zip.text(rootRels);
    const m = /<Relationship\b[^>]*Type="[^"]*\/officeDocument"[^>]*>/.exec(rels);
    const target = m && /\bTarget="([^"]+)"/.exec(m[0])?.[1];
    if (target) workbookPart = findPart(zip, resolvePart('', target)) ?? workbookPart;
  }
  if (!workbookPart) {
    const hint = zip.has('word/document.xml')
      ? ' (it is a Word document)'
      : zip.has('ppt/presentation.xml')
        ? ' (it is a PowerPoint file)'
        : zip.has('content.xml') && zip.has('mimetype')
          ? ' (it is an OpenDocument file; save it as .xlsx)'
          : '';
    throw new SheetParseError('not_a_spreadsheet', `zip archive has no workbook part${hint}`);
  }
  const baseDir = posix.dirname(workbookPart);
  const workbookRels = findPart(zip, relsPartOf(workbookPart));
  if (!workbookRels) throw new SheetParseError('corrupt_spreadsheet', `missing ${relsPartOf(workbookPart)}`);
  await runPartParser(zip, workbookRels, (s) => reader._parseRels(s));
  await runPartParser(zip, workbookPart, (s) => reader._parseWorkbook(s));

  const rels = new Map((reader.workbookRels ?? []).map((r) => [r.Id, r]));
  const sheets: WorkbookSheetRef[] = [];
  for (const sheet of reader.model?.sheets ?? []) {
    const rel = rels.get(sheet.rId);
    // Chart sheets, dialog and macro sheets hold no cells: they are not sheets for billing or parsing.
    if (!rel || !REL_WORKSHEET.test(rel.Type)) continue;
    const part = findPart(zip, resolvePart(baseDir, rel.Target));
    if (!part)
      throw new SheetParseError(
        'corrupt_spreadsheet',
        `worksheet '${sheet.name}' points at missing part ${rel.Target}`,
      );
    sheets.push({
      index: sheets.length,
      name: sheet.name,
      hidden: sheet.state === 'hidden' || sheet.state === 'veryHidden',
      part,
      relsPart: findPart(zip, relsPartOf(part)),
    });
  }
  const relOf = (re: RegExp) => {
    const rel = [...rels.values()].find((r) => re.test(r.Type));
    return rel ? findPart(zip, resolvePart(baseDir, rel.Target)) : null;
  };
  return {
    reader,
    workbookPart,
    sheets,
    sharedStringsPart: relOf(REL_SHARED_STRINGS) ?? findPart(zip, posix.join(baseDir, 'sharedStrings.xml')),
    stylesPart: relOf(REL_STYLES) ?? findPart(zip, posix.join(baseDir, 'styles.xml')),
    date1904: Boolean(reader.properties?.model?.date1904),
  };
}

/** Loads shared strings and styles into the exceljs reader (needed before any worksheet). */
export async function loadWorkbookParts(zip: GuardedZip, index: WorkbookIndex): Promise<void> {
  const { reader } = index;
  if (index.sharedStringsPart) {
    await runPartParser(zip, index.sharedStringsPart, async (s) => {
      for await (const _ of reader._parseSharedStrings(s)) {
        /* 'cache' mode yields nothing */
      }
    });
  }
  if (!reader.sharedStrings) reader.sharedStrings = [];
  if (index.stylesPart) await runPartParser(zip, index.stylesPart, (s) => reader._parseStyles(s));
}

/** Hyperlink targets of one sheet: relationship id to URL. */
export async function readSheetRels(zip: GuardedZip, relsPart: string | null): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (!relsPart) return out;
  const xml = await zip.text(relsPart);
  for (const m of xml.matchAll(/<Relationship\b([^>]*)>/g)) {
    const attrs = m[1]!;
    const id = /\bId="([^"]*)"/.exec(attrs)?.[1];
    const target = /\bTarget="([^"]*)"/.exec(attrs)?.[1];
    if (id && target && /\/hyperlink"/.test(attrs)) out.set(id, xmlDecode(target));
  }
  return out;
}

export function xmlDecode(s: string): string {
  return s.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, e: string) => {
    switch (e) {
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'amp':
        return '&';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
      default:
        return String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10));
    }
  });
}
