// docfleet-local "classify": one class for the document and one per page, from the caller's class
// list only. Pages are scored on their own text; the document on all of it, so a long contract with
// one table page is still a contract.
import type { Evidence } from '../../types';
import { evidencePages, segmentPage } from '../../evidence';
import type { ClassDefinition, ClassifyOutput } from '../../tasks/outputs';
import { profileOf } from './features';
import { classProfile, confidenceOf, scoreProfiles, type ClassProfile, type Scored } from './profiles';

export function localClassify(
  ev: Evidence,
  classes: Array<string | ClassDefinition>,
  opts: { multiLabel?: boolean } = {},
): ClassifyOutput {
  const defs = classes
    .map((c) => (typeof c === 'string' ? { name: c, description: '' } : c))
    .filter((c) => c.name.trim());
  const profiles = defs.map(classProfile);
  const pages = evidencePages(ev);
  const docScores = scoreProfiles(profiles, profileOf(ev.segments, pages.map((p) => p.text).join('\n'), ev));
  const top = pick(docScores, profiles);
  const document: ClassifyOutput['document'] = {
    class: top.name,
    confidence: docScores[0]!.score > 0 ? confidenceOf(docScores) : 0.2,
    rationale: rationale(docScores),
  };
  const pageResults = pages.map((p) => {
    const segs = ev.segments.filter((s) => segmentPage(s) === p.pageNumber);
    const scores = scoreProfiles(profiles, profileOf(segs, p.text, ev));
    // A page with no vocabulary of its own (a signature page, a blank page) takes the document's class.
    if (!scores[0] || scores[0].score <= 0) return { page_number: p.pageNumber, class: top.name, confidence: 0.3 };
    return { page_number: p.pageNumber, class: pick(scores, profiles).name, confidence: confidenceOf(scores) };
  });
  if (opts.multiLabel) {
    // A label applies when the whole text supports it, or when some page is confidently of that class
    // (a bundle of an NDA and an invoice is both).
    const labels = new Map<string, number>();
    for (const s of docScores)
      if (s.score > 0 && s.score >= 0.6 * docScores[0]!.score)
        labels.set(s.name, Math.min(0.95, (s.score / docScores[0]!.score) * document.confidence));
    for (const p of pageResults)
      if (p.confidence >= 0.5 && !labels.has(p.class)) labels.set(p.class, p.confidence * 0.9);
    document.labels = [...labels.entries()].map(([c, conf]) => ({
      class: c,
      confidence: Math.round(conf * 100) / 100,
    }));
  }
  return { document, pages: pageResults };
}

function pick(scores: Scored[], profiles: ClassProfile[]): Scored {
  if (scores[0] && scores[0].score > 0) return scores[0];
  return { name: profiles[0]?.name ?? 'unknown', score: 0, hits: [] };
}

function rationale(scores: Scored[]): string {
  const [a, b] = scores;
  if (!a || a.score <= 0)
    return 'No vocabulary of any given class was found in the evidence; defaulted to the first class.';
  const terms = a.hits.slice(0, 5).join(', ');
  return `Terms typical of ${a.name} (${terms}) score ${a.score.toFixed(2)}${b ? ` against ${b.score.toFixed(2)} for ${b.name}` : ''}.`;
}
