// Text similarity of markdown against a reference: 1 − Levenshtein / max length, after both sides
// are reduced to plain text (markdown syntax, image references, HTML comments and entities
// removed, whitespace collapsed), so the score measures text fidelity, not formatting choices.
import { levenshtein } from '../../src/edit-distance';

export function normaliseMarkdown(md: string): string {
  return md
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/gm, ' ')
    .replace(/^\s{0,3}#{1,6}\s+/gm, '')
    .replace(/^\s*```[^\n]*$/gm, ' ')
    .replace(/^\s*(?:[-*+•]|\d{1,3}[.)])\s+/gm, '')
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1')
    .replace(/\|/g, ' ')
    .replace(/(\*\*|__)(.*?)\1/g, '$2')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201C\u201D]/g, '"')
    .replace(/[\u2013\u2014]/g, '-')
    .replace(/\s+/g, ' ')
    .trim();
}

export function textSimilarity(ours: string, reference: string): number {
  const a = normaliseMarkdown(ours);
  const b = normaliseMarkdown(reference);
  const max = Math.max(a.length, b.length);
  return max === 0 ? 1 : 1 - levenshtein(a, b) / max;
}

/** Character error rate of OCR text against the expected text (whitespace-insensitive layout). */
export function characterErrorRate(ours: string, expected: string): number {
  const a = normaliseMarkdown(ours);
  const b = expected.replace(/\s+/g, ' ').trim();
  return b.length === 0 ? (a.length ? 1 : 0) : levenshtein(a, b) / b.length;
}
