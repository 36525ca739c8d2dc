// docfleet-local "extract": fills a field-list schema from segments. Per field: sentence finders
// for contract concepts, then labelled values (concept labels plus the field's own name), then
// document-level fallbacks. Every value carries a citation whose quote is verbatim segment text
// containing it; a field with nothing found stays null without a citation (not_in_evidence).
import type { Evidence } from '../../types';
import type { Citation, ExtractOutput, ModelWarning } from '../../tasks/outputs';
import { normalizeFieldSchema, type FieldListSchema, type SchemaField } from '../../tasks/field-schema';
import { segmentLines, type SegLine } from '../text/lines';
import { conceptOf, type Concept } from './concepts';
import {
  currencyCandidates,
  effectiveDateCandidates,
  firstDateCandidates,
  issuerCandidates,
  jurisdictionCandidates,
  partyCandidates,
  patternCandidates,
  termCandidates,
} from './document-finders';
import { best, findLabelled, type Candidate } from './labelled-values';
import { extractTableField } from './table-fields';
import { addressCandidates, companyCandidates, paidTotalCandidates } from './receipt-finders';
import { kindOf } from './value-kinds';
import { dateOrderOf, withDateOrder } from '../text/dates';

const EXCLUDE: Partial<Record<Concept['id'], RegExp>> = {
  // "Total" must not pick up subtotals, pre-tax totals or per-line totals.
  total_amount: /sub\s?-?total|\bht\b|excl|exclusief|untaxed|before tax|\bnet\b|ohne|subtotaal/,
  invoice_date: /\b(due|order|delivery|bestell|order|lever|echeance)\W{0,3}(date|datum)|ordered|orderdatum/,
  invoice_number: /\border\b|ordernummer/,
};

interface Ctx {
  lines: SegLine[];
  ev: Evidence;
  citations: Citation[];
  warnings: ModelWarning[];
  totalPick?: Candidate;
  companyPick?: Candidate;
}

export function localExtract(ev: Evidence, rawSchema: FieldListSchema | Record<string, unknown>): ExtractOutput {
  const lines = segmentLines(ev.segments);
  // Numeric dates are read in the order the document itself shows (day first or month first).
  return withDateOrder(dateOrderOf(lines.map((l) => l.text).join('\n')), () => extractAll(ev, lines, rawSchema));
}

function extractAll(
  ev: Evidence,
  lines: SegLine[],
  rawSchema: FieldListSchema | Record<string, unknown>,
): ExtractOutput {
  const schema = normalizeFieldSchema(rawSchema as Record<string, unknown>);
  const ctx: Ctx = { lines, ev, citations: [], warnings: [] };
  // Totals first: the currency field reads the currency printed beside the total.
  const order = [...schema.fields].sort((a, b) => rank(a) - rank(b));
  const jsonResult: Record<string, unknown> = {};
  for (const f of order) jsonResult[f.name] = extractField(f, `/${f.name}`, ctx);
  const ordered = Object.fromEntries(schema.fields.map((f) => [f.name, jsonResult[f.name] ?? null]));
  if (!ev.segments.length)
    ctx.warnings.push({ code: 'no_evidence', message: 'No segments were given; every field is null.' });
  return { jsonResult: ordered, citations: ctx.citations, warnings: ctx.warnings };
}

// Totals first (the currency field reads the currency beside the total); the issuer before the
// address (the address is the block under the issuer's name).
const RANK: Partial<Record<Concept['id'], number>> = { total_amount: 0, issuer: 0, currency: 2, address: 2 };
const rank = (f: SchemaField) => RANK[conceptOf(f)?.id ?? 'date'] ?? 1;

