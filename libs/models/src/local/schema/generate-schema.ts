// docfleet-local "schema_generate": derives a reusable field list from one sample document:
// labelled values become typed fields (named after the known concept when the label is a known
// one, e.g. "Rechnungsnr." → invoice_number), tables become table fields whose children are the
// header columns, and contract documents get their sentence-level fields (parties, effective date,
// governing law, term) when the finders see them.
import type { Evidence } from '../../types';
import { evidencePages } from '../../evidence';
import { normalizeFieldName, type SchemaField } from '../../tasks/field-schema';
import type { SchemaGenerateOutput } from '../../tasks/outputs';
import { profileOf } from '../classify/features';
import { classProfile, scoreProfiles } from '../classify/profiles';
import { BUILTIN_PROFILES } from '../classify/vocabulary';
import { CONCEPTS } from '../extract/concepts';
import {
  effectiveDateCandidates,
  jurisdictionCandidates,
  partyCandidates,
  termCandidates,
} from '../extract/document-finders';
import { labelRegex } from '../extract/labelled-values';
import { sameLengthFoldSafe } from '../extract/fold-index';
import { markdownTables } from '../extract/table-fields';
import { findAmounts } from '../text/amounts';
import { findDates } from '../text/dates';
import { plain, segmentLines } from '../text/lines';

