// docfleet-local "classify_suggest": proposes classes from the built-in vocabulary that fit this
// document (and its pages), plus any built-in class the guidelines name, so the suggestion is a
// usable starting list rather than a single label.
import type { Evidence } from '../../types';
import { evidencePages, segmentPage } from '../../evidence';
import type { ClassDefinition, ClassifySuggestOutput } from '../../tasks/outputs';
import { contentWords } from '../text/normalize';
import { profileOf } from './features';
import { classProfile, scoreProfiles } from './profiles';
import { BUILTIN_PROFILES, builtinFor } from './vocabulary';

export function localSuggestClasses(ev: Evidence, guidelines = ''): ClassifySuggestOutput {
  const profiles = BUILTIN_PROFILES.map((b) => classProfile({ name: b.key, description: '' }));
  const pages = evidencePages(ev);
  const picked = new Map<string, ClassDefinition>();
  const add = (key: string) => {
    const b = builtinFor(key);
    if (b && !picked.has(b.key)) picked.set(b.key, { name: b.key, description: b.description });
  };
  // Classes the guidelines ask for come first, in their order.
  for (const w of contentWords(guidelines)) add(w);
  const doc = scoreProfiles(profiles, profileOf(ev.segments, pages.map((p) => p.text).join('\n'), ev)).filter(
    (s) => s.score > 0,
  );
  doc.slice(0, 2).forEach((s) => add(s.name));
  for (const p of pages) {
    const segs = ev.segments.filter((s) => segmentPage(s) === p.pageNumber);
    const top = scoreProfiles(profiles, profileOf(segs, p.text, ev))[0];
    if (top && top.score > 0) add(top.name);
  }
  if (!picked.size) picked.set('other', { name: 'other', description: 'Documents that match no other class.' });
  else picked.set('other', { name: 'other', description: 'Documents that match none of the classes above.' });
  return { classes: [...picked.values()].slice(0, 8) };
}
