// pdf.js's own bidi pass over a text item (pdfjs-dist 5.4.296, src/core/bidi.js `bidi()`, and the
// `normalizeUnicode` it runs after), ported step for step so that its output can be predicted from
// the glyphs a page draws, together with the same pass repaired in two places:
// - rule N1 reads the strong type one character past the end of a neutral run (`types[end + 1]`
//   where UAX #9 means `types[end]`), so a neutral between two left-to-right letters of which the
//   second is followed by a neutral resolves to right to left inside a right-to-left item: the
//   segments of "https://a.b/c" or "a@b.co" come out in reverse order ("c/b.a//:https"), "x>y" as
//   "yx", "a < b" as "b  a";
// - every "<" and ">" is deleted at the end. Repaired, they stay, mirrored (rule L4) where they
//   resolve to right to left: the glyph drawn as "<" is ">" in logical order.
// Everything else (character classes, rules W1-W7, the item's direction from its share of
// right-to-left characters) is pdf.js's, so the repaired text differs from what pdf.js gives only
// by those two defects, and the text-layer fixes that run after it (brackets, lam-alef) still apply.

type BidiType = string;

// prettier-ignore
const BASE_TYPES: BidiType[] = ['BN','BN','BN','BN','BN','BN','BN','BN','BN','S','B','S','WS','B','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','B','B','B','S','WS','ON','ON','ET','ET','ET','ON','ON','ON','ON','ON','ES','CS','ES','CS','CS','EN','EN','EN','EN','EN','EN','EN','EN','EN','EN','CS','ON','ON','ON','ON','ON','ON','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','ON','ON','ON','ON','ON','ON','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','ON','ON','ON','ON','BN','BN','BN','BN','BN','BN','B','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','BN','CS','ON','ET','ET','ET','ET','ON','ON','ON','ON','L','ON','ON','BN','ON','ON','ET','ET','EN','EN','ON','L','ON','ON','ON','EN','L','ON','ON','ON','ON','ON','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','ON','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','L','ON','L','L','L','L','L','L','L','L'];
// prettier-ignore
const ARABIC_TYPES: BidiType[] = ['AN','AN','AN','AN','AN','AN','ON','ON','AL','ET','ET','AL','CS','AL','ON','ON','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','AL','AL','','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','NSM','AN','AN','AN','AN','AN','AN','AN','AN','AN','AN','ET','AN','AN','AL','AL','AL','NSM','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','AL','NSM','NSM','NSM','NSM','NSM','NSM','NSM','AN','ON','NSM','NSM','NSM','NSM','NSM','NSM','AL','AL','NSM','NSM','ON','NSM','NSM','NSM','NSM','AL','AL','EN','EN','EN','EN','EN','EN','EN','EN','EN','EN','AL','AL','AL','AL','AL','AL'];

// pdf.js's normalizeUnicode (src/shared/util.js): NFKC for these ranges, "ſt" for U+FB05.
// prettier-ignore
const NORMALIZE = /([\u00a0\u00b5\u037e\u0eb3\u2000-\u200a\u202f\u2126\ufb00-\ufb04\ufb06\ufb20-\ufb36\ufb38-\ufb3c\ufb3e\ufb40-\ufb41\ufb43-\ufb44\ufb46-\ufba1\ufba4-\ufba9\ufbae-\ufbb1\ufbd3-\ufbdc\ufbde-\ufbe7\ufbea-\ufbf8\ufbfc-\ufbfd\ufc00-\ufc5d\ufc64-\ufcf1\ufcf5-\ufd3d\ufd88\ufdf4\ufdfa-\ufdfb\ufe71\ufe77\ufe79\ufe7b\ufe7d]+)|(\ufb05+)/gu;
export const pdfjsNormalizeUnicode = (s: string): string =>
  s.replace(NORMALIZE, (_, p1: string | undefined, p2: string | undefined) =>
    p1 ? p1.normalize('NFKC') : 'ſt'.repeat([...(p2 ?? '')].length),
  );

/** Whether pdf.js's pass changes anything in `str`: it returns early unless a character is R, AL or AN. */
export function hasBidiCharacters(str: string): boolean {
  for (let i = 0; i < str.length; i++) {
    const c = str.charCodeAt(i);
    if (c < 0x0590) continue;
    if (c <= 0x05f4) return true;
    if (c >= 0x0600 && c <= 0x06ff) {
      const t = ARABIC_TYPES[c & 0xff];
      if (t === 'AL' || t === 'AN') return true;
    } else if ((c >= 0x0700 && c <= 0x08ac) || (c >= 0xfb50 && c <= 0xfdff) || (c >= 0xfe70 && c <= 0xfeff))
      return true;
  }
  return false;
}

const MIRROR_SIGN: Record<string, string> = { '<': '>', '>': '<' };

/**
 * The text pdf.js makes of an item whose characters, joined as drawn, are `str` (`repaired`
 * false: exactly pdf.js's output), or what it makes with its two defects repaired (`repaired` true).
 */
