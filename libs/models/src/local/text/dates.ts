// Dates in the forms invoices and contracts print them, in English, German, French and Dutch,
// returned as ISO YYYY-MM-DD with their position so callers can quote the surrounding text.
import { fold } from './normalize';

export interface DateHit {
  iso: string;
  start: number;
  end: number;
  raw: string;
}

const MONTHS: Record<string, number> = {};
const add = (n: number, ...names: string[]) => names.forEach((x) => (MONTHS[x] = n));
add(1, 'january', 'jan', 'januar', 'janvier', 'januari', 'jänner', 'janner');
add(2, 'february', 'feb', 'februar', 'fevrier', 'februari');
add(3, 'march', 'mar', 'marz', 'maerz', 'mars', 'maart');
add(4, 'april', 'apr', 'avril');
add(5, 'may', 'mai', 'mei');
add(6, 'june', 'jun', 'juni', 'juin');
add(7, 'july', 'jul', 'juli', 'juillet');
add(8, 'august', 'aug', 'aout', 'augustus');
add(9, 'september', 'sep', 'sept', 'septembre');
add(10, 'october', 'oct', 'oktober', 'octobre');
add(11, 'november', 'nov', 'novembre');
add(12, 'december', 'dec', 'dezember', 'decembre');

/** English three-letter month abbreviations, as receipts and slips print them. */
const SHORT_MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_RE = Object.keys(MONTHS)
  .sort((a, b) => b.length - a.length)
  .join('|');
const ORD = '(?:st|nd|rd|th|er|e|\\.)?';
const PATTERNS: Array<{ re: RegExp; parts: (m: RegExpExecArray) => [number, number, number] | undefined }> = [
  // 2014-08-03
  { re: /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/g, parts: (m) => [+m[1]!, +m[2]!, +m[3]!] },
  // August 3, 2014 / Aug. 3 , 2014
  {
    re: new RegExp(`\\b(${MONTH_RE})\\.?\\s+(\\d{1,2})${ORD}\\s*,?\\s*(\\d{4})\\b`, 'g'),
    parts: (m) => [+m[3]!, MONTHS[m[1]!]!, +m[2]!],
  },
  // 3 August 2014 / 7. Mai 2014 / 3rd day of August, 2014
  {
    re: new RegExp(`\\b(\\d{1,2})${ORD}\\s*(?:day\\s+of\\s+)?(${MONTH_RE})\\.?,?\\s+(\\d{4})\\b`, 'g'),
    parts: (m) => [+m[3]!, MONTHS[m[2]!]!, +m[1]!],
  },
  // 03/20/2023, 28/11/2022, 20-10-2015, 21.05.14
  { re: /\b(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})\b/g, parts: (m) => numeric(+m[1]!, +m[3]!, m[4]!, m[2]!) },
  // 14/JUN/2017, 05-AUG-2017, 28 MAR 18, 3.Mai.14
  {
    re: new RegExp(`\\b(\\d{1,2})([ ./-])(${MONTH_RE})\\.?\\2(\\d{4}|\\d{2})\\b`, 'g'),
    parts: (m) => [year(m[4]!), MONTHS[m[3]!]!, +m[1]!],
  },
  // 14/dun/2017: a scan's month abbreviation one letter off exactly one month (J read as d), in the
  // full day/month/year frame only (a four-digit year, the same separator twice).
  {
    re: /\b(\d{1,2})([/-])([a-z]{3})\2(\d{4})\b/g,
    parts: (m) => {
      const near = SHORT_MONTHS.filter((k) => [...k].filter((c, i) => c !== m[3]![i]).length === 1);
      return near.length === 1 ? [+m[4]!, MONTHS[near[0]!]!, +m[1]!] : undefined;
    },
  },
];

const year = (y: string) => (y.length === 2 ? 2000 + Number(y) - (Number(y) > 50 ? 100 : 0) : Number(y));

/** How an all-numeric date is read when both parts could be the month. */
export type DateOrder = 'dmy' | 'mdy';
let documentOrder: DateOrder | undefined;

/**
 * Runs `fn` with numeric dates read in `order` (the order the document itself shows; see
 * dateOrderOf). The setting holds only for this synchronous call.
 */
export function withDateOrder<T>(order: DateOrder | undefined, fn: () => T): T {
  const prev = documentOrder;
  documentOrder = order;
  try {
    return fn();
  } finally {
    documentOrder = prev;
  }
}

