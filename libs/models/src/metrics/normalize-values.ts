// Normalisation used to compare extracted values with ground truth: the corpus README's Kleister
// rules (spaces → "_", ISO dates, "{n}_{unit}" terms, compared upper-cased) and invoice2data's
// conventions (ISO dates, numeric amounts, ISO currency codes).
import { currencyOf, parseNumber } from '../local/text/amounts';
import { parseDate } from '../local/text/dates';
import { findDurations, orgKey } from '../local/text/entities';

export type CompareKind =
  'identifier' | 'date' | 'amount' | 'currency' | 'organisation' | 'place' | 'duration' | 'text';

export function normalizeValue(kind: CompareKind, value: unknown): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  const s = String(value).trim();
  switch (kind) {
    case 'identifier':
      return s.toUpperCase().replace(/^#\s*/, '').replace(/\s+/g, '');
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(s) ? s : parseDate(s);
    case 'amount': {
      const n = typeof value === 'number' ? value : parseNumber(s.replace(/[^\d.,-]/g, ''));
      return n === undefined ? undefined : n.toFixed(2);
    }
    case 'currency':
      return currencyOf(s) ?? s.toUpperCase();
    // Kleister writes "Aol_Inc." for "AOL Inc.": compare names without case, punctuation or legal form.
    case 'organisation':
      return orgKey(s.replace(/_/g, ' ')).toUpperCase().replace(/\s+/g, '_') || undefined;
    case 'place':
      return s.replace(/_/g, ' ').replace(/\s+/g, '_').toUpperCase();
    case 'duration': {
      const d = findDurations(s.replace(/_/g, ' '))[0];
      return d
        ? `${d.amount}_${d.unit.toUpperCase()}S`.replace(/^1_(\w+)S$/, '1_$1')
        : s.toUpperCase().replace(/\s+/g, '_');
    }
    case 'text':
      return s.toUpperCase().replace(/\s+/g, ' ');
  }
}
