// Streams the worksheets of an xlsx one at a time through exceljs' streaming worksheet reader into
// compact SheetStores. Only one sheet's cells are held at once; the caller consumes each sheet in
// onSheet before the next one is inflated.
import { parseRangeA1, cellA1, rangeA1 } from './a1';
import { excelSerialToDate, isDateFormat } from './cell-format';
import { SheetParseError, asSheetParseError } from './errors';
import type { SheetLimits } from './limits';
import { FormatTable } from './cell-format';
import { KIND, RESULT, SheetStore } from './sheet-store';
import { SheetSideScanner } from './sheet-side-scanner';
import {
  decodeUtf8,
  loadWorkbookParts,
  readSheetRels,
  readWorkbookIndex,
  type ExcelJsCell,
  type WorkbookSheetRef,
} from './xlsx-package';
import { openXlsxZip } from './xlsx-open';
import type { GuardedZip } from './zip-archive';

export interface RawSheet {
  index: number;
  name: string;
  hidden: boolean;
  store: SheetStore;
}

export interface ReadContext {
  limits: SheetLimits;
  formats: FormatTable;
  warnings: string[];
  /** Running total of stored cells across the workbook (checked against limits.maxCells). */
  counter: { cells: number };
  shouldCancel?: () => boolean;
  onStart?: (sheetCount: number) => void;
  onSheet: (sheet: RawSheet) => Promise<void>;
}

const CANCEL_CHECK_ROWS = 2000;

export function cancelledError(): SheetParseError {
  return new SheetParseError('cancelled', 'parse cancelled on request');
}

export async function readXlsx(path: string, ctx: ReadContext): Promise<void> {
  const zip = await openXlsxZip(path, ctx.limits);
  try {
    const index = await readWorkbookIndex(zip);
    if (index.sheets.length > ctx.limits.maxSheets) {
      throw new SheetParseError(
        'too_many_sheets',
        `workbook has ${index.sheets.length} worksheets, limit ${ctx.limits.maxSheets}`,
      );
    }
    ctx.onStart?.(index.sheets.length);
    await loadWorkbookParts(zip, index);
    for (const ref of index.sheets) {
      if (ctx.shouldCancel?.()) throw cancelledError();
      const store = await readSheet(zip, ref, index.reader, index.date1904, ctx);
      await ctx.onSheet({ index: ref.index, name: ref.name, hidden: ref.hidden, store });
    }
  } finally {
    zip.close();
  }
}

async function readSheet(
  zip: GuardedZip,
  ref: WorkbookSheetRef,
  reader: Awaited<ReturnType<typeof readWorkbookIndex>>['reader'],
  date1904: boolean,
  ctx: ReadContext,
): Promise<SheetStore> {
  const store = new SheetStore(ctx.formats);
  const scanner = new SheetSideScanner();
  const raw = await zip.stream(ref.part);
  const filter = new EmptyCellFilter();
  const chunks = (async function* () {
    for await (const text of decodeUtf8(raw)) {
      scanner.feed(text);
      const out = filter.feed(text);
      if (out) yield out;
    }
    scanner.end();
    const rest = filter.end();
    if (rest) yield rest;
  })();
  const worksheet = [...reader._parseWorksheet(chunks, String(ref.index + 1))][0]?.value;
  if (!worksheet) throw new SheetParseError('corrupt_spreadsheet', `cannot open worksheet '${ref.name}'`);
  const adder = new CellAdder(store, scanner, date1904, ctx);
  let rows = 0;
  try {
    for await (const row of worksheet) {
      const r = row.number;
      if (!Number.isInteger(r) || r < 1)
        throw new SheetParseError('corrupt_spreadsheet', `worksheet '${ref.name}' has a row without a valid number`);
      row.eachCell((cell, col) => adder.add(r, col, cell));
      if (++rows % CANCEL_CHECK_ROWS === 0 && ctx.shouldCancel?.()) throw cancelledError();
    }
  } catch (err) {
    raw.destroy();
    throw asSheetParseError(err, 'corrupt_spreadsheet', `cannot read worksheet '${ref.name}'`);
  }
  store.finish();
  store.merges = normaliseMerges(scanner.merges);
  applyHyperlinks(store, scanner, await readSheetRels(zip, ref.relsPart));
  return store;
}

