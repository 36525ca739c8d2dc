// The words a page's header is made of beyond names (company legal forms of many countries, the
// words of postal addresses), and a last pass over the first rows of an OCR'd page that mends a word
// read one or two letters off one of them ("SON BHD" → "SDN BHD", "KAHASAN" → "KAWASAN", "SDN BH)"
// → "SDN BHD"). A receipt's or letter's issuer and address are its first rows, and one misread
// letter there makes the key field wrong. The pass only replaces letters (no letter added or
// dropped: "ENTERPRISES" stays plural), mends a word only when exactly one known word is within
// reach, a short word (≤ 5 letters) only by letters OCR confuses (O/D, I/L, H/M …), a legal form
// only where one stands (after a name, last on its row or before another form or a registration
// number), and never into a word already on the row. Then shapes a row itself tells (mendRowShapes:
// "SDN BELD" → "SDN BHD", "5/8" → "S/B", "D.1.¥." → "D.I.Y.", "BRD FLR" → "3RD FLR") and a name printed
// twice in the header, read two ways, by its sure reading (mendRepeatedWords: "Tampai" → "Tampoi").
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
const REGISTRATION = /^[([{]?[\p{L}]{0,3}[-.:]?\d[\d\p{L}-]*[)\]]?[.,]?$/u;

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
  const now = (w: OcrWord) => (mended.get(w) ?? w).text;
  const fix = (w: OcrWord, text: string) => {
    if (text === now(w)) return;
    // A word mended twice is reported once, from its first reading to its last.
    const earlier = mended.has(w) ? fixes.findIndex((f) => f.from === w.text && f.to === now(w)) : -1;
    if (earlier >= 0) fixes.splice(earlier, 1);
    mended.set(w, { ...w, text });
    fixes.push({ from: w.text, to: text, page: pageNumber });
  };
  for (const row of rows) mendRowShapes(row.words, now, fix);
  mendRepeatedWords(
    rows.flatMap((r) => r.words),
    now,
    fix,
  );
  return { words: words.map((w) => mended.get(w) ?? w), fixes };
}

/** The second word of a two-word legal form, after its first: "SDN BHD", "PTE LTD". */
const FORM_PAIRS: Record<string, string> = { SDN: 'BHD', PTE: 'LTD', PVT: 'LTD', PTY: 'LTD' };
/** Characters OCR reads for letters in print, as the letters. */
const LETTER_FOR: Record<string, string> = { '1': 'I', '|': 'I', '0': 'O', '5': 'S', $: 'S', '8': 'B', '¥': 'Y' };
/** Characters OCR reads for digits in print, as the digits they may be. */
const DIGITS_FOR: Record<string, string[]> = {
  I: ['1'],
  L: ['1'],
  '|': ['1'],
  Z: ['2'],
  B: ['3', '8'],
  S: ['5'],
  G: ['6'],
  O: ['0'],
  Q: ['0'],
};
/** Titles printed before a person's initials in a name ("MR. D.I.Y."). */
const TITLES = ['MR', 'MRS', 'MS', 'DR', 'PROF'];
/** Words for a floor of a building, after its ordinal: "3RD FLR". */
const FLOOR_WORD = /^(FLR|FLOOR|FL|LEVEL|LVL|LANTAI|TINGKAT)$/;

/** The ordinal suffix a number takes: 1ST, 2ND, 3RD, 4TH, 11TH. */
function ordinalSuffix(n: number): string {
  if (n % 100 >= 11 && n % 100 <= 13) return 'TH';
  return ['TH', 'ST', 'ND', 'RD'][n % 10] ?? 'TH';
}

/**
 * `core` is the form `form` with one letter lost ("BH"), or with one letter too many and at most one
 * other replaced by a letter OCR confuses with it ("BELD": BED, E for H).
 */
function secondFormOf(core: string, form: string): boolean {
  if (core.length === form.length - 1) return oneDropped(core, form);
  if (core.length !== form.length + 1) return false;
  for (let i = 0; i < core.length; i++) {
    const c = core.slice(0, i) + core.slice(i + 1);
    const diff = [...c].filter((x, k) => x !== form[k]);
    if (diff.length === 0) return true;
    const k = [...c].findIndex((x, j) => x !== form[j]);
    if (diff.length === 1 && CONFUSABLE.has(c[k]! + form[k]!)) return true;
  }
  return false;
}

