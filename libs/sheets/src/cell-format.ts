// Display text for numbers and dates. Covers the formats that change what a reader sees in ways that
// matter for search and citation (percent, fixed decimals, thousands separators, currency symbols,
// scientific, dates and times); anything else falls back to the plain number.

export type NumberFormatter = (n: number) => string;

export function generalNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Number.isInteger(n)) return String(n);
  // Excel keeps 15 significant digits; this drops binary noise such as 0.30000000000000004.
  return String(Number(n.toPrecision(15)));
}

function groupThousands(intPart: string): string {
  return intPart.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

const CURRENCY_RE = /[$€£¥₹₩]/;

/** Builds a formatter for an Excel number format code, or null when General is as good. */
export function compileNumberFormat(code: string | undefined): NumberFormatter | null {
  if (!code || code === 'General' || code === '@') return null;
  // First section only (positive numbers); a negative section mostly adds parentheses or colour.
  const section = splitSections(code)[0] ?? '';
  const bare = section
    .replace(/\[[^\]]*\]/g, '')
    .replace(/"[^"]*"/g, '')
    .replace(/\\./g, '')
    .replace(/_.|\*./g, '');
  if (!/[0#?]/.test(bare)) return null;
  const currency = CURRENCY_RE.exec(section.replace(/\[\$([^-\]]*)[^\]]*\]/g, '$1'))?.[0];
  const decimalsMatch = /\.([0#?]+)/.exec(bare);
  const decimals = decimalsMatch ? decimalsMatch[1]!.replace(/[#?]/g, '').length : 0;
  const maxDecimals = decimalsMatch ? decimalsMatch[1]!.length : 0;
  if (/E[+-]/i.test(bare)) {
    return (n) =>
      n
        .toExponential(maxDecimals)
        .replace('e', 'E')
        .replace(/E([+-])(\d)$/, 'E$10$2');
  }
  const percent = bare.includes('%');
  const thousands = /[0#?],[0#?]/.test(bare);
  return (n) => {
    const v = percent ? n * 100 : n;
    const neg = v < 0;
    let s = Math.abs(v).toFixed(maxDecimals);
    if (maxDecimals > decimals && s.includes('.')) {
      // Optional digits ('#') are dropped when zero.
      s = s.replace(/0+$/, (zeros) => zeros.slice(0, Math.max(0, zeros.length - (maxDecimals - decimals))));
      if (decimals === 0) s = s.replace(/\.$/, '');
    }
    if (thousands) {
      const [i, f] = s.split('.');
      s = groupThousands(i!) + (f !== undefined ? `.${f}` : '');
    }
    return `${neg ? '-' : ''}${currency ?? ''}${s}${percent ? '%' : ''}`;
  };
}

function splitSections(code: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < code.length; i++) {
    const ch = code[i]!;
    if (ch === '"') quoted = !quoted;
    if (ch === '\\' && i + 1 < code.length) {
      cur += ch + code[++i];
      continue;
    }
    if (ch === ';' && !quoted) {
      out.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  out.push(cur);
  return out;
}

/** How a date-formatted cell should read: date only, date and time, or time of day. */
export type DateStyle = 'date' | 'datetime' | 'time';

export function dateStyleOf(code: string): DateStyle {
  const bare = code
    .replace(/\[[^\]]*\]/g, '')
    .replace(/"[^"]*"/g, '')
    .toLowerCase();
  const hasTime = /[hs]/.test(bare) || /am\/pm|a\/p/.test(bare);
  // 'm' means minutes next to h or s, months elsewhere.
  const dateOnly = bare
    .replace(/am\/pm|a\/p/g, '')
    .replace(/h+(:m+)?(:s+)?/g, '')
    .replace(/m+:s+/g, '')
    .replace(/s+(\.0+)?/g, '');
  const hasDate = /[ydm]/.test(dateOnly);
  if (hasDate && hasTime) return 'datetime';
  if (hasTime) return 'time';
  return 'date';
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

export function formatDate(d: Date, style: DateStyle): string {
  if (Number.isNaN(d.getTime())) return '';
  const date = `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const time = `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
  if (style === 'time') return time;
  if (style === 'datetime') return `${date} ${time}`;
  // A date format on a value with a time part still shows it, so nothing is silently lost.
  return time === '00:00:00' ? date : `${date} ${time}`;
}

/** Excel serial date (1900 system, or 1904) to a UTC Date. */
export function excelSerialToDate(serial: number, date1904 = false): Date {
  const epoch = date1904 ? Date.UTC(1904, 0, 1) : Date.UTC(1899, 11, 30);
  return new Date(Math.round(epoch + serial * 86_400_000));
}

/** exceljs' own test (utils.isDateFmt): date tokens outside quotes and brackets. */
export function isDateFormat(code: string | undefined): boolean {
  if (!code) return false;
  const bare = code.replace(/\[[^\]]*]/g, '').replace(/"[^"]*"/g, '');
  return /[ymdhMsb]+/.test(bare);
}

interface FormatEntry {
  number: NumberFormatter | null;
  date: DateStyle | null;
}

/** Number formats seen in a workbook, shared by its sheets; index 0 is General. */
export class FormatTable {
  private readonly entries: FormatEntry[] = [{ number: null, date: null }];
  private readonly byCode = new Map<string, number>();

  indexOf(code: string | undefined, isDate: boolean): number {
    if (!code || code === 'General') return 0;
    const key = `${isDate ? 'd' : 'n'}:${code}`;
    let idx = this.byCode.get(key);
    if (idx === undefined) {
      idx = this.entries.length;
      this.entries.push(
        isDate ? { number: null, date: dateStyleOf(code) } : { number: compileNumberFormat(code), date: null },
      );
      this.byCode.set(key, idx);
    }
    return idx;
  }

  get(idx: number): FormatEntry {
    return this.entries[idx] ?? this.entries[0]!;
  }

  // Display texts of numbers repeat a lot (quantities, prices, dates); sharing one string per
  // (format, value) saves a string per cell in the tables. Bounded so a column of unique ids cannot
  // grow it without limit.
  private readonly texts = new Map<number, Map<number, string>>();
  private textCount = 0;

  numberText(idx: number, n: number): string {
    let byValue = this.texts.get(idx);
    const hit = byValue?.get(n);
    if (hit !== undefined) return hit;
    const f = this.get(idx);
    const text = f.date ? formatDate(new Date(n), f.date) : f.number ? f.number(n) : generalNumber(n);
    if (this.textCount < MAX_INTERNED_TEXTS) {
      if (!byValue) this.texts.set(idx, (byValue = new Map()));
      byValue.set(n, text);
      this.textCount++;
    }
    return text;
  }

  dateText(idx: number, ms: number): string {
    const f = this.get(idx);
    return f.date ? this.numberText(idx, ms) : formatDate(new Date(ms), 'date');
  }
}

const MAX_INTERNED_TEXTS = 200_000;
