// Reads, alongside exceljs' worksheet reader, the parts of the sheet XML that reader drops:
// <mergeCell> (ignored by exceljs' streaming reader), <hyperlink> (after <sheetData>, so exceljs
// cannot attach them to rows it already emitted), and the cached results of formula cells that
// exceljs 4.4.0 loses: it drops falsy results (0, FALSE, ''), turns TRUE into 1 and an error such as
// #DIV/0! into NaN. Substring searches over the decoded text, on complete cell elements only; the
// cost is proportional to the number of formula cells.
import { xmlDecode } from './xlsx-package';

export interface ScannedHyperlink {
  ref: string;
  rid?: string;
  location?: string;
  display?: string;
}
/** t: the cell's type attribute ('n' when absent); v: the cached value text. */
export interface FormulaResultFlag {
  t: 'n' | 'b' | 'e' | 'str';
  v?: string;
}

/** Longest incomplete tail carried to the next chunk; a longer cell is skipped by the scanner. */
const MAX_CARRY = 64 * 1024;

export class SheetSideScanner {
  readonly merges: string[] = [];
  readonly hyperlinks: ScannedHyperlink[] = [];
  /** Formula cells whose cached result exceljs mangles, by A1 address; consumed by the reader. */
  readonly formulaFlags = new Map<string, FormulaResultFlag>();
  private carry = '';

  constructor(private readonly maxMerges = 100_000) {}

  feed(chunk: string): void {
    const buf = this.carry ? this.carry + chunk : chunk;
    let cut = buf.length;
    const lt = buf.lastIndexOf('<');
    if (lt >= 0 && buf.indexOf('>', lt) < 0) cut = lt;
    const lastCell = buf.lastIndexOf('<c ', cut - 1);
    if (lastCell >= 0 && !isClosedCell(buf, lastCell)) cut = Math.min(cut, lastCell);
    const region = cut === buf.length ? buf : buf.slice(0, cut);
    this.carry = buf.length - cut > MAX_CARRY ? '' : buf.slice(cut);
    this.scan(region);
  }

  end(): void {
    if (this.carry) this.scan(this.carry);
    this.carry = '';
  }

  private scan(region: string): void {
    if (region.includes('<f')) this.scanFormulas(region);
    if (region.includes('<mergeCell ')) {
      for (const m of region.matchAll(/<mergeCell\b[^>]*?\bref=["']([^"']+)["']/g)) {
        if (this.merges.length < this.maxMerges) this.merges.push(m[1]!);
      }
    }
    if (region.includes('<hyperlink ')) {
      for (const m of region.matchAll(/<hyperlink\b([^>]*)>/g)) {
        const attrs = m[1]!;
        const ref = attr(attrs, 'ref');
        if (!ref) continue;
        this.hyperlinks.push({
          ref,
          rid: attr(attrs, 'r:id'),
          location: attr(attrs, 'location'),
          display: attr(attrs, 'display'),
        });
      }
    }
  }

  private scanFormulas(region: string): void {
    let pos = region.indexOf('<f');
    while (pos >= 0) {
      const cStart = region.lastIndexOf('<c ', pos);
      const cEnd = region.indexOf('</c>', pos);
      // Only a <f> inside a cell element counts (conditional formats also have <formula>).
      if (cStart < 0 || cEnd < 0 || region.lastIndexOf('</c>', pos) > cStart) {
        pos = region.indexOf('<f', pos + 2);
        continue;
      }
      const tag = region.slice(cStart, region.indexOf('>', cStart));
      const t = attr(tag, 't') ?? 'n';
      const vOpen = region.indexOf('<v>', pos);
      const v =
        vOpen >= 0 && vOpen < cEnd ? xmlDecode(region.slice(vOpen + 3, region.indexOf('</v>', vOpen))) : undefined;
      const mangled =
        t === 'b' ||
        t === 'e' ||
        (v !== undefined && (t === 'str' ? v === '' : t === 'n' && v.trim() !== '' && Number(v) === 0));
      const ref = mangled ? attr(tag, 'r') : undefined;
      if (ref) this.formulaFlags.set(ref, { t: t as FormulaResultFlag['t'], v });
      pos = region.indexOf('<f', cEnd);
    }
  }
}

function isClosedCell(buf: string, start: number): boolean {
  const tagEnd = buf.indexOf('>', start);
  if (tagEnd < 0) return false;
  if (buf[tagEnd - 1] === '/') return true;
  return buf.indexOf('</c>', tagEnd) >= 0;
}

function attr(attrs: string, name: string): string | undefined {
  const re = new RegExp(`(?:^|\\s)${name.replace(':', '\\:')}=["']([^"']*)["']`);
  const v = re.exec(attrs)?.[1];
  return v === undefined ? undefined : xmlDecode(v);
}