/**
 * Shapes of a header row whose misread characters the row itself tells: the second word of a
 * two-word legal form misread after its first ("SDN BELD", "SDN. BH." → BHD), "S/B" read with
 * digits ("5/8"), a company's dotted initials read with digits or signs ("D.1.¥." → "D.I.Y.") on a
 * row that names a company, a floor's ordinal read with letters ("BRD FLR" → "3RD FLR": only one
 * digit makes an "RD" ordinal), a title before initials ("WR. D.I.Y." → "MR."), an ampersand
 * between two unit numbers read as 8 ("31G833G"), and a cent sign after no figure ("NO.4 ¢& 6": a
 * stray mark).
 */
function mendRowShapes(ws: OcrWord[], now: (w: OcrWord) => string, fix: (w: OcrWord, text: string) => void): void {
  const texts = () => ws.map(now);
  const standsHere = (i: number) => {
    const next = ws[i + 1] ? now(ws[i + 1]!) : undefined;
    return !next || LEGAL_FORMS.has(bare(next)) || REGISTRATION.test(next);
  };
  const afterName = (i: number) =>
    texts()
      .slice(0, i)
      .some((t) => /\p{L}{2,}/u.test(t) && !LEGAL_FORMS.has(bare(t)));
  ws.forEach((w, i) => {
    const t = now(w);
    // The second word of a legal form after its first, its first letter right and a letter lost
    // ("SDN. BH.") or one too many ("SDN BELD": BED, E for H); same-length misreadings are the
    // known-word pass's.
    const second = i > 0 ? FORM_PAIRS[bare(now(ws[i - 1]!))] : undefined;
    const m = /^([^\p{L}\p{N}]*)(\p{L}{2,4})([^\p{L}\p{N}]*)$/u.exec(t);
    if (second && m && afterName(i - 1) && standsHere(i)) {
      const core = m[2]!.toUpperCase();
      if (!KNOWN_WORDS.has(core) && core[0] === second[0] && secondFormOf(core, second))
        fix(w, `${m[1]}${inCaseOf(m[2]!, second)}${m[3]}`);
    }
    // "S/B" (Sendirian Berhad) read with digits for its letters.
    const sb = /^([^\p{L}\p{N}]*)([5S])\/([8B])([^\p{L}\p{N}]*)$/u.exec(t);
    if (sb && `${sb[2]}${sb[3]}` !== 'SB' && afterName(i) && standsHere(i)) fix(w, `${sb[1]}S/B${sb[4]}`);
  });
  // Dotted initials in a company's name ("MR. D.1.¥. (M) SDN BHD"): each a letter.
  if (texts().some((t) => LEGAL_FORMS.has(bare(t)) || /^S\/B\W*$/i.test(t)))
    ws.forEach((w) => {
      const t = now(w);
      if (!/^(?:[\p{L}\d|$¥]\.){2,}$/u.test(t) || !/\p{L}/u.test(t) || !/[\d|$¥]/u.test(t)) return;
      fix(
        w,
        t.replace(/[\d|$¥](?=\.)/gu, (c) => LETTER_FOR[c] ?? c),
      );
    });
  // A title before initials, a letter misread ("WR. D.I.Y." → "MR."): the one title a letter OCR
  // confuses away.
  ws.forEach((w, i) => {
    const m = /^(\p{L}{2,3})\.$/u.exec(now(w));
    const next = ws[i + 1] ? now(ws[i + 1]!) : '';
    if (!m || !/^(?:\p{L}\.){2,}$/u.test(next) || TITLES.includes(m[1]!.toUpperCase())) return;
    const core = m[1]!.toUpperCase();
    const near = TITLES.filter(
      (k) =>
        k.length === core.length &&
        [...k].filter((c, j) => c !== core[j]).length === 1 &&
        [...k].every((c, j) => c === core[j] || CONFUSABLE.has(core[j]! + c)),
    );
    if (near.length === 1) fix(w, `${inCaseOf(m[1]!, near[0]!)}.`);
  });
  ws.forEach((w, i) => {
    const t = now(w);
    // A floor's ordinal: the digits the letters may be that make the suffix right, when only one does.
    const o = /^([^\p{L}\p{N}]*)([\p{L}\d|]{1,2})(ST|ND|RD|TH)([^\p{L}\p{N}]*)$/iu.exec(t);
    const next = ws[i + 1] ? bare(now(ws[i + 1]!)) : '';
    if (o && /[^\d]/.test(o[2]!) && FLOOR_WORD.test(next)) {
      let options = [''];
      for (const c of o[2]!.toUpperCase()) {
        const ds = /\d/.test(c) ? [c] : (DIGITS_FOR[c] ?? []);
        options = options.flatMap((p) => ds.map((d) => p + d));
      }
      const fits = options.filter((d) => ordinalSuffix(Number(d)) === o[3]!.toUpperCase() && !/^0/.test(d));
      if (fits.length === 1) fix(w, `${o[1]}${fits[0]}${o[3]}${o[4]}`);
    }
    // Two unit numbers of one shape joined by an ampersand read as 8 ("31G833G": 31G & 33G, the
    // second the higher): no unit number has a letter between two runs of figures and ends in it again.
    const r = /^([^\p{L}\p{N}]*)(\d{1,4})(\p{Lu})8(\d{1,4})(\p{Lu})([^\p{L}\p{N}]*)$/u.exec(t);
    if (r && r[3] === r[5] && Number(r[4]) > Number(r[2])) fix(w, `${r[1]}${r[2]}${r[3]}&${r[4]}${r[5]}${r[6]}`);
    // A cent sign after no figure is a stray mark: "¢&" → "&".
    if (/¢/.test(t) && t.replace(/(?<!\d)¢/g, '') !== t && t.replace(/(?<!\d)¢/g, ''))
      fix(w, t.replace(/(?<!\d)¢/g, ''));
  });
}

