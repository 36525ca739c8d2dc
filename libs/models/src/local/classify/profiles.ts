// Class profiles and scoring. A caller's class (name, optional description) becomes a weighted term
// list: its name words and description words, plus the built-in vocabulary when the name matches a
// known class. Scores use log counts so one repeated word cannot dominate, and are normalised by
// the profile's total weight so large vocabularies do not win by size.
import { contentWords } from '../text/normalize';
import type { ClassDefinition } from '../../tasks/outputs';
import { builtinFor } from './vocabulary';
import { termCount, type TextProfile } from './features';

export interface ClassProfile {
  name: string;
  terms: Record<string, number>;
  builtin?: string;
  requires?: string[];
}

export function classProfile(def: ClassDefinition): ClassProfile {
  const terms: Record<string, number> = {};
  const builtin = builtinFor(def.name);
  if (builtin) Object.assign(terms, builtin.terms);
  for (const w of contentWords(def.name.replace(/_/g, ' '))) terms[w] = Math.max(terms[w] ?? 0, 2);
  for (const w of contentWords(def.description ?? '')) terms[w] = Math.max(terms[w] ?? 0, 0.5);
  return { name: def.name, terms, builtin: builtin?.key, requires: builtin?.requires };
}

export interface Scored {
  name: string;
  score: number;
  hits: string[];
}

export function scoreProfiles(profiles: ClassProfile[], p: TextProfile): Scored[] {
  return profiles
    .map((cp) => {
      let score = 0;
      let weight = 0;
      const hits: Array<[string, number]> = [];
      for (const [term, w] of Object.entries(cp.terms)) {
        weight += w;
        const n = termCount(p, term);
        if (n > 0) {
          const s = w * (1 + Math.log2(n));
          score += s;
          hits.push([term, s]);
        }
      }
      let norm = weight > 0 ? score / Math.sqrt(weight) : 0;
      if (cp.requires?.some((f) => !p.features.has(f))) norm *= 0.25;
      return { name: cp.name, score: norm, hits: hits.sort((a, b) => b[1] - a[1]).map(([h]) => h.replace(/^__/, '')) };
    })
    .sort((a, b) => b.score - a.score);
}

/** Softmax-like confidence from the top score's margin over the runner-up. */
export function confidenceOf(scored: Scored[]): number {
  const [a, b] = scored;
  if (!a || a.score <= 0) return 0.2;
  if (!b) return 0.9;
  const margin = (a.score - b.score) / a.score;
  return Math.round(Math.min(0.95, 0.45 + margin * 0.6) * 100) / 100;
}