/**
 * Drops valueless cells (`<c r="B7" s="3"/>`: formatting only) from the XML before exceljs sees it,
 * so a sheet with a million formatted empty cells costs a regex pass instead of a million Cell
 * objects. A self-closing <c/> cannot hold a value; chunks are cut at tag boundaries so a tag is
 * never split between two passes ('<' cannot occur inside attribute values or text in XML).
 */
class EmptyCellFilter {
  private carry = '';

  feed(chunk: string): string {
    const buf = this.carry ? this.carry + chunk : chunk;
    const lt = buf.lastIndexOf('<');
    let cut = buf.length;
    if (lt >= 0 && buf.indexOf('>', lt) < 0 && buf.length - lt <= 64 * 1024) cut = lt;
    this.carry = cut === buf.length ? '' : buf.slice(cut);
    const region = cut === buf.length ? buf : buf.slice(0, cut);
    return region.includes('/>') ? region.replace(EMPTY_CELL_RE, '') : region;
  }

  end(): string {
    const rest = this.carry;
    this.carry = '';
    return rest;
  }
}

const EMPTY_CELL_RE = /<c\b[^>]*\/>/g;

/** Converts one exceljs cell value into the store; empty and whitespace-only cells are skipped. */
class CellAdder {
  constructor(
    private readonly store: SheetStore,
    private readonly scanner: SheetSideScanner,
    private readonly date1904: boolean,
    private readonly ctx: ReadContext,
  ) {}

  private numberFormat(code: string | undefined, isDate: boolean): number {
    return code ? this.ctx.formats.indexOf(code, isDate) : 0;
  }

  add(r: number, c: number, cell: ExcelJsCell): void {
    const v = cell.value;
    if (v === null || v === undefined) return;
    const before = this.store.count;
    this.convert(r, c, v, cell.numFmt);
    if (this.store.count !== before && ++this.ctx.counter.cells > this.ctx.limits.maxCells) {
      throw new SheetParseError(
        'too_many_cells',
        `workbook has more than ${this.ctx.limits.maxCells} non-empty cells (limit)`,
        { limit: this.ctx.limits.maxCells },
      );
    }
  }

  private convert(r: number, c: number, v: unknown, numFmt: string | undefined): void {
    const s = this.store;
    switch (typeof v) {
      case 'number':
        if (Number.isNaN(v)) s.push(r, c, KIND.error, 0, '#NUM!');
        else s.push(r, c, KIND.number, v, undefined, this.numberFormat(numFmt, false));
        return;
      case 'string':
        if (v.trim() !== '') s.push(r, c, KIND.string, 0, v);
        return;
      case 'boolean':
        s.push(r, c, KIND.boolean, v ? 1 : 0, undefined);
        return;
      case 'object':
        break;
      default:
        return;
    }
    if (v instanceof Date) {
      if (!Number.isNaN(v.getTime())) s.push(r, c, KIND.date, v.getTime(), undefined, this.numberFormat(numFmt, true));
      return;
    }
    const o = v as Record<string, unknown>;
    if (Array.isArray(o.richText)) {
      const text = (o.richText as Array<{ text?: unknown }>)
        .map((run) => (typeof run.text === 'string' ? run.text : ''))
        .join('');
      if (text.trim() !== '') s.push(r, c, KIND.richText, 0, text);
      return;
    }
    if ('formula' in o || 'sharedFormula' in o) {
      this.addFormula(r, c, o, numFmt);
      return;
    }
    if (typeof o.error === 'string') {
      s.push(r, c, KIND.error, 0, o.error);
      return;
    }
    if (typeof o.text === 'string' && o.text.trim() !== '') {
      const i = s.push(r, c, KIND.hyperlink, 0, o.text);
      if (typeof o.hyperlink === 'string') s.hyperlink.set(i, o.hyperlink);
    }
  }

