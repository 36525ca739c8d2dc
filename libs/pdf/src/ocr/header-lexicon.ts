// The words a page's header is made of beyond names (company legal forms of many countries, the
// words of postal addresses), and a last pass over the first rows of an OCR'd page that mends a word
// read one or two letters off one of them ("SON BHD" → "SDN BHD", "KAHASAN" → "KAWASAN", "SDN BH)"
// → "SDN BHD"). A receipt's or letter's issuer and address are its first rows, and one misread
// letter there makes the key field wrong. The pass only replaces letters (no letter added or
// dropped: "ENTERPRISES" stays plural), mends a word only when exactly one known word is within
// reach, a short word (≤ 5 letters) only by letters OCR confuses (O/D, I/L, H/M …), a legal form
// only where one stands (after a name, last on its row or before another form or a registration
// number), and never into a word already on the row.
import { ocrRows } from './ocr-layout';
import type { OcrWord } from './recognise';

/** Company legal forms (and the words of them) in many countries. */
export const LEGAL_FORMS = new Set(
  (
    'SDN BHD BERHAD SENDIRIAN PLT LTD LIMITED PLC PTE PVT PTY LLC LLP LP INC INCORPORATED CORP CORPORATION CO ' +
    'COMPANY GMBH MBH AG KG KGAA OHG UG SARL SAS SASU EURL SA SNC BV NV VOF SPA SRL SAPA SL SLU SAU OY OYJ AB ' +
    'ASA AS APS KFT ZRT SRO TBK CV PT PJSC JSC OOO'
  ).split(/\s+/),
);

/**
 * Words a page's header is made of beyond names: legal forms of companies in many countries, the
 * words of postal addresses (street types, building parts, districts) and states and cities
 * named on many addresses. A word read as one of these at one size and as something else at
 * another is that word misread (header-reread.ts); a word a letter or two off one of them in the
 * first rows is that word misread (mendHeaderWords).
 */
export const KNOWN_WORDS = new Set([
  ...LEGAL_FORMS,
  ...// Trade words of company names.
  (
    'ENTERPRISE ENTERPRISES TRADING HOLDINGS INDUSTRIES INTERNATIONAL MARKETING SERVICES SUPPLY ' +
    // Street and place words (English, Malay/Indonesian, French, Spanish, Portuguese, Italian,
    // German, Dutch, Indian, Thai, Filipino).
    'STREET ST ROAD RD AVENUE AVE LANE LN DRIVE DR BOULEVARD BLVD HIGHWAY SQUARE PLAZA BUILDING BLDG BLOCK BLK ' +
    'FLOOR FLR LEVEL UNIT SUITE LOT NO JALAN JLN LORONG LRG PERSIARAN TAMAN TMN KAMPUNG KG BANDAR BUKIT ' +
    'KAWASAN PERINDUSTRIAN SEKSYEN SECTION INDUSTRIAL PARK CENTRE CENTER MALL COMPLEX GROUND ' +
    'LAMAN SERI INDAH UTAMA PERUMAHAN PUSAT PERDAGANGAN MEDAN DESA WISMA MENARA BANGUNAN TINGKAT GEDUNG KOMPLEKS RUKO JL ' +
    'COURT CRESCENT TERRACE CLOSE PARADE GARDENS ESTATE HOUSE TOWER COMMERCIAL BUSINESS APARTMENT ' +
    'RUE ROUTE AUTOROUTE AVENIDA CALLE CARRERA PASEO RUA STRASSE STRAßE PLATZ ALLEE GASSE WEG STRAAT PLEIN ' +
    'VIA VIALE PIAZZA CORSO CHEMIN IMPASSE PLACE QUAI NAGAR MARG COLONY SECTOR SOI THANON BARANGAY ' +
    // States and federal territories, cities named on many addresses.
    'SELANGOR JOHOR KEDAH KELANTAN MELAKA MALACCA PAHANG PERAK PERLIS PENANG SABAH SARAWAK TERENGGANU ' +
    'KUALA LUMPUR PUTRAJAYA LABUAN SHAH ALAM PETALING JAYA SUBANG KLANG BAHRU DARUL EHSAN TAKZIM ' +
    'SINGAPORE MALAYSIA'
  ).split(/\s+/),
]);

/** How many of a page's first rows are mended. */
export const LEXICON_ROWS = 8;

/** A word the pass mended, as the OCR report lists it. */
export interface LexiconFix {
  from: string;
  to: string;
  page: number;
}

/** Letters OCR confuses in print (either way): the only replacements allowed in a short word. */
const CONFUSABLE = new Set(
  [
    'OD',
    'OQ',
    'OC',
    'OU',
    'DB',
    'IL',
    'IJ',
    'IT',
    'LT',
    'HM',
    'HN',
    'MN',
    'MW',
    'HW',

    'UV',
    'EF',
    'EH',
    'BE',
    'CG',
    'RB',
    'PR',
  ].flatMap((p) => [p, p[1]! + p[0]!]),
);
/** Letters of words this long or shorter are replaced only by letters OCR confuses. */
const SHORT = 5;
/** The fewest letters a word needs to be mended (two-letter words are too many things). */
const MIN_LETTERS = 3;