/** The surest reading a repeated word needs to mend its other readings. */
const SURE = 85;
/**
 * Two words printed at about the same size (heights within 1.3×): confidences of readings at
 * different sizes do not compare (a letterhead's decorative letter is read wrong at 96, the
 * same word in small print right at 92).
 */
const sameSize = (a: OcrWord, b: OcrWord) => {
  const ha = a.y1 - a.y0,
    hb = b.y1 - b.y0;
  return Math.max(ha, hb) <= 1.3 * Math.min(ha, hb);
};

/**
 * A place or street name printed twice in the header ("Jalan Tampoi 7/4, Kawasan Perindustrian
 * Tampai"): where two readings of five letters or more differ by one letter, neither a known word,
 * the one read with doubt takes the other's letters when the other was read surely (confidence ≥ 85)
 * and more surely than it, at about the same size. Words glued to figures or marks
 * ("Tampai,81200") count by their letters.
 */
function mendRepeatedWords(ws: OcrWord[], now: (w: OcrWord) => string, fix: (w: OcrWord, text: string) => void): void {
  const runs = ws.flatMap((w) =>
    [...now(w).matchAll(/\p{L}{5,}/gu)].map((m) => ({ w, text: m[0], at: m.index!, upper: m[0].toUpperCase() })),
  );
  const oneOff = (a: string, b: string) => a.length === b.length && [...a].filter((c, i) => c !== b[i]).length === 1;
  for (const r of runs) {
    if (KNOWN_WORDS.has(r.upper)) continue;
    const sure = runs.filter(
      (o) =>
        o.w !== r.w &&
        o.w.conf >= SURE &&
        o.w.conf > r.w.conf &&
        sameSize(o.w, r.w) &&
        oneOff(o.upper, r.upper) &&
        !KNOWN_WORDS.has(o.upper),
    );
    const readings = new Set(sure.map((o) => o.upper));
    if (readings.size !== 1) continue; // none, or two different surer readings: no telling which
    const t = now(r.w);
    if (t.slice(r.at, r.at + r.text.length) !== r.text) continue;
    fix(r.w, t.slice(0, r.at) + inCaseOf(r.text, sure[0]!.upper) + t.slice(r.at + r.text.length));
  }
}