  private addFormula(r: number, c: number, o: Record<string, unknown>, numFmt: string | undefined): void {
    const s = this.store;
    const formula = typeof o.formula === 'string' && o.formula !== '' ? o.formula : undefined;
    const a1 = cellA1(r, c);
    const flag = this.scanner.formulaFlags.get(a1);
    if (flag) this.scanner.formulaFlags.delete(a1);
    let result = o.result;
    if (result === undefined && flag?.t === 'n') result = Number(flag.v);
    if (result === undefined && flag?.t === 'str') result = flag.v ?? '';
    const isDate = isDateFormat(numFmt);
    const fmt = this.numberFormat(numFmt, isDate);
    if (flag?.t === 'e' || (typeof result === 'number' && Number.isNaN(result))) {
      s.push(r, c, KIND.formula, 0, flag?.v ?? '#VALUE!', fmt, formula, RESULT.error);
    } else if (flag?.t === 'b') {
      s.push(r, c, KIND.formula, flag.v === '1' || result === 1 ? 1 : 0, undefined, fmt, formula, RESULT.boolean);
    } else if (typeof result === 'number') {
      if (isDate)
        s.push(
          r,
          c,
          KIND.formula,
          excelSerialToDate(result, this.date1904).getTime(),
          undefined,
          fmt,
          formula,
          RESULT.date,
        );
      else s.push(r, c, KIND.formula, result, undefined, fmt, formula, RESULT.number);
    } else if (typeof result === 'string') {
      s.push(r, c, KIND.formula, 0, result, fmt, formula, RESULT.string);
    } else if (typeof result === 'boolean') {
      s.push(r, c, KIND.formula, result ? 1 : 0, undefined, fmt, formula, RESULT.boolean);
    } else if (result instanceof Date) {
      s.push(r, c, KIND.formula, result.getTime(), undefined, fmt, formula, RESULT.date);
    } else if (result && typeof result === 'object' && typeof (result as { error?: unknown }).error === 'string') {
      s.push(r, c, KIND.formula, 0, (result as { error: string }).error, fmt, formula, RESULT.error);
    } else if (formula) {
      s.push(r, c, KIND.formula, 0, undefined, fmt, formula, RESULT.none);
    }
  }
}

function normaliseMerges(refs: string[]): string[] {
  const seen = new Set<string>();
  for (const ref of refs) {
    const rect = parseRangeA1(ref);
    if (rect && (rect.endRow > rect.startRow || rect.endCol > rect.startCol)) seen.add(rangeA1(rect));
  }
  return [...seen];
}

const MAX_HYPERLINK_CELLS = 10_000;

function applyHyperlinks(store: SheetStore, scanner: SheetSideScanner, targets: Map<string, string>): void {
  for (const link of scanner.hyperlinks) {
    const rect = parseRangeA1(link.ref);
    if (!rect) continue;
    const external = link.rid ? targets.get(link.rid) : undefined;
    // Internal links carry a location; some writers also add a '#location' relationship.
    const target = external
      ? link.location && !external.startsWith('#')
        ? `${external}#${link.location}`
        : external
      : link.location
        ? `#${link.location}`
        : undefined;
    if (!target) continue;
    let visited = 0;
    for (let r = rect.startRow; r <= rect.endRow && visited < MAX_HYPERLINK_CELLS; r++) {
      for (let c = rect.startCol; c <= rect.endCol && visited < MAX_HYPERLINK_CELLS; c++, visited++) {
        const i = store.find(r, c);
        if (i < 0) continue;
        store.hyperlink.set(i, target);
        if (store.kind[i] === KIND.string || store.kind[i] === KIND.richText) store.kind[i] = KIND.hyperlink;
      }
    }
  }
}
