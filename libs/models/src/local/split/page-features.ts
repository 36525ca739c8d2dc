// Per-page signals for finding document boundaries: page-number markers, running headers/footers,
// title lines, the page's document type, its invoice/reference number, and a term vector for
// topic continuity.
import type { Evidence, PageText } from '../../types';
import { evidencePages, segmentPage } from '../../evidence';
import { profileOf } from '../classify/features';
import { classProfile, confidenceOf, scoreProfiles } from '../classify/profiles';
import { BUILTIN_PROFILES } from '../classify/vocabulary';
import { findLabelled } from '../extract/labelled-values';
import { CONCEPTS } from '../extract/concepts';
import { segmentLines } from '../text/lines';
import { contentWords, fold } from '../text/normalize';

export interface PageMarker {
  n: number;
  total?: number;
  bare: boolean;
}

export interface PageFeatures {
  pageNumber: number;
  text: string;
  lines: string[];
  marker?: PageMarker;
  /** Top lines with digits masked, used to recognise running headers. */
  headKeys: string[];
  footKeys: string[];
  titleLine?: string;
  docType?: string;
  docTypeConfidence: number;
  reference?: string;
  terms: Map<string, number>;
  empty: boolean;
  width?: number;
  height?: number;
}

/** Types a page can be (a subset of the built-in vocabulary: document kinds, not media). */
export const PAGE_TYPES = [
  'invoice',
  'receipt',
  'contract_nda',
  'contract',
  'scientific_paper',
  'technical_manual',
  'bank_statement',
  'financial_statement',
  'tabular_report',
  'government_report_with_tables',
  'form',
  'report',
];
const TYPE_PROFILES = BUILTIN_PROFILES.filter((b) => PAGE_TYPES.includes(b.key)).map((b) =>
  classProfile({ name: b.key, description: '' }),
);
const INVOICE_LABELS = CONCEPTS.find((c) => c.id === 'invoice_number')!.labels.filter((l) => l !== 'invoice');

const MARKERS: Array<{ re: RegExp; bare: boolean }> = [
  { re: /\b(?:page|pagina|seite|p\.)\s*:?\s*(\d{1,3})\s*(?:of|\/|von|sur|van|de)\s*(\d{1,3})\b/i, bare: false },
  { re: /^\s*(\d{1,3})\s*(?:\/|of)\s*(\d{1,3})\s*$/i, bare: false },
  { re: /\b(?:page|pagina|seite|blatt)\s*:?\s*(\d{1,3})\b/i, bare: false },
  { re: /^\s*[-–—]\s*(\d{1,3})\s*[-–—]\s*$/, bare: false },
  { re: /^\s*(\d{1,3})\s*$/, bare: true },
];

export function pageMarker(lines: string[]): PageMarker | undefined {
  // Markers live in the first or last lines (headers and footers).
  const edge = [...lines.slice(-3).reverse(), ...lines.slice(0, 3)];
  for (const { re, bare } of MARKERS) {
    for (const line of edge) {
      if (bare && line.trim().length > 3) continue;
      const m = re.exec(line);
      if (m) {
        const n = Number(m[1]);
        const total = m[2] ? Number(m[2]) : undefined;
        if (n < 1 || (total !== undefined && (total < n || total > 999))) continue;
        return { n, total, bare };
      }
    }
  }
  return undefined;
}

const mask = (s: string) => fold(s).replace(/\d+/g, '#').replace(/\s+/g, ' ').trim();

export function pageFeatures(ev: Evidence): PageFeatures[] {
  const pages: PageText[] = evidencePages(ev);
  const sizes = new Map(ev.grounding?.pages.map((p) => [p.page_number, { w: p.width, h: p.height }]) ?? []);
  return pages.map((p) => {
    const lines = p.text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const segs = ev.segments.filter((s) => segmentPage(s) === p.pageNumber);
    const scores = scoreProfiles(TYPE_PROFILES, profileOf(segs, p.text, ev));
    const conf = confidenceOf(scores);
    const known = scores[0] && scores[0].score > 0.8 && conf >= 0.5;
    const refs = findLabelled(segmentLines(segs), INVOICE_LABELS, 'identifier');
    const terms = new Map<string, number>();
    for (const w of contentWords(p.text)) if (w.length > 2) terms.set(w, (terms.get(w) ?? 0) + 1);
    const size = sizes.get(p.pageNumber);
    return {
      pageNumber: p.pageNumber,
      text: p.text,
      lines,
      marker: pageMarker(lines),
      headKeys: lines
        .slice(0, 2)
        .map(mask)
        .filter((k) => k.length > 3),
      footKeys: lines
        .slice(-2)
        .map(mask)
        .filter((k) => k.length > 3),
      titleLine: lines.slice(0, 4).find((l) => /[A-Za-z]{3}/.test(l)),
      docType: known ? scores[0]!.name : undefined,
      docTypeConfidence: known ? conf : 0,
      reference: refs.sort((a, b) => b.score - a.score)[0]?.value?.toString(),
      terms,
      empty: lines.join('').replace(/\W/g, '').length < 20,
      ...(size ? { width: size.w, height: size.h } : {}),
    };
  });
}