function extractField(f: SchemaField, path: string, ctx: Ctx): unknown {
  if ((f.type === 'table' || f.type === 'array') && f.children?.length) {
    const r = extractTableField(f, path, ctx.ev.segments);
    ctx.citations.push(...r.citations);
    return r.value;
  }
  if (f.type === 'object') {
    const obj = Object.fromEntries((f.children ?? []).map((c) => [c.name, extractField(c, `${path}/${c.name}`, ctx)]));
    return Object.values(obj).some((v) => v !== null) ? obj : null;
  }
  if (f.type === 'array') {
    const list = listCandidates(f, ctx);
    list.forEach((c, i) => ctx.citations.push(cite(`${path}/${i}`, c)));
    return list.length ? list.map((c) => c.value) : null;
  }
  const c = scalarCandidate(f, ctx);
  if (!c) return null;
  const value = conform(f, c.value);
  if (value === undefined) {
    // What the evidence holds is not of the field's type (an invoice "number" like INV-12 for a
    // number field): an honest null with a warning, not output that fails the schema.
    ctx.warnings.push({
      code: 'type_mismatch',
      path,
      message: `Found ${JSON.stringify(c.value)} for ${f.name}, which is not a ${f.type}; left null.`,
    });
    return null;
  }
  ctx.citations.push(cite(path, c));
  return value;
}

