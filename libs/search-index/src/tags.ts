// Tags the index stores beside a segment's text so search can filter and cite without re-reading
// the bundle: years (1900-2099), quarters (Q1-Q4) and footnote markers.

// A four-digit year, optionally written FY2023, not part of a longer number or an amount
// (2,019 / 2019.50 / 120193 are not years).
const YEAR = /(?:^|[^0-9.,])(?:fy\s?)?((?:19|20)\d{2})(?![0-9]|[.,][0-9])/giu;
const QUARTER_SHORT = /(?:^|[^\p{L}\p{N}])(?:q([1-4])|([1-4])q)(?=$|[^\p{L}\p{N}]|\d{2}(?!\d)|fy)/giu;
const QUARTER_WORDS = /\b(first|second|third|fourth|1st|2nd|3rd|4th)[\s-]+quarter\b|\bquarter\s+([1-4])\b/giu;
const ORDINAL: Record<string, string> = {
  first: '1',
  '1st': '1',
  second: '2',
  '2nd': '2',
  third: '3',
  '3rd': '3',
  fourth: '4',
  '4th': '4',
};

export function yearTags(text: string): number[] {
  const out = new Set<number>();
  for (const m of text.matchAll(YEAR)) out.add(Number(m[1]));
  return [...out].sort((a, b) => a - b);
}

export function quarterTags(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(QUARTER_SHORT)) out.add(`Q${m[1] ?? m[2]}`);
  for (const m of text.matchAll(QUARTER_WORDS)) out.add(`Q${m[1] ? ORDINAL[m[1].toLowerCase()] : m[2]}`);
  return [...out].sort();
}

// Markers that point at a footnote from running text: superscript digits and letters, daggers,
// markdown footnote references ([^1]) and an asterisk glued to a word or number ("Revenue*").
const NOTE_MARKERS =
  /([¹²³⁴⁵⁶⁷⁸⁹⁰]+|[ᵃᵇᶜᵈᵉ]+|[†‡]+)|\[\^([\p{L}\p{N}]{1,8})\](?!:)|(?<=[\p{L}\p{N})])(\*{1,3})(?=$|[\s,.;:)|])/gmu;

export function noteMarkers(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(NOTE_MARKERS)) out.add(m[1] ?? m[2] ?? m[3]!);
  return [...out];
}

/**
 * The marker a footnote segment starts with ("* Excludes …", "¹ Restated", "(1) …", "[^1]: …",
 * "1) …"), or null when the segment does not look like a footnote.
 */
export function footnoteMarker(markdown: string): string | null {
  const m =
    /^\s*(?:\[\^([\p{L}\p{N}]{1,8})\]:|\(([\p{L}\p{N}]{1,3})\)|([¹²³⁴⁵⁶⁷⁸⁹⁰]+|[ᵃᵇᶜᵈᵉ]+|[†‡]+|\*{1,3})|(\d{1,2})\))\s+\S/u.exec(
      markdown,
    );
  if (!m) return null;
  if (m[1]) return m[1];
  if (m[2]) return `(${m[2]})`;
  return m[3] ?? m[4] ?? null;
}

/** Does a footnote starting with `marker` explain a reference written as `ref`? */
export function markerMatches(ref: string, marker: string): boolean {
  if (ref === marker) return true;
  const bare = (s: string) => s.replace(/^\((.*)\)$/, '$1');
  const sup: Record<string, string> = {
    '¹': '1',
    '²': '2',
    '³': '3',
    '⁴': '4',
    '⁵': '5',
    '⁶': '6',
    '⁷': '7',
    '⁸': '8',
    '⁹': '9',
    '⁰': '0',
    ᵃ: 'a',
    ᵇ: 'b',
    ᶜ: 'c',
    ᵈ: 'd',
    ᵉ: 'e',
  };
  const plain = (s: string) => [...bare(s)].map((c) => sup[c] ?? c).join('');
  return plain(ref) === plain(marker);
}