export function pdfjsBidi(str: string, repaired: boolean): { str: string; dir: 'ltr' | 'rtl' } {
  const n = str.length;
  if (n === 0) return { str, dir: 'ltr' };
  const chars: string[] = new Array(n);
  const types: BidiType[] = new Array(n);
  let numBidi = 0;
  for (let i = 0; i < n; i++) {
    chars[i] = str.charAt(i);
    const code = str.charCodeAt(i);
    let t: BidiType = 'L';
    if (code <= 0xff) t = BASE_TYPES[code]!;
    else if (code >= 0x0590 && code <= 0x05f4) t = 'R';
    else if (code >= 0x0600 && code <= 0x06ff) t = ARABIC_TYPES[code & 0xff]!;
    else if (
      (code >= 0x0700 && code <= 0x08ac) ||
      (code >= 0xfb50 && code <= 0xfdff) ||
      (code >= 0xfe70 && code <= 0xfeff)
    )
      t = 'AL';
    if (t === 'R' || t === 'AL' || t === 'AN') numBidi++;
    types[i] = t;
  }
  if (numBidi === 0) return { str, dir: 'ltr' };
  const ltr = numBidi / n < 0.3 && n > 4;
  const startLevel = ltr ? 0 : 1;
  const levels: number[] = new Array(n).fill(startLevel);
  const e = startLevel & 1 ? 'R' : 'L';
  const sor = e,
    eor = e;
  let last: BidiType = sor;
  for (let i = 0; i < n; i++) {
    if (types[i] === 'NSM') types[i] = last;
    else last = types[i]!;
  }
  last = sor;
  for (let i = 0; i < n; i++) {
    const t = types[i];
    if (t === 'EN') types[i] = last === 'AL' ? 'AN' : 'EN';
    else if (t === 'R' || t === 'L' || t === 'AL') last = t;
  }
  for (let i = 0; i < n; i++) if (types[i] === 'AL') types[i] = 'R';
  for (let i = 1; i < n - 1; i++) {
    if (types[i] === 'ES' && types[i - 1] === 'EN' && types[i + 1] === 'EN') types[i] = 'EN';
    if (types[i] === 'CS' && (types[i - 1] === 'EN' || types[i - 1] === 'AN') && types[i + 1] === types[i - 1])
      types[i] = types[i - 1]!;
  }
  for (let i = 0; i < n; i++) {
    if (types[i] !== 'EN') continue;
    for (let j = i - 1; j >= 0 && types[j] === 'ET'; j--) types[j] = 'EN';
    for (let j = i + 1; j < n && types[j] === 'ET'; j++) types[j] = 'EN';
  }
  for (let i = 0; i < n; i++) {
    const t = types[i];
    if (t === 'WS' || t === 'ES' || t === 'ET' || t === 'CS') types[i] = 'ON';
  }
  last = sor;
  for (let i = 0; i < n; i++) {
    const t = types[i];
    if (t === 'EN') types[i] = last === 'L' ? 'L' : 'EN';
    else if (t === 'R' || t === 'L') last = t;
  }
  for (let i = 0; i < n; i++) {
    if (types[i] !== 'ON') continue;
    let end = i + 1;
    while (end < n && types[end] === 'ON') end++;
    let before = i > 0 ? types[i - 1]! : sor;
    // pdf.js: `end + 1 < strLength ? types[end + 1]`; the first type after the run is types[end].
    const at = repaired ? end : end + 1;
    let after = at < n ? types[at]! : eor;
    if (before !== 'L') before = 'R';
    if (after !== 'L') after = 'R';
    if (before === after) types.fill(before, i, end);
    i = end - 1;
  }
  for (let i = 0; i < n; i++) if (types[i] === 'ON') types[i] = e;
  for (let i = 0; i < n; i++) {
    const t = types[i];
    if ((levels[i]! & 1) === 0) {
      if (t === 'R') levels[i]! += 1;
      else if (t === 'AN' || t === 'EN') levels[i]! += 2;
    } else if (t === 'L' || t === 'AN' || t === 'EN') levels[i]! += 1;
  }
  // Rule L4 (repaired only, and only for the signs pdf.js would delete).
  if (repaired)
    for (let i = 0; i < n; i++) if (levels[i]! & 1 && MIRROR_SIGN[chars[i]!]) chars[i] = MIRROR_SIGN[chars[i]!]!;
  let highest = -1,
    lowestOdd = 99;
  for (const l of levels) {
    if (l > highest) highest = l;
    if (l & 1 && l < lowestOdd) lowestOdd = l;
  }
  for (let level = highest; level >= lowestOdd; level--) {
    let start = -1;
    for (let i = 0; i < n; i++) {
      if (levels[i]! < level) {
        if (start >= 0) {
          reverse(chars, start, i);
          start = -1;
        }
      } else if (start < 0) start = i;
    }
    if (start >= 0) reverse(chars, start, n);
  }
  if (!repaired) for (let i = 0; i < n; i++) if (chars[i] === '<' || chars[i] === '>') chars[i] = '';
  return { str: chars.join(''), dir: ltr ? 'ltr' : 'rtl' };
}

function reverse(a: string[], start: number, end: number): void {
  for (let i = start, j = end - 1; i < j; i++, j--) {
    const t = a[i]!;
    a[i] = a[j]!;
    a[j] = t;
  }
}