/** The candidate's value as the field's type, or undefined when it cannot be one. */
export function conform(f: SchemaField, v: unknown): unknown {
  if (v === null || v === undefined) return v;
  if (f.type === 'number') {
    if (typeof v === 'number') return Number.isFinite(v) ? v : undefined;
    if (typeof v !== 'string') return undefined;
    // A currency code or symbol may stand beside the amount; anything else makes it not a number.
    const t = v
      .trim()
      .replace(/^[A-Z]{3}\s+|\s+[A-Z]{3}$/g, '')
      .replace(/[$€£¥₹]/g, '')
      .replace(/[\s\u00a0]/g, '');
    if (!/^[+-]?[\d.,']+$/.test(t)) return undefined;
    // The last separator followed by 1-2 digits is the decimal mark; the others group thousands.
    const m = /[.,](\d{1,2})$/.exec(t);
    const n = Number(m ? `${t.slice(0, m.index).replace(/[.,']/g, '')}.${m[1]}` : t.replace(/[.,']/g, ''));
    return Number.isFinite(n) ? n : undefined;
  }
  if (f.type === 'boolean') {
    if (typeof v === 'boolean') return v;
    const t = String(v).trim().toLowerCase();
    return ['yes', 'true', 'y', 'x', '1'].includes(t)
      ? true
      : ['no', 'false', 'n', '0'].includes(t)
        ? false
        : undefined;
  }
  if (f.type === 'string' || f.type === 'date')
    return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : undefined;
  return v;
}

function cite(path: string, c: Candidate): Citation {
  return { path, segmentId: c.seg.id, pageNumber: c.page, quote: c.quote, confidence: Math.round(c.score * 100) / 100 };
}

function labelsFor(f: SchemaField, concept: Concept | undefined): string[] {
  const own = f.name.replace(/_/g, ' ').trim();
  const desc = f.description && f.description.split(/\s+/).length <= 4 ? [f.description.toLowerCase()] : [];
  const list = concept ? [...concept.labels] : [];
  // The field's own name goes after the concept's specific labels but before its generic ones.
  const at = Math.max(0, list.length - 2);
  return [...new Set([...list.slice(0, at), own, ...desc, ...list.slice(at)])].filter((l) => l.length > 1);
}

function scalarCandidate(f: SchemaField, ctx: Ctx): Candidate | undefined {
  const concept = conceptOf(f);
  const kind = kindOf(f, concept);
  const { lines } = ctx;
  switch (concept?.id) {
    case 'effective_date':
      return best(effectiveDateCandidates(lines));
    case 'jurisdiction':
      return best(jurisdictionCandidates(lines));
    case 'term':
      return best(termCandidates(lines).filter((c) => c.score >= 0.5));
    case 'parties':
      return partyCandidates(lines, 1)[0];
    case 'issuer': {
      // A name after a specific label ("Vendor:", "Sold by"), not after the field's own name
      // ("Company No: 742016-W" is a registration number); else the letterhead's name.
      // The label opens its line or carries a colon: "from" inside a sentence labels nothing.
      const named = findLabelled(lines, concept.labels, 'org').filter(
        (c) => isName(String(c.value)) && labelLeads(c.quote, c.label ?? ''),
      );
      const pick = best(named) ?? best(companyCandidates(lines)) ?? best(issuerCandidates(lines));
      ctx.companyPick = pick;
      return pick;
    }
    case 'address': {
      const labelled = best(
        findLabelled(lines, labelsFor(f, concept), 'text').filter(
          (c) => /\d/.test(String(c.value)) && /\p{L}{3,}/u.test(String(c.value)),
        ),
      );
      return labelled ?? best(addressCandidates(lines, ctx.companyPick ?? best(companyCandidates(lines))));
    }
    case 'total_amount': {
      // Receipts: the amount paid, by the order of their totals, cash and change.
      const paid = f.type === 'string' ? undefined : best(paidTotalCandidates(lines));
      if (paid) {
        ctx.totalPick = paid;
        return paid;
      }
      break;
    }
    default:
      break;
  }
  const labelled = findLabelled(lines, labelsFor(f, concept), kind, {
    exclude: concept ? EXCLUDE[concept.id] : undefined,
  });
  // Among equally good total labels the largest amount is the grand total (tax lines, partial sums
  // and instalments are smaller).
  const tie =
    concept?.id === 'total_amount' ? (a: Candidate, b: Candidate) => Number(b.value) - Number(a.value) : undefined;
  let pick = best(labelled, tie);
  if (concept?.id === 'total_amount' && pick) ctx.totalPick = pick;
  if (pick) return pick;
  switch (concept?.id) {
    case 'currency': {
      const t = ctx.totalPick;
      const fromTotal = t && currencyNear(t, lines);
      return fromTotal ?? best(currencyCandidates(lines));
    }
    case 'invoice_date':
    case 'date':
      return best(firstDateCandidates(lines));
    case 'email':
      return best(patternCandidates(lines, /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/, 'email'));
    case 'phone':
      return best(patternCandidates(lines, /\+?\(?\d[\d\s().\-/]{7,}\d/, 'phone'));
    default:
      return pick;
  }
}

/** The label starts the quoted line, or is followed by a colon. */
function labelLeads(quote: string, label: string): boolean {
  const l = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s+');
  return new RegExp(`^[^\\p{L}\\p{N}]*${l}\\b|\\b${l}\\s*:`, 'iu').test(quote);
}

/** An organisation's name: words of letters, not a number or a code. */
function isName(v: string): boolean {
  const letters = (v.match(/\p{L}/gu) ?? []).length;
  return letters >= 3 && letters >= 0.5 * v.replace(/\s/g, '').length && /\p{L}{4,}/u.test(v);
}

/** The currency printed with (or on the line of) the chosen total. */
function currencyNear(total: Candidate, lines: SegLine[]): Candidate | undefined {
  const line =
    lines.find((l) => l.seg.id === total.seg.id && l.text.includes(total.quote)) ??
    lines.find((l) => l.seg.id === total.seg.id);
  const own = currencyCandidates([{ ...(line ?? { seg: total.seg, page: total.page, index: 0 }), text: total.quote }]);
  return own[0] ? { ...own[0], order: total.order, score: 0.8 } : undefined;
}

function listCandidates(f: SchemaField, ctx: Ctx): Candidate[] {
  const concept = conceptOf(f);
  if (concept?.id === 'parties') return partyCandidates(ctx.lines, 2);
  const kind = kindOf({ ...f, type: 'string' }, concept);
  const seen = new Set<string>();
  return findLabelled(ctx.lines, labelsFor(f, concept), kind)
    .filter((c) => {
      const k = String(c.value).toLowerCase();
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    })
    .slice(0, 20);
}
