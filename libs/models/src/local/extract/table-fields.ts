// Table and array-of-object fields: pick the table(s) whose header row best matches the field's
// children, map each child to a column, and read one result row per data row. A table repeated on
// following pages with the same header (a long invoice) contributes all of its rows.
import type { Segment } from '@docfleet/contracts';
import { segmentPage } from '../../evidence';
import type { Citation } from '../../tasks/outputs';
import type { SchemaField } from '../../tasks/field-schema';
import { findAmounts, parseNumber } from '../text/amounts';
import { parseDate } from '../text/dates';
import { rowCells } from '../text/lines';
import { contentWords, fold } from '../text/normalize';
import { conceptOf } from './concepts';

interface Table {
  seg: Segment;
  header: string[];
  rows: Array<{ cells: string[]; line: string }>;
}

export function markdownTables(segments: Segment[]): Table[] {
  const out: Table[] = [];
  for (const seg of segments) {
    const lines = seg.markdown.split('\n').filter((l) => l.trim().startsWith('|') && !/^\|?\s*:?-{3,}/.test(l.trim()));
    if (lines.length < 2) continue;
    const [head, ...body] = lines;
    out.push({
      seg,
      header: rowCells(head!)!,
      rows: body.map((line) => ({ cells: rowCells(line)!, line: line.trim() })),
    });
  }
  return out;
}

/** Words a column header may use for a child field. */
function childLabels(child: SchemaField): string[][] {
  const c = conceptOf(child);
  const own = [
    child.name.replace(/_/g, ' '),
    ...(child.description && child.description.split(/\s+/).length <= 4 ? [child.description] : []),
  ];
  return [...own, ...(c?.labels ?? [])].map((l) => contentWords(l)).filter((w) => w.length);
}

const SYNONYMS: Record<string, string[]> = {
  name: [
    'description',
    'item',
    'product',
    'article',
    'artikel',
    'beschreibung',
    'designation',
    'omschrijving',
    'service',
    'title',
  ],
  description: [
    'name',
    'item',
    'product',
    'artikel',
    'beschreibung',
    'designation',
    'omschrijving',
    'service',
    'title',
  ],
  qty: ['quantity', 'menge', 'aantal', 'nombre', 'qte', 'units'],
  quantity: ['qty', 'menge', 'aantal', 'nombre', 'qte', 'units'],
  price: ['unit', 'rate', 'preis', 'prijs', 'prix', 'pu', 'vk'],
  unit: ['price', 'rate'],
  amount: ['total', 'subtotal', 'betrag', 'zeilenbetrag', 'montant', 'bedrag', 'line'],
  total: ['amount', 'betrag', 'montant', 'bedrag'],
  date: ['datum', 'day'],
  tax: ['vat', 'btw', 'tva', 'mwst', 'gst', 'taxes'],
};

function headerScore(header: string, labels: string[][]): number {
  const h = new Set(contentWords(header));
  if (!h.size) return 0;
  let best = 0;
  for (const words of labels) {
    const hit = words.filter(
      (w) =>
        h.has(w) ||
        (SYNONYMS[w] ?? []).some((s) => h.has(s)) ||
        [...h].some((x) => x.length > 4 && (x.startsWith(w) || w.startsWith(x))),
    ).length;
    best = Math.max(best, hit / words.length);
  }
  return best;
}

function readCell(child: SchemaField, text: string): unknown {
  const t = text.trim();
  if (!t) return null;
  if (child.type === 'number') return findAmounts(t, { requireMoneyShape: false })[0]?.value ?? parseNumber(t) ?? null;
  if (child.type === 'date') return parseDate(t) ?? null;
  if (child.type === 'boolean') return /^(yes|true|x|✓|ja|oui)$/i.test(t);
  return t;
}

export function extractTableField(
  field: SchemaField,
  path: string,
  segments: Segment[],
): { value: Record<string, unknown>[] | null; citations: Citation[] } {
  const children = field.children ?? [];
  const labels = children.map(childLabels);
  const scored = markdownTables(segments)
    .map((t) => {
      const mapping = children.map((_, ci) => {
        let bestCol = -1;
        let bestScore = 0;
        t.header.forEach((h, col) => {
          const s = headerScore(h, labels[ci]!);
          if (s > bestScore) {
            bestScore = s;
            bestCol = col;
          }
        });
        return bestScore >= 0.5 ? bestCol : -1;
      });
      // The field's own name in a heading or caption counts a little ("Line items").
      const bonus = fold(t.seg.title ?? '').includes(fold(field.name.replace(/_/g, ' '))) ? 0.5 : 0;
      return { t, mapping, score: mapping.filter((c) => c >= 0).length + bonus };
    })
    .filter((x) => x.mapping.filter((c) => c >= 0).length >= Math.min(2, children.length));
  if (!scored.length) return { value: null, citations: [] };
  const top = Math.max(...scored.map((s) => s.score));
  const chosen = scored.filter((s) => s.score >= top * 0.8 && s.score > 0);
  const rows: Record<string, unknown>[] = [];
  const citations: Citation[] = [];
  for (const { t, mapping } of chosen) {
    for (const row of t.rows) {
      const values = children.map((c, ci) => (mapping[ci]! >= 0 ? readCell(c, row.cells[mapping[ci]!] ?? '') : null));
      if (values.every((v) => v === null || v === '')) continue;
      const idx = rows.length;
      rows.push(Object.fromEntries(children.map((c, ci) => [c.name, values[ci] ?? null])));
      children.forEach((c, ci) => {
        const cell = mapping[ci]! >= 0 ? (row.cells[mapping[ci]!] ?? '').trim() : '';
        if (!cell || values[ci] === null) return;
        citations.push({
          path: `${path}/${idx}/${c.name}`,
          segmentId: t.seg.id,
          pageNumber: segmentPage(t.seg),
          quote: t.seg.markdown.includes(cell) ? cell : row.line,
          confidence: 0.7,
        });
      });
    }
  }
  return { value: rows.length ? rows : null, citations };
}