/** Known words by length: a word is compared only with words as long as it (letters are replaced only). */
const BY_LENGTH = new Map<number, string[]>();
for (const k of KNOWN_WORDS) {
  if (!/^\p{Lu}+$/u.test(k)) continue;
  BY_LENGTH.set(k.length, [...(BY_LENGTH.get(k.length) ?? []), k]);
}

/** Letters a word of `n` letters may have replaced. */
const reach = (n: number) => (n >= 9 ? 2 : 1);

/** `short` is `long` with one letter dropped. */
function oneDropped(short: string, long: string): boolean {
  for (let i = 0; i < long.length; i++) if (long.slice(0, i) + long.slice(i + 1) === short) return true;
  return false;
}

/** The known word `core` (upper case letters) is a misreading of, when exactly one is within reach. */
function knownWordFor(core: string): string | undefined {
  // A known word with a letter dropped ("ALAN" of "JALAN") may be that word, its letter lost: no
  // telling which.
  if ((BY_LENGTH.get(core.length + 1) ?? []).some((k) => oneDropped(core, k))) return undefined;
  const found: string[] = [];
  for (const k of BY_LENGTH.get(core.length) ?? []) {
    let diff = 0;
    let ok = true;
    for (let i = 0; i < k.length && ok; i++) {
      if (k[i] === core[i]) continue;
      diff++;
      if (diff > reach(core.length) || (core.length <= SHORT && !CONFUSABLE.has(core[i]! + k[i]!))) ok = false;
    }
    if (ok && diff > 0) found.push(k);
    if (found.length > 1) return undefined; // within reach of two known words: no telling which
  }
  return found[0];
}

/** `to` in the case `from` was written in (upper, title or lower). */
function inCaseOf(from: string, to: string): string {
  if (from === from.toUpperCase()) return to;
  if (from === from.toLowerCase()) return to.toLowerCase();
  return to[0]! + to.slice(1).toLowerCase();
}

const bare = (t: string) => t.toUpperCase().replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
/** A registration number after a legal form: "(123456-X)", "123456-X", "No. 1234". */
const REGISTRATION = /^[([]?[\p{L}]{0,3}[-.:]?\d[\d\p{L}-]*[)\]]?[.,]?$/u;

/**
 * The first LEXICON_ROWS rows of `words` with words a letter or two off one known word mended (see
 * the file's comment); the other words as they were, in their order. Returns the words and what
 * was mended.
 */
export function mendHeaderWords(words: OcrWord[], pageNumber: number): { words: OcrWord[]; fixes: LexiconFix[] } {
  const rows = ocrRows(words)
    .sort((a, b) => a.y0 - b.y0)
    .slice(0, LEXICON_ROWS);
  const mended = new Map<OcrWord, OcrWord>();
  const fixes: LexiconFix[] = [];
  for (const row of rows) {
    const ws = row.words;
    const onRow = new Set(ws.map((w) => bare(w.text)));
    // Each word's proposed known word (with what it is written as), then the guards that need the
    // row's other words as mended.
    const proposed = ws.map((w, i) => {
      const m = /^([^\p{L}\p{N}]*)(\p{L}+)([^\p{L}\p{N}]*)$/u.exec(w.text);
      if (!m) return undefined;
      let [, lead, core, tail] = m as unknown as [string, string, string, string];
      // A closing bracket no bracket opened on the row before it is a misread D ("SDN BH)").
      if (
        tail.startsWith(')') &&
        !/\(/.test(
          ws
            .slice(0, i)
            .map((o) => o.text)
            .join(' ') + lead,
        )
      ) {
        const withD = (core + 'D').toUpperCase();
        if (KNOWN_WORDS.has(withD) && !KNOWN_WORDS.has(core.toUpperCase()))
          return { text: `${lead}${inCaseOf(core, withD)}${tail.slice(1)}`, known: withD };
      }
      const upper = core.toUpperCase();
      if (core.length < MIN_LETTERS || KNOWN_WORDS.has(upper)) return undefined;
      const k = knownWordFor(upper);
      return k ? { text: `${lead}${inCaseOf(core, k)}${tail}`, known: k } : undefined;
    });
    const isForm = (i: number) => LEGAL_FORMS.has(proposed[i]?.known ?? bare(ws[i]?.text ?? ''));
    proposed.forEach((p, i) => {
      if (!p) return;
      // Never into a word already on the row ("SDN SDN").
      if (onRow.has(p.known)) return;
      if (LEGAL_FORMS.has(p.known)) {
        // A legal form stands after a name, last on its row or before another form or a registration number.
        const afterName = ws.slice(0, i).some((o) => /\p{L}/u.test(o.text));
        const next = ws[i + 1];
        const standsHere = !next || isForm(i + 1) || REGISTRATION.test(next.text);
        if (!afterName || !standsHere) return;
      }
      mended.set(ws[i]!, { ...ws[i]!, text: p.text });
      fixes.push({ from: ws[i]!.text, to: p.text, page: pageNumber });
    });
  }
  return { words: words.map((w) => mended.get(w) ?? w), fixes };
}
