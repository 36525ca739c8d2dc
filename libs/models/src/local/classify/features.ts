// Turns evidence into the bag of terms classification scores: phrase counts over the folded text
// plus structural "__" features (table-heavy, numeric, money, short, spreadsheet, image input),
// which carry what words cannot, e.g. that a file is a workbook or a photographed page.
import type { Segment } from '@docfleet/contracts';
import type { Evidence } from '../../types';
import { findAmounts } from '../text/amounts';
import { fold } from '../text/normalize';
import { lineFeatures } from './line-features';

export interface TextProfile {
  text: string;
  features: Set<string>;
  chars: number;
}

export function profileOf(segments: Segment[], pageText: string, ev?: Evidence): TextProfile {
  const text = ` ${clean(pageText)} `;
  const features = new Set<string>();
  const tables = segments.filter(
    (s) => s.cells?.length || s.tableMetadata?.isTable || s.markdown.trim().startsWith('|'),
  );
  const tableChars = tables.reduce((n, s) => n + s.markdown.length, 0);
  const allChars = segments.reduce((n, s) => n + s.markdown.length, 0) || pageText.length;
  if (tables.length) features.add('__table');
  if (tableChars > 0.6 * allChars) features.add('__table_heavy');
  const digits = (pageText.match(/\d/g) ?? []).length;
  if (digits > 0.15 * pageText.replace(/\s/g, '').length) features.add('__numeric');
  if (findAmounts(pageText).some((a) => a.currency)) features.add('__money');
  if (pageText.length < 1500) features.add('__short');
  if (segments.some((s) => s.sourceType === 'spreadsheet' || 'sheetName' in (s.coordinates as object)))
    features.add('__spreadsheet');
  if (ev?.grounding && ev.grounding.document.file_type === 'image') features.add('__image');
  // Numbered references ("[9]", "[22]") are the mark of scholarly writing.
  if ((pageText.match(/\[\d{1,3}(?:[,–-]\s?\d{1,3})*\]/g) ?? []).length >= 2) features.add('__citations');
  for (const f of kindFeatures(segments, pageText, tableChars, allChars)) features.add(f);
  for (const f of lineFeatures(pageText)) features.add(f);
  return { text, features, chars: pageText.length };
}

/**
 * Features of the kind of document rather than of its vocabulary: how tables sit in the text (a
 * statistical publication interleaves prose with captioned tables and "Source:"/"Note:" lines; a
 * tabular listing is little else than the table), whether a reference list closes the text (papers),
 * and how long the document is (books run to many pages).
 */
export function kindFeatures(segments: Segment[], pageText: string, tableChars: number, allChars: number): string[] {
  const out: string[] = [];
  const lines = pageText.split('\n').map((l) => l.replace(/^[#*\s>-]+/, '').trim());
  const captions = lines.filter((l) => /^(table|exhibit|chart|figure|graph)\s+[a-z]?[\d.-]+\b/i.test(l)).length;
  const sourceNotes = lines.filter((l) => /^(sources?|notes?)\s*:/i.test(l)).length;
  if (captions >= 1 && tableChars > 0) out.push('__captioned_table');
  if (sourceNotes >= 1) out.push('__source_notes');
  if (tableChars > 0 && allChars - tableChars > 0.3 * allChars) out.push('__prose_with_tables');
  const refAt = lines.findIndex((l) => /^(references|bibliography|works cited|literature cited)\s*$/i.test(l));
  if (
    refAt >= 0 &&
    (
      lines
        .slice(refAt)
        .join(' ')
        .match(/\b(?:19|20)\d\d\b/g) ?? []
    ).length >= 3
  )
    out.push('__references');
  if (out.includes('__references') || /\[\d{1,3}(?:[,–-]\s?\d{1,3})*\][^[]*\[\d{1,3}/.test(pageText))
    out.push('__scholarly');
  // Several tables, each under its own title or caption: a publication of tables, not one listing.
  let titled = 0;
  segments.forEach((s, i) => {
    const prev = segments[i - 1]?.markdown.trim() ?? '';
    const isTable = s.cells?.length || s.tableMetadata?.isTable || s.markdown.trim().startsWith('|');
    if (isTable && (/^#/.test(prev) || /^(table|exhibit|chart)\s/i.test(prev))) titled++;
  });
  if (titled >= 2) out.push('__titled_tables');
  // A title line repeated at the top of several pages is the running header of a published document.
  const firstLines = new Map<number, string>();
  for (const s of segments) {
    const pg = (s.coordinates as { pageNumber?: number }).pageNumber ?? 1;
    if (!firstLines.has(pg))
      firstLines.set(
        pg,
        s.markdown
          .replace(/[_#*\s\d]+/g, ' ')
          .trim()
          .toLowerCase(),
      );
  }
  const heads = [...firstLines.values()].filter((l) => l.length >= 12);
  if (heads.some((h, i) => heads.indexOf(h) !== i)) out.push('__running_header');
  const pages = new Set(segments.map((s) => (s.coordinates as { pageNumber?: number }).pageNumber ?? 1)).size;
  if (pages >= 40) out.push('__long');
  return out;
}

// Letters of every script survive (Japanese financial terms must be countable), punctuation does not.
const clean = (s: string) => fold(s).replace(/[^\p{L}\p{N}%]+/gu, ' ');
const CJK = /[\u3040-\u30ff\u3400-\u9fff]/;

/** Occurrences of a folded phrase (word-bounded; substring for CJK, which has no spaces) or presence of a feature. */
export function termCount(p: TextProfile, term: string): number {
  if (term.startsWith('__')) return p.features.has(term) ? 1 : 0;
  const needle = CJK.test(term) ? term : ` ${clean(term).trim()} `;
  let n = 0;
  for (let i = p.text.indexOf(needle); i >= 0; i = p.text.indexOf(needle, i + needle.length - 1)) n++;
  return n;
}