function numeric(
  a: number,
  b: number,
  y: string,
  sep: string,
  order = documentOrder,
): [number, number, number] | undefined {
  const yy = year(y);
  if (a > 12 && b <= 12) return [yy, b, a];
  if (b > 12 && a <= 12) return [yy, a, b];
  if (order) return order === 'dmy' ? [yy, b, a] : [yy, a, b];
  // Ambiguous: dotted and dashed dates are day-first in the languages read here; slashes follow
  // the US reading (month first), which is how US contracts and invoices print them.
  return sep === '/' ? [yy, a, b] : [yy, b, a];
}

// Currencies and places that print dates day first, and those that print them month first.
const DAY_FIRST =
  /\b(RM|MYR|SGD|S\$|EUR|GBP|INR|AUD|NZD|HKD|IDR|PHP|THB|ZAR|Rs\.?|Sdn\.? ?Bhd|Bhd|Malaysia|Singapore|Pte|GST|VAT|U\.?K\.?|United Kingdom|Australia|India|Ireland|New Zealand|Deutschland|France|Nederland|Espa[nñ]a|Italia|GmbH|SARL|B\.V\.)\b|[€£₹]/;
const MONTH_FIRST =
  /\b(USD|U\.S\.A?\.?|United States|USA)\b|\b[A-Z][a-z]+,? (AL|AK|AZ|AR|CA|CO|CT|DE|FL|GA|HI|ID|IL|IN|IA|KS|KY|LA|ME|MD|MA|MI|MN|MS|MO|MT|NE|NV|NH|NJ|NM|NY|NC|ND|OH|OK|OR|PA|RI|SC|SD|TN|TX|UT|VT|VA|WA|WV|WI|WY) \d{5}\b/;

/**
 * The order a document prints its numeric dates in, decided from the document itself: a date on
 * it whose first (or second) number is over 12, else its currency or country; undefined when it
 * does not tell (the per-separator default then applies).
 */
export function dateOrderOf(text: string): DateOrder | undefined {
  let dmy = 0,
    mdy = 0;
  const re = /\b(\d{1,2})([./-])(\d{1,2})\2(\d{4}|\d{2})\b/g;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const a = +m[1]!,
      b = +m[3]!;
    if (a > 12 && a <= 31 && b >= 1 && b <= 12) dmy++;
    else if (b > 12 && b <= 31 && a >= 1 && a <= 12) mdy++;
  }
  if (dmy !== mdy) return dmy > mdy ? 'dmy' : 'mdy';
  const day = DAY_FIRST.test(text),
    month = MONTH_FIRST.test(text);
  if (day !== month) return day ? 'dmy' : 'mdy';
  return undefined;
}

function valid([y, m, d]: [number, number, number]): boolean {
  if (y < 1900 || y > 2100 || m < 1 || m > 12 || d < 1) return false;
  return d <= new Date(Date.UTC(y, m, 0)).getUTCDate();
}

const iso = ([y, m, d]: [number, number, number]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

/**
 * Every date in the text, left to right, non-overlapping (earlier patterns win ties). `order`
 * reads ambiguous numeric dates that way (default: the document's, see withDateOrder).
 */
export function findDates(text: string, order?: DateOrder): DateHit[] {
  if (order && order !== documentOrder) return withDateOrder(order, () => findDates(text));
  // fold() keeps string length for Latin text with combining accents removed only when the
  // original is precomposed; work on a same-length fold so indexes map back to `text`.
  const folded = sameLengthFold(text);
  const hits: DateHit[] = [];
  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    for (let m = p.re.exec(folded); m; m = p.re.exec(folded)) {
      const parts = p.parts(m);
      if (!parts || !valid(parts)) continue;
      const start = m.index;
      const end = start + m[0].length;
      if (hits.some((h) => start < h.end && end > h.start)) continue;
      hits.push({ iso: iso(parts), start, end, raw: text.slice(start, end) });
    }
  }
  return hits.sort((a, b) => a.start - b.start);
}

export function parseDate(text: string): string | undefined {
  return findDates(text)[0]?.iso;
}

/** Lowercases and strips accents character by character (keeps indexes aligned with the input). */
export function sameLengthFold(text: string): string {
  let out = '';
  for (const ch of text) {
    const f = fold(ch);
    out += f.length === ch.length ? f : ch.length === 1 ? (f[0] ?? ch) : ch.toLowerCase();
  }
  return out;
}
