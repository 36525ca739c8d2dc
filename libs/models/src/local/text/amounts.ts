// Money amounts and currencies: "$4.11", "$ 279.84", "€ 717,97", "56,02 €", "1.234,56", "EUR 12",
// "Rs 40". The decimal separator is decided per number (a final separator followed by exactly
// two digits is decimal), so German/French/Dutch and English notations read the same.
export interface AmountHit {
  value: number;
  currency?: string;
  start: number;
  end: number;
  raw: string;
}

const SYMBOLS: Array<[RegExp, string]> = [
  [/S\$/, 'SGD'],
  [/US\$|(?<![A-Z])\$/, 'USD'],
  [/€/, 'EUR'],
  [/£/, 'GBP'],
  [/₹|\bRs\.?(?=\s*-?\d)|\bINR\b/, 'INR'],
  [/¥/, 'JPY'],
  [/CHF/, 'CHF'],
  [/\bRM(?=\s*-?\d)/, 'MYR'],
];
export const CURRENCY_CODES = [
  'USD',
  'EUR',
  'GBP',
  'INR',
  'JPY',
  'CHF',
  'CAD',
  'AUD',
  'CNY',
  'HKD',
  'SGD',
  'SEK',
  'NOK',
  'DKK',
  'PLN',
  'CZK',
  'NZD',
  'ZAR',
  'BRL',
  'MXN',
  'MYR',
  'IDR',
  'THB',
  'PHP',
  'AED',
  'MAD',
];
const WORDS: Array<[RegExp, string]> = [
  [/\bU\.?S\.? dollars?\b|\bdollars?\b/i, 'USD'],
  [/\beuros?\b/i, 'EUR'],
  [/\bpounds? sterling\b/i, 'GBP'],
  [/\brupees?\b/i, 'INR'],
];

// "DH"/"DHS": the dirham as Moroccan receipts print it after the amount.
const CUR = `(?:US\\$|S\\$|\\$|€|£|₹|¥|Rs\\.?|RM|DHS?(?![A-Za-z])|${CURRENCY_CODES.join('|')})`;
const NUM = '-?\\d{1,3}(?:[ .,\u202f]\\d{3})*(?:[.,]\\d{1,2})?|-?\\d+(?:[.,]\\d{1,2})?';
const AMOUNT_RE = new RegExp(`(${CUR})?\\s?(${NUM})(?!\\d)\\s?(${CUR})?`, 'g');

export function parseNumber(raw: string): number | undefined {
  let s = raw.replace(/[\s\u202f]/g, '');
  const neg = s.startsWith('-');
  s = s.replace(/^-/, '');
  const last = Math.max(s.lastIndexOf('.'), s.lastIndexOf(','));
  if (last >= 0 && s.length - last - 1 === 2) {
    s = `${s.slice(0, last).replace(/[.,]/g, '')}.${s.slice(last + 1)}`;
  } else if (last >= 0 && s.length - last - 1 === 3) {
    s = s.replace(/[.,]/g, ''); // thousands grouping only
  } else if (last >= 0) {
    s = `${s.slice(0, last).replace(/[.,]/g, '')}.${s.slice(last + 1)}`;
  }
  const n = Number(s);
  return Number.isFinite(n) && s !== '' ? (neg ? -n : n) : undefined;
}

export function currencyOf(token: string | undefined): string | undefined {
  if (!token) return undefined;
  const t = token.trim();
  if (/^Rs\.?$/.test(t)) return 'INR';
  if (t === 'RM') return 'MYR';
  if (/^DHS?$/.test(t)) return 'MAD';
  if (t === 'S$') return 'SGD';
  if (CURRENCY_CODES.includes(t.toUpperCase())) return t.toUpperCase();
  return SYMBOLS.find(([re]) => re.test(t))?.[1];
}

/** Letters an amount is glued to (OCR of "RM1.00" as "fM1.00"): 1–3 letters after a non-letter. */
const GLUED_LETTERS = /(?:^|[^\p{L}\p{N}])(\p{L}{1,3})$/u;

/**
 * Amounts that look like money: with a currency, or with exactly two decimals. `glued`: also an
 * amount with two decimals glued to 1–3 letters, a currency OCR misread ("fM1.00" for "RM1.00");
 * not a quantity ("x2.50"). For lines known to hold a total, where a misread currency is likely.
 */
export function findAmounts(text: string, opts: { requireMoneyShape?: boolean; glued?: boolean } = {}): AmountHit[] {
  const out: AmountHit[] = [];
  AMOUNT_RE.lastIndex = 0;
  for (let m = AMOUNT_RE.exec(text); m; m = AMOUNT_RE.exec(text)) {
    if (!m[0].trim()) {
      AMOUNT_RE.lastIndex++;
      continue;
    }
    const num = m[2]!;
    // The character before the number itself (the match may start with a space before it).
    const prev = m[1] ? text[m.index - 1] : text[m.index + m[0].indexOf(num) - 1];
    // Skip digits glued to letters (invoice numbers like INV2023, order ids) and dates; in glued
    // mode an amount with two decimals after 1–3 letters (a misread currency) is kept.
    const numAt = m.index + m[0].indexOf(num);
    const glued =
      opts.glued &&
      !m[1] &&
      prev !== undefined &&
      /\p{L}/u.test(prev) &&
      /[.,]\d{2}$/.test(num) &&
      !num.startsWith('-') &&
      GLUED_LETTERS.exec(text.slice(0, numAt))?.[1];
    if (glued && /^[xX]$/.test(glued)) continue; // "x2.50": a quantity or unit price
    if (prev && /[A-Za-z0-9/_]/.test(prev) && !m[1] && !glued) continue;
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 1);
    if (after === '%') continue;
    if (
      /^[/\-.]\d/.test(text.slice(m.index + m[0].length, m.index + m[0].length + 2)) ||
      (/[A-Za-z_]/.test(after) && !m[3])
    )
      continue;
    const value = parseNumber(num);
    if (value === undefined) continue;
    const currency = currencyOf(m[1]) ?? currencyOf(m[3]);
    const moneyShape = currency !== undefined || /[.,]\d{2}$/.test(num);
    if (opts.requireMoneyShape !== false && !moneyShape) continue;
    out.push({ value, currency, start: m.index, end: m.index + m[0].length, raw: m[0].trim() });
  }
  return out;
}

/** Currency named anywhere in the text (symbols, codes, words), most frequent first. */
export function currenciesIn(text: string): string[] {
  const counts = new Map<string, number>();
  const bump = (c: string, n: number) => counts.set(c, (counts.get(c) ?? 0) + n);
  for (const [re, code] of SYMBOLS) bump(code, (text.match(new RegExp(re.source, 'g')) ?? []).length);
  for (const code of CURRENCY_CODES) bump(code, (text.match(new RegExp(`\\b${code}\\b`, 'g')) ?? []).length);
  for (const [re, code] of WORDS) bump(code, (text.match(new RegExp(re.source, 'gi')) ?? []).length);
  return [...counts.entries()]
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([c]) => c);
}

const MENTION: Record<string, RegExp> = {
  USD: /US\$|\$|\bUSD\b|\bdollars?\b/i,
  EUR: /€|\bEUR\b|\beuros?\b/i,
  GBP: /£|\bGBP\b/,
  INR: /₹|\bRs\.?|\bINR\b|\brupees?\b/i,
  JPY: /¥|\bJPY\b/,
  CHF: /\bCHF\b/,
};

/** Where the currency is written in the text (symbol, code or word), or -1. */
export function currencyIndex(text: string, code: string): number {
  return text.search(MENTION[code] ?? new RegExp(`\\b${code}\\b`));
}
