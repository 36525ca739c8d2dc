// docfleet-local "split": walks the pages once, opening a new record where the boundary score
// passes the threshold. Topic similarity is measured against the open record (its last pages),
// not just the previous page, so a manual's varied chapters stay together while a different
// document's first page stands out.
import type { Evidence } from '../../types';
import { segmentPage } from '../../evidence';
import type { SplitOutput, SplitRecordOutput, SplitRule } from '../../tasks/outputs';
import { profileOf } from '../classify/features';
import { classProfile, scoreProfiles } from '../classify/profiles';
import { BUILTIN_PROFILES } from '../classify/vocabulary';
import { addInto, BOUNDARY_THRESHOLD, boundaryScore, cosine, tfidf, type BoundaryScore } from './boundaries';
import { PAGE_TYPES, pageFeatures, type PageFeatures } from './page-features';
import { ruleAdjustments } from './rules';

const TYPE_PROFILES = BUILTIN_PROFILES.filter((b) => PAGE_TYPES.includes(b.key)).map((b) =>
  classProfile({ name: b.key, description: '' }),
);

export function localSplit(ev: Evidence, rules: SplitRule[] = []): SplitOutput {
  const pages = pageFeatures(ev);
  if (!pages.length) return { records: [], warnings: [{ code: 'no_pages', message: 'The evidence has no pages.' }] };
  const vectors = tfidf(pages);
  const adjust = ruleAdjustments(rules);
  const starts: Array<{ page: number; b?: BoundaryScore }> = [{ page: 0 }];
  const internal: number[][] = [[]];
  let profile = new Map(vectors[0]);
  let recent: number[] = [0];
  for (let i = 1; i < pages.length; i++) {
    const sim = cosine(vectors[i]!, profile);
    const b = boundaryScore(pages[i - 1]!, pages[i]!, sim);
    const extra = adjust(pages[i - 1]!, pages[i]!);
    b.score += extra.score;
    b.reasons.push(...extra.reasons);
    if (b.score >= BOUNDARY_THRESHOLD) {
      starts.push({ page: i, b });
      internal.push([]);
      recent = [i];
    } else {
      internal[internal.length - 1]!.push(b.score);
      recent = [...recent, i].slice(-3);
    }
    profile = new Map();
    for (const r of recent) addInto(profile, vectors[r]!);
  }
  const records: SplitRecordOutput[] = starts.map((s, k) => {
    const first = s.page;
    const last = (starts[k + 1]?.page ?? pages.length) - 1;
    const span = pages.slice(first, last + 1);
    const startConf = s.b ? Math.min(0.95, 0.55 + (s.b.score - BOUNDARY_THRESHOLD) / 10) : 0.9;
    const contConf = Math.min(0.95, ...internal[k]!.map((x) => 0.55 + (BOUNDARY_THRESHOLD - x) / 10));
    return {
      title: titleOf(span[0]!, ev),
      documentType: typeOf(span, ev),
      startPage: span[0]!.pageNumber,
      endPage: span[span.length - 1]!.pageNumber,
      confidence: Math.round(Math.max(0.05, Math.min(startConf, contConf)) * 100) / 100,
      boundaryReason: s.b
        ? s.b.reasons.filter((r) => !/continues|shared/.test(r)).join('; ') || s.b.reasons.join('; ')
        : 'first page of the file',
    };
  });
  const warnings = records
    .filter((r) => r.confidence < 0.6)
    .map((r) => ({
      code: 'low_confidence_boundary',
      message: `Record pages ${r.startPage}-${r.endPage} has weak boundary evidence (${r.confidence}).`,
    }));
  return { records, warnings };
}

function titleOf(page: PageFeatures, ev: Evidence): string {
  const heading = ev.segments.find(
    (s) => segmentPage(s) === page.pageNumber && /^#{1,3}\s/.test(s.markdown) && /[A-Za-z]{3}/.test(s.markdown),
  );
  const text = heading
    ? heading.markdown.replace(/^#+\s*/, '').split('\n')[0]!
    : (page.titleLine ?? `Pages from ${page.pageNumber}`);
  return text.trim().slice(0, 120);
}

function typeOf(span: PageFeatures[], ev: Evidence): string {
  const nums = new Set(span.map((p) => p.pageNumber));
  const segs = ev.segments.filter((s) => nums.has(segmentPage(s)));
  const scores = scoreProfiles(TYPE_PROFILES, profileOf(segs, span.map((p) => p.text).join('\n'), ev));
  return scores[0] && scores[0].score > 0 ? scores[0].name : 'document';
}
