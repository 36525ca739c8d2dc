// Reads an edit instruction (plus rules) into concrete text operations. Only plain, common
// instructions are understood: replace X with Y, dates to ISO, normalise currency amounts, redact
// emails or phone numbers. Anything else yields no operation and the proposal says so.
import { currencyOf } from '../text/amounts';
import { findDates } from '../text/dates';
import { escapeRegExp } from '../text/normalize';

export interface EditOp {
  reason: string;
  apply(line: string): string;
}

const Q = `["“”'‘’]`;

export function parseInstructions(
  prompt: string,
  rules: string[],
): { ops: EditOp[]; understood: string[]; ignored: string[] } {
  const ops: EditOp[] = [];
  const understood: string[] = [];
  const ignored: string[] = [];
  const sentences = [prompt, ...rules]
    .flatMap((s) => s.split(/(?<=[.;])\s+|\n+/))
    .map((s) => s.trim())
    .filter(Boolean);
  for (const s of sentences) {
    const before = ops.length;
    for (const [from, to] of replacements(s)) {
      const re = new RegExp(escapeRegExp(from), 'g');
      ops.push({ reason: `replace "${from}" with "${to}"`, apply: (l) => l.replace(re, to) });
    }
    if (/\bdates?\b/i.test(s) && /\biso\b|yyyy-mm-dd|8601|normali[sz]e|standardi[sz]e|fix/i.test(s)) {
      ops.push({ reason: 'dates to ISO 8601 (YYYY-MM-DD)', apply: isoDates });
    }
    if (/currenc|amounts?|prices?|money/i.test(s) && /normali[sz]e|standardi[sz]e|iso|code|consistent/i.test(s)) {
      ops.push({ reason: 'currency amounts to ISO code + decimal point', apply: normaliseMoney });
    }
    if (/redact|remove|mask|anonymi[sz]e|hide|strip/i.test(s)) {
      const all = /personal|pii|contact|sensitive/i.test(s);
      if (all || /e-?mails?/i.test(s))
        ops.push({
          reason: 'redact email addresses',
          apply: (l) => l.replace(/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, '[REDACTED EMAIL]'),
        });
      if (all || /phones?|telephone|fax|mobile/i.test(s))
        ops.push({ reason: 'redact phone numbers', apply: redactPhones });
    }
    (ops.length > before ? understood : ignored).push(s);
  }
  return { ops, understood, ignored };
}

const VERB = String.raw`\b(?:replace|change|rename|substitute)\s+(?:all\s+|every\s+|each\s+)?(?:occurrences?\s+of\s+)?`;

/** "replace "X" with "Y"" (quoted, several per sentence) or "replace X with Y" (unquoted, up to "and"/punctuation). */
function replacements(s: string): Array<[string, string]> {
  const quoted = [
    ...s.matchAll(new RegExp(`${VERB}["“‘'](.+?)["”’']\\s+(?:with|by|to|into)\\s+["“‘'](.*?)["”’']`, 'gi')),
  ].map((m) => [m[1]!, m[2]!] as [string, string]);
  if (quoted.length) return quoted;
  const m = new RegExp(`${VERB}(.+?)\\s+(?:with|by|to|into)\\s+(.+?)(?:\\s+(?:and|then)\\s+|[;,]\\s|\\.?$)`, 'i').exec(
    s,
  );
  return m ? [[m[1]!.trim(), m[2]!.trim()]] : [];
}

function isoDates(line: string): string {
  let out = '';
  let at = 0;
  for (const d of findDates(line)) {
    if (d.raw === d.iso) continue;
    out += line.slice(at, d.start) + d.iso;
    at = d.end;
  }
  return out + line.slice(at);
}

const MONEY =
  /(US\$|\$|€|£|₹|¥|\bRs\.?)\s?(-?\d{1,3}(?:[.,\s]\d{3})*(?:[.,]\d{1,2})?|-?\d+(?:[.,]\d{1,2})?)|(-?\d{1,3}(?:[.,\s]\d{3})*(?:[.,]\d{2})|-?\d+[.,]\d{2})\s?(€|£|\$)/g;

function normaliseMoney(line: string): string {
  return line.replace(
    MONEY,
    (m, sym1: string | undefined, n1: string | undefined, n2: string | undefined, sym2: string | undefined) => {
      const code = currencyOf(sym1 ?? sym2);
      const raw = (n1 ?? n2 ?? '').replace(/\s/g, '');
      const last = Math.max(raw.lastIndexOf('.'), raw.lastIndexOf(','));
      const num =
        last >= 0 && raw.length - last - 1 <= 2
          ? `${raw.slice(0, last).replace(/[.,]/g, '')}.${raw.slice(last + 1)}`
          : raw.replace(/[.,]/g, '');
      return code ? `${code} ${Number(num).toFixed(2)}` : m;
    },
  );
}

// Phone numbers: grouped digits ("(870)-931-0505", "+81 (3) 3240 3970", "415-765-3391"), 8-15
// digits. Decimal amounts ("10.00 15.00") and bare digit runs (references, account numbers) are not phones.
const PHONE =
  /(?<![\w/.,-])(?:\+\d{1,3}[\s.-]?)?(?:\(\d{1,4}\)[\s.-]?|\d{2,4}[\s.-])\d{2,4}(?:[\s.-]\d{2,4}){1,3}(?![\w/%-])/g;

function redactPhones(line: string): string {
  return line.replace(PHONE, (m) => {
    const digits = (m.match(/\d/g) ?? []).length;
    if (digits < 8 || digits > 15 || /\d\.\d{2}(?!\d)/.test(m) || findDates(m).length) return m;
    return '[REDACTED PHONE]';
  });
}
