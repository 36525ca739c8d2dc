// Typed reading of the text that follows a label. Each kind knows what a value of its type looks
// like and where it starts; the caller gives it the text after the label (same line first, then
// the next line for labels printed above their value).
import { findAmounts, currenciesIn, currencyOf } from '../text/amounts';
import { findDates } from '../text/dates';
import { findOrganisations } from '../text/entities';
import type { SchemaField } from '../../tasks/field-schema';
import type { Concept } from './concepts';

export type ValueKind =
  'date' | 'amount' | 'number' | 'identifier' | 'text' | 'org' | 'currency' | 'boolean' | 'email' | 'phone';

export interface ReadValue {
  value: string | number | boolean;
  start: number;
  end: number;
}

export function kindOf(field: SchemaField, concept: Concept | undefined): ValueKind {
  if (field.type === 'date') return 'date';
  if (field.type === 'boolean') return 'boolean';
  switch (concept?.id) {
    case 'invoice_number':
    case 'order_number':
    case 'customer_number':
    case 'vat_id':
    case 'iban':
      return 'identifier';
    case 'total_amount':
    case 'subtotal':
    case 'tax_amount':
      return field.type === 'string' ? 'identifier' : 'amount';
    case 'currency':
      return 'currency';
    case 'issuer':
    case 'customer':
      return 'org';
    case 'email':
      return 'email';
    case 'phone':
      return 'phone';
    case 'invoice_date':
    case 'due_date':
    case 'effective_date':
    case 'date':
      return 'date';
    default:
      break;
  }
  if (field.type === 'number')
    return /amount|price|total|cost|fee|sum|tax|betrag|montant/.test(`${field.name} ${field.description}`)
      ? 'amount'
      : 'number';
  return 'text';
}

/** Characters that sit between a label and its value. */
const LEAD = /^[\s:|#°.\-–=)(]*(?:n[°o]\.?\s*|nr\.?\s*|no\.?\s+)?[\s:|#°.\-–=]*/i;

export function readValue(kind: ValueKind, text: string, maxLead = 30): ReadValue | undefined {
  const lead = LEAD.exec(text)?.[0].length ?? 0;
  const rest = text.slice(lead);
  const within = (start: number) => start <= maxLead;
  switch (kind) {
    case 'date': {
      const d = findDates(text)[0];
      return d && within(d.start) ? { value: d.iso, start: d.start, end: d.end } : undefined;
    }
    case 'amount':
    case 'number': {
      const a = findAmounts(text, { requireMoneyShape: kind === 'amount' })[0];
      return a && within(a.start) ? { value: a.value, start: a.start, end: a.end } : undefined;
    }
    case 'identifier': {
      // The first token holding a digit, at most three tokens in ("Invoice No : # BLR_WFLD2015…").
      const tokens = [...rest.matchAll(/[^\s|,;]+/g)].slice(0, 3);
      for (const t of tokens) {
        const tok = t[0].replace(/[.:)]+$/, '');
        if (/\d/.test(tok) && tok.length >= 3 && !findDates(tok).some((d) => d.raw === tok)) {
          return {
            value: tok.replace(/^[#(]+/, ''),
            start: lead + t.index! + (tok.length - tok.replace(/^[#(]+/, '').length),
            end: lead + t.index! + tok.length,
          };
        }
      }
      return undefined;
    }
    case 'currency': {
      const c = currencyOf(rest.split(/\s+/)[0]) ?? currenciesIn(rest.slice(0, 20))[0];
      return c ? { value: c, start: lead, end: lead + rest.split(/\s+/)[0]!.length } : undefined;
    }
    case 'boolean': {
      const m = /^(yes|no|true|false|ja|nein|oui|non|x|☒|☑|✓|☐)\b/i.exec(rest);
      if (!m) return undefined;
      return { value: /^(yes|true|ja|oui|x|☒|☑|✓)$/i.test(m[1]!), start: lead, end: lead + m[0].length };
    }
    case 'email': {
      const m = /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/.exec(text);
      return m && within(m.index) ? { value: m[0], start: m.index, end: m.index + m[0].length } : undefined;
    }
    case 'phone': {
      const m = /\+?\(?\d[\d\s().\-/]{6,}\d/.exec(text);
      return m && within(m.index) ? { value: m[0].trim(), start: m.index, end: m.index + m[0].length } : undefined;
    }
    case 'org': {
      const o = findOrganisations(rest)[0];
      if (o && o.start <= maxLead) return { value: o.name, start: lead + o.start, end: lead + o.end };
      return readText(rest, lead);
    }
    case 'text':
      return readText(rest, lead);
  }
}

/** Free text up to the next "Label:" on the line, a table cell edge or 120 characters. */
function readText(rest: string, lead: number): ReadValue | undefined {
  let end = rest.search(/\s\|\s|\s{3,}|\s[A-ZÀ-Ý][\wÀ-ÿ.]*(?:\s[\wÀ-ÿ.]+){0,2}\s?:\s/);
  if (end < 0) end = rest.length;
  const value = rest
    .slice(0, Math.min(end, 120))
    .replace(/[\s|,;:]+$/, '')
    .replace(/^\((.*)\)$/, '$1')
    .trim();
  // A parenthetical remark or a bare symbol is not a value.
  if (!/[\p{L}\p{N}]{2,}/u.test(value) || /^\(.*\)$/.test(rest.slice(0, end).trim())) return undefined;
  return { value, start: lead, end: lead + value.length };
}
