// Text folding shared by every local task: accent-free lowercase words, so "Rechnungsdatum",
// "Numéro" and "NUMERO" compare the way a reader would compare them.
export function fold(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

export function words(s: string): string[] {
  return fold(s)
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
}

/** Collapses whitespace (parsers emit odd spacing such as "August 3 , 2014"). */
export function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

const STOP = new Set([
  'the',
  'a',
  'an',
  'of',
  'for',
  'and',
  'or',
  'to',
  'in',
  'on',
  'by',
  'with',
  'is',
  'are',
  'this',
  'that',
  'it',
  'as',
  'at',
  'be',
  'from',
  'de',
  'la',
  'le',
  'les',
  'du',
  'des',
  'der',
  'die',
  'das',
  'und',
  'het',
  'een',
  'van',
  'en',
]);

/** Content words for profiles and similarity (stop words and 1-character tokens dropped). */
export function contentWords(s: string): string[] {
  return words(s).filter((w) => w.length > 1 && !STOP.has(w) && !/^\d+$/.test(w));
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
