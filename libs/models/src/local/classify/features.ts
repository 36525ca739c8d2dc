// Turns evidence into the bag of terms classification scores: phrase counts over the folded text
// plus structural "__" features (table-heavy, numeric, money, short, spreadsheet, image input),
// which carry what words cannot, e.g. that a file is a workbook or a photographed page.
import type { Segment } from '@docfleet/contracts';
import type { Evidence } from '../../types';
import { findAmounts } from '../text/amounts';
import { fold } from '../text/normalize';

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
  return { text, features, chars: pageText.length };
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
