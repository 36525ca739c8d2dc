// A name a page prints more than once, read two ways: the header's reading gives way to the spelling
// the page's other mentions agree on. A shop's name stands in its letterhead in large, often
// decorative type, and again in small print lower down (the owner's line, a web or social-media
// handle, "thank you for shopping at …"); Tesseract can read the letterhead's decorative letter
// wrong at high confidence (SROIE's "SANYU STATIONERY SHOP" read "SANYO" at 86–96 on six receipts,
// the same word read "SANYU" in the owner's line and "Sanyu.Stationery" in the footer on each).
// Confidences of readings at different print sizes do not compare (header-lexicon.ts's same-size
// guard), so here the mentions are counted instead: a letterhead word mends only when two other
// readings on the page, each read surely, agree on a spelling one letter off it, and that spelling
// outnumbers the word's own. And a letterhead phrase printed again lower down ("ENW Hardwawre
// Centre" over "Thank you for shopping at ENW Hardware Centre"): a doubtful word takes the surer
// reading between the same two neighbours (mendEchoedWords). The mended text is the page's text,
// so a value the extractor takes from the header is cited from the header as mended (the page
// report lists every mend in `lexicon`).
import { levenshtein } from '../edit-distance';
import { KNOWN_WORDS, LEXICON_ROWS, type LexiconFix } from './header-lexicon';
import { ocrRows, type OcrRow } from './ocr-layout';
import type { OcrWord } from './recognise';

/** Confidence each agreeing mention needs. */
const SURE = 85;
/** Mentions that must agree, apart from the word mended. */
const AGREEING = 2;
/** Names shorter than this are too many things ("MAYA"/"MAYO"). */
const MIN_LETTERS = 5;

interface Run {
  w: OcrWord;
  /** The run of letters as read, its offset in the word, upper-cased. */
  text: string;
  at: number;
  upper: string;
}

const oneLetterOff = (a: string, b: string) =>
  a.length === b.length && [...a].filter((c, i) => c !== b[i]).length === 1;
const bare = (t: string) => t.toUpperCase().replace(/[^\p{L}\p{N}]/gu, '');

function caseLike(from: string, to: string): string {
  if (from === from.toUpperCase()) return to;
  if (from === from.toLowerCase()) return to.toLowerCase();
  return to[0]! + to.slice(1).toLowerCase();
}

/**
 * Words of the page's first rows (a letterhead) that a name read one letter off elsewhere on the
 * page outvotes; every mend returned as a fix. Known words (legal forms, address words) are never
 * mended nor mend.
 */
export function mendNamesByVote(words: OcrWord[], pageNumber: number): { words: OcrWord[]; fixes: LexiconFix[] } {
  const rows = ocrRows(words).sort((a, b) => a.y0 - b.y0);
  const header = new Set(rows.slice(0, LEXICON_ROWS).flatMap((r) => r.words));
  const runs: Run[] = words.flatMap((w) =>
    [...w.text.matchAll(new RegExp(`\\p{L}{${MIN_LETTERS},}`, 'gu'))].map((m) => ({
      w,
      text: m[0],
      at: m.index!,
      upper: m[0].toUpperCase(),
    })),
  );
  const mended = new Map<OcrWord, string>();
  const fixes: LexiconFix[] = [];
  for (const r of runs) {
    if (!header.has(r.w) || KNOWN_WORDS.has(r.upper)) continue;
    const same = runs.filter((o) => o.upper === r.upper).length;
    const votes = new Map<string, number>();
    for (const o of runs)
      if (o.w !== r.w && o.w.conf >= SURE && oneLetterOff(o.upper, r.upper) && !KNOWN_WORDS.has(o.upper))
        votes.set(o.upper, (votes.get(o.upper) ?? 0) + 1);
    const winners = [...votes].filter(([, n]) => n >= AGREEING && n > same);
    if (winners.length !== 1) continue; // no spelling outvotes it, or two do: no telling which
    const t = mended.get(r.w) ?? r.w.text;
    const text = t.slice(0, r.at) + caseLike(r.text, winners[0]![0]) + t.slice(r.at + r.text.length);
    mended.set(r.w, text);
  }
  mendEchoedWords(rows, header, mended);
  for (const [w, text] of mended) fixes.push({ from: w.text, to: text, page: pageNumber });
  return { words: words.map((w) => (mended.has(w) ? { ...w, text: mended.get(w)! } : w)), fixes };
}

/**
 * A letterhead phrase printed again lower down ("ENW Hardwawre Centre (M) Sdn. Bhd." over "Thank
 * you for shopping at / ENW Hardware Centre (M) Sdn shd"): a letterhead word between two words that
 * stand around a word one letter off it (replaced, added or dropped) elsewhere on the page, that
 * word read surely (≥ 85) and more surely than it, takes that reading. Both neighbours must read
 * alike: one phrase read twice, not two names that share a word.
 */
function mendEchoedWords(rows: OcrRow[], header: Set<OcrWord>, mended: Map<OcrWord, string>): void {
  const around = rows.flatMap((r) =>
    r.words.flatMap((w, i) =>
      i > 0 && i < r.words.length - 1
        ? [{ w, before: bare(r.words[i - 1]!.text), after: bare(r.words[i + 1]!.text) }]
        : [],
    ),
  );
  for (const a of around) {
    if (!header.has(a.w) || mended.has(a.w) || !a.before || !a.after) continue;
    const m = /^([^\p{L}]*)(\p{L}{5,})([^\p{L}]*)$/u.exec(a.w.text);
    if (!m || KNOWN_WORDS.has(m[2]!.toUpperCase())) continue;
    const echoes = around.filter(
      (o) =>
        o.w !== a.w &&
        !header.has(o.w) &&
        o.before === a.before &&
        o.after === a.after &&
        o.w.conf >= SURE &&
        o.w.conf > a.w.conf &&
        /^\p{L}+$/u.test(o.w.text) &&
        levenshtein(o.w.text.toUpperCase(), m[2]!.toUpperCase()) === 1,
    );
    const readings = new Set(echoes.map((o) => o.w.text.toUpperCase()));
    if (readings.size !== 1) continue;
    mended.set(a.w, m[1]! + caseLike(m[2]!, echoes[0]!.w.text.toUpperCase()) + m[3]!);
  }
}