const MAX_FIELDS = 30;
const KV = /(?:^|\|\s*|\s{2,})([A-Za-zÀ-ÿ][\wÀ-ÿ .'’/#°()-]{1,40}?)\s*:\s*([^|]{1,80}?)(?=\s*\||\s{2,}|$)/g;

function typeOfValue(v: string): SchemaField['type'] {
  const t = v.trim();
  if (findDates(t).some((d) => d.start <= 2 && d.end >= t.length - 2)) return 'date';
  if (/^[-+]?[$€£₹¥]?\s?[\d.,\s]+\s?[$€£%]?$/.test(t) && findAmounts(t, { requireMoneyShape: false }).length)
    return 'number';
  if (/^(yes|no|true|false)$/i.test(t)) return 'boolean';
  return 'string';
}

// Invoice concepts only name fields of invoice-like documents; elsewhere "Date:" is just a date.
const INVOICE_ONLY = new Set([
  'invoice_number',
  'invoice_date',
  'due_date',
  'subtotal',
  'tax_amount',
  'total_amount',
  'currency',
  'issuer',
  'customer',
]);
const SKIP_LABELS = /^(page|seite|pagina|by|no|nr|re|cc|to|from|subject)$/i;
const LABEL_CELL = /^[A-Za-zÀ-ÿ][\wÀ-ÿ .'’/#°()*-]{0,40}:?$/;

function conceptName(label: string, invoiceLike: boolean): string | undefined {
  const folded = sameLengthFoldSafe(label);
  // The longest matching label wins: "Invoice Date" is invoice_date, not invoice_number via "invoice".
  let best: { id: string; len: number } | undefined;
  for (const c of CONCEPTS) {
    if (!invoiceLike && INVOICE_ONLY.has(c.id)) continue;
    for (const l of c.labels)
      if (labelRegex(l).test(folded) && (!best || l.length > best.len)) best = { id: c.id, len: l.length };
  }
  return best?.id;
}

export function localGenerateSchema(ev: Evidence, title = ''): SchemaGenerateOutput {
  const pages = evidencePages(ev);
  const docType = scoreProfiles(
    BUILTIN_PROFILES.map((b) => classProfile({ name: b.key, description: '' })),
    profileOf(ev.segments, pages.map((p) => p.text).join('\n'), ev),
  )[0];
  const documentType = docType && docType.score > 0 ? docType.name : 'document';
  const fields = new Map<string, SchemaField>();
  const invoiceLike = documentType === 'invoice' || documentType === 'receipt';
  const CONCEPT_TYPES: Record<string, SchemaField['type']> = {
    invoice_date: 'date',
    due_date: 'date',
    effective_date: 'date',
    date: 'date',
    total_amount: 'number',
    subtotal: 'number',
    tax_amount: 'number',
  };
  const add = (f: SchemaField) => {
    if (CONCEPT_TYPES[f.name] && f.type !== 'table') f = { ...f, type: CONCEPT_TYPES[f.name]! };
    if (!fields.has(f.name) && fields.size < MAX_FIELDS && f.name.replace(/_/g, '').length >= 3) fields.set(f.name, f);
  };
  const reasons: string[] = [];
  const lines = segmentLines(ev.segments);

  // Contracts state their key terms in sentences, not label/value pairs.
  if (/contract|nda/.test(documentType)) {
    if (partyCandidates(lines).length)
      add({
        name: 'parties',
        type: 'array',
        description: 'Organisations that are party to the agreement',
        required: true,
      });
    if (effectiveDateCandidates(lines).some((c) => c.score >= 0.7))
      add({ name: 'effective_date', type: 'date', description: 'Date the agreement takes effect', required: true });
    if (jurisdictionCandidates(lines).length)
      add({
        name: 'governing_law',
        type: 'string',
        description: 'State or country whose law governs the agreement',
        required: false,
      });
    if (termCandidates(lines).some((c) => c.score >= 0.5))
      add({ name: 'term', type: 'string', description: 'Duration of the agreement', required: false });
    reasons.push('contract clauses (parties, effective date, governing law, term)');
  }

  let kvCount = 0;
  for (const l of lines) {
    if (l.text.trim().startsWith('|') && l.text.split('|').length > 4) continue; // wide tables handled below
    const text = plain(l.text);
    KV.lastIndex = 0;
    for (let m = KV.exec(text); m; m = KV.exec(text)) {
      const label = m[1]!
        .trim()
        .replace(/[#°.]+$/, '')
        .trim();
      if (label.split(/\s+/).length > 5 || /^(https?|www|mailto)$/i.test(label) || SKIP_LABELS.test(label)) continue;
      const name = conceptName(label, invoiceLike) ?? normalizeFieldName(label).replace(/^_+|_+$/g, '');
      add({ name, type: typeOfValue(m[2]!), description: `Value printed as "${label}"`, required: false });
      kvCount++;
    }
  }
  // Two-cell table rows are label | value pairs ("| Invoice Number: | 42183017 |").
  for (const t of markdownTables(ev.segments)) {
    const rows = [t.header, ...t.rows.map((r) => r.cells)];
    if (t.header.length === 2 && rows.every((r) => r.length === 2)) {
      for (const [label, value] of rows) {
        if (!label || !value || !LABEL_CELL.test(label) || !/[A-Za-z]/.test(label)) continue;
        // A label ends with a colon or sits next to a number/date; two names side by side are not a pair.
        if (!/:$/.test(label) && !/\d/.test(value)) continue;
        const clean = label.replace(/[:*#]+$/, '').trim();
        if (SKIP_LABELS.test(clean)) continue;
        add({
          name: conceptName(clean, invoiceLike) ?? normalizeFieldName(clean).replace(/^_+|_+$/g, ''),
          type: typeOfValue(value),
          description: `Value printed as "${clean}"`,
          required: false,
        });
        kvCount++;
      }
    }
  }
  if (kvCount) reasons.push(`${kvCount} labelled values`);

  let tableCount = 0;
  for (const t of markdownTables(ev.segments)) {
    if (t.header.length < 3 || t.rows.length < 2) continue;
    const children: SchemaField[] = [];
    t.header.forEach((h, col) => {
      const name = normalizeFieldName(h).replace(/^_+|_+$/g, '');
      if (!name || children.some((c) => c.name === name)) return;
      const values = t.rows.map((r) => r.cells[col] ?? '').filter((v) => v.trim());
      const types = values.map(typeOfValue);
      const majority =
        (['number', 'date', 'boolean'] as const).find(
          (ty) => types.filter((x) => x === ty).length > values.length / 2,
        ) ?? 'string';
      children.push({ name, type: majority, description: `Column "${h}"`, required: false });
    });
    if (children.length < 2) continue;
    const heading =
      t.seg.title && t.seg.title !== t.seg.docName && !/:$/.test(t.seg.title.trim()) ? t.seg.title : undefined;
    const base =
      normalizeFieldName(heading ?? (invoiceLike ? 'line_items' : 'table'))
        .replace(/^_+|_+$/g, '')
        .slice(0, 40) || 'table';
    let name = base;
    for (let i = 2; fields.has(name); i++) name = `${base}_${i}`;
    add({
      name,
      type: 'table',
      description: `Rows of the table with columns ${t.header.filter(Boolean).join(', ')}`,
      required: false,
      children,
    });
    tableCount++;
  }
  if (tableCount) reasons.push(`${tableCount} table(s)`);
  if (!fields.size)
    add({ name: 'summary', type: 'string', description: 'A one-sentence summary of the document', required: false });

  return {
    schema: {
      version: 1,
      title: title || `${documentType.replace(/_/g, ' ')} schema`,
      description: `Fields found in a sample ${documentType.replace(/_/g, ' ')}`,
      fields: [...fields.values()],
    },
    documentType,
    schemaRationale: reasons.length
      ? `Derived from ${reasons.join(', ')} in the sample; types come from the printed values (dates, amounts, text).`
      : 'The sample shows no labelled values or tables; a single summary field is proposed.',
  };
}
