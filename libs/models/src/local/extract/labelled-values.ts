// Finds values printed next to a label: "Invoice No: 123", "| Invoice Date: | August 3, 2014 |",
// "Factuurdatum: 19 april 2014 Ordernummer: …", and labels printed above their values (a heading
// "Total EUR" over "34,73", or a column of "Invoice Date: / Due Date: / Reference:" over a column of
// values, which is how layout-preserving parsers read two-column header blocks).
import type { Segment } from '@docfleet/contracts';
import { quoteAround, type SegLine } from '../text/lines';
import { escapeRegExp, sameLengthFoldSafe } from './fold-index';
import { readValue, type ValueKind } from './value-kinds';

export interface Candidate {
  value: string | number | boolean;
  seg: Segment;
  page: number;
  quote: string;
  /** 0-1; higher is better. Also used as the citation confidence. */
  score: number;
  /** Global line index (document order tie-break). */
  order: number;
  label: string;
}

const cache = new Map<string, RegExp>();
/** A candidate found at [start, end) of one line, quoted verbatim around it (the finders' common shape). */
export const lineCandidate = (
  line: SegLine,
  order: number,
  value: Candidate['value'],
  start: number,
  end: number,
  score: number,
  label: string,
): Candidate => ({
  value,
  seg: line.seg,
  page: line.page,
  quote: quoteAround(line.text, start, end),
  score,
  order,
  label,
});

export function labelRegex(label: string): RegExp {
  let re = cache.get(label);
  if (!re) {
    const body = label.trim().split(/\s+/).map(escapeRegExp).join('[\\s:._\\-/]{0,3}');
    re = new RegExp(`(?<![a-z0-9])${body}${/[a-z0-9]$/.test(label) ? '(?![a-z])' : ''}`, 'g');
    cache.set(label, re);
  }
  re.lastIndex = 0;
  return re;
}

/** A line that is only a label ("Invoice Date:", "### Due Date:"), used for stacked layouts. */
function isLabelOnly(text: string): boolean {
  const t = text.replace(/^#+\s*/, '').trim();
  return t.length <= 40 && /:$/.test(t) && !/\d{2}/.test(t);
}

export function findLabelled(
  lines: SegLine[],
  labels: string[],
  kind: ValueKind,
  opts: { exclude?: RegExp } = {},
): Candidate[] {
  const out: Candidate[] = [];
  lines.forEach((line, li) => {
    const folded = sameLengthFoldSafe(line.text);
    labels.forEach((label, rank) => {
      const re = labelRegex(label);
      for (let m = re.exec(folded); m; m = re.exec(folded)) {
        const ms = m.index;
        const me = ms + m[0].length;
        if (opts.exclude?.test(folded.slice(Math.max(0, ms - 12), me + 12))) continue;
        const base = 0.95 - (0.3 * rank) / Math.max(1, labels.length);
        const rest = line.text.slice(me);
        const v = readValue(kind, rest);
        if (v) {
          out.push({
            value: v.value,
            seg: line.seg,
            page: line.page,
            quote: quoteAround(line.text, ms, me + v.end),
            score: base,
            order: li,
            label,
          });
          continue;
        }
        // Nothing after the label on its line (or only a unit such as "EUR"): look below.
        if (rest.replace(/[\s:|#*]/g, '').length > 4) continue;
        const stacked = valueBelow(lines, li, kind);
        if (stacked) out.push({ ...stacked, score: base - 0.1, order: li, label });
      }
    });
  });
  return out;
}

function valueBelow(
  lines: SegLine[],
  li: number,
  kind: ValueKind,
): Omit<Candidate, 'score' | 'order' | 'label'> | undefined {
  const here = lines[li]!;
  let start = li;
  while (start > 0 && isLabelOnly(lines[start - 1]!.text) && lines[start - 1]!.page === here.page) start--;
  let end = li;
  while (end + 1 < lines.length && isLabelOnly(lines[end + 1]!.text) && lines[end + 1]!.page === here.page) end++;
  const k = isLabelOnly(here.text) ? li - start : 0;
  const target = lines[(isLabelOnly(here.text) ? end : li) + 1 + k];
  if (!target || target.page !== here.page) return undefined;
  const v = readValue(kind, target.text, 5);
  if (!v) return undefined;
  return { value: v.value, seg: target.seg, page: target.page, quote: quoteAround(target.text, v.start, v.end) };
}

/** Best candidate: highest score, then earliest in the document. */
export function best(cands: Candidate[], tie?: (a: Candidate, b: Candidate) => number): Candidate | undefined {
  return [...cands].sort((a, b) => b.score - a.score || (tie ? tie(a, b) : 0) || a.order - b.order)[0];
}
