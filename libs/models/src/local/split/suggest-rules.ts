// docfleet-local "split_rules": reports which boundary signals this file actually shows, phrased
// as rules a reviewer can keep, edit or drop before running the split.
import type { Evidence } from '../../types';
import type { SplitRule, SplitRulesOutput } from '../../tasks/outputs';
import { pageFeatures } from './page-features';

export function localSuggestSplitRules(ev: Evidence): SplitRulesOutput {
  const pages = pageFeatures(ev);
  const rules: SplitRule[] = [];
  if (pages.some((p) => p.marker && !p.marker.bare)) {
    rules.push({
      name: 'page_number_reset',
      description:
        'A new document starts where page numbering restarts at 1 (e.g. "Page 1 of 3"), and the previous page is the last of its count.',
    });
  }
  const types = new Set(pages.map((p) => p.docType).filter(Boolean));
  if (types.size > 1)
    rules.push({
      name: 'document_type_change',
      description: `A new document starts where the kind of document changes (seen here: ${[...types].join(', ')}).`,
    });
  if (pages.some((p) => p.reference))
    rules.push({
      name: 'reference_number_change',
      description:
        'Pages with the same invoice or reference number belong together; a new number starts a new document.',
    });
  if (pages.some((p, i) => i > 0 && p.headKeys.some((k) => pages[i - 1]!.headKeys.includes(k)))) {
    rules.push({
      name: 'running_header',
      description: 'Consecutive pages sharing a running header or footer belong to the same document.',
    });
  }
  rules.push({
    name: 'title_page',
    description:
      'A page that opens with a title naming a document (Invoice, Agreement, Statement, Report, Exhibit) starts a new document.',
  });
  if (pages.length > 1)
    rules.push({
      name: 'topic_continuity',
      description:
        'Pages continuing the same subject, or a sentence running over the page break, stay in the same document.',
    });
  return { rules };
}
