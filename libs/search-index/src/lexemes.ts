// The query's lexemes computed in the process, exactly as PostgreSQL's search_lexemes() computes them
// (issue 22.5: one statement less per search on the in-memory path).
//
// search_lexemes(t) (migration 20261126160000_search_bm25) is
//   to_tsvector('english', regexp_replace(t, '[^[:alnum:]]+', ' ', 'g') || ' ' ||
//     <each match of [[:alnum:]]+(?:[-/.:_@+][[:alnum:]]+)+ with its separators removed, space-joined>)
// so the parser only ever sees runs of letters and digits between spaces. For ASCII text that makes
// the default parser's token types few: letters only (asciiword: lower-cased, English stop words
// dropped, Snowball English stemmer), digits only (uint), letters and digits (numword), and digits,
// an e and digits at the start of a run (sfloat, "3e8abc" → 3e8 and abc); all but asciiword go
// through the `simple` dictionary (lower-cased as is). Anything else is left to PostgreSQL: text with
// a character outside printable ASCII (what the database's locale calls a letter, NUL), a run longer
// than MAX_RUN (PostgreSQL's 1,000-byte stemming and 2,047-byte word limits), or a text so long that
// tsvector positions saturate (LIMIT by first position would no longer be decided). `analyse` then
// returns undefined and the caller runs the statement. A test runs both over corpus texts, SciFact
// queries and edge cases; `verifyAnalyser` compares them once per process against the database's own
// function before the analyser is trusted (a changed function, configuration or stop list).

import { Prisma, queryRows, type Db } from '@docfleet/db';
import { FILLER_TEXT, MAX_TERMS, type QueryText } from './query-terms';

const MAX_RUN = 200;
const MAX_TEXT = 16_000;
const PRINTABLE_ASCII = /^[\t\n\r\x20-\x7e]*$/;
const RUN = /[A-Za-z0-9]+/g;
const COMPOUND = /[A-Za-z0-9]+(?:[-/.:_@+][A-Za-z0-9]+)+/g;
const SFLOAT = /^[0-9]+[eE][0-9]+/;

// PostgreSQL 15's tsearch_data/english.stop, the english_stem dictionary's StopWords.
const STOP = new Set(
  (
    'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her ' +
    'hers herself it its itself they them their theirs themselves what which who whom this that these ' +
    'those am is are was were be been being have has had having do does did doing a an the and but if ' +
    'or because as until while of at by for with about against between into through during before after ' +
    'above below to from up down in out on off over under again further then once here there when where ' +
    'why how all any both each few more most other some such no nor not only own same so than too very ' +
    's t can will just don should now'
  ).split(' '),
);

/**
 * search_lexemes(text) as an array of lexemes in order of first position (what
 * `unnest(...) ORDER BY positions[1]` yields), or undefined when only PostgreSQL can say.
 */
export function analyse(text: string): string[] | undefined {
  if (text.length > MAX_TEXT || !PRINTABLE_ASCII.test(text)) return undefined;
  const words: string[] = [];
  for (const m of text.matchAll(RUN)) words.push(m[0]);
  for (const m of text.matchAll(COMPOUND)) words.push(m[0].replace(/[^A-Za-z0-9]+/g, ''));
  const out: string[] = [];
  const seen = new Set<string>();
  for (const w of words) {
    if (w.length > MAX_RUN) return undefined;
    for (const lex of runLexemes(w)) {
      if (seen.has(lex)) continue;
      seen.add(lex);
      out.push(lex);
    }
  }
  return out;
}

/** The lexemes of one run of ASCII letters and digits, in order (stop words give none). */
function runLexemes(run: string): string[] {
  const out: string[] = [];
  let rest = run;
  while (rest) {
    const f = SFLOAT.exec(rest);
    if (f) {
      out.push(f[0].toLowerCase());
      rest = rest.slice(f[0].length);
      continue;
    }
    const lower = rest.toLowerCase();
    if (/^[a-z]+$/.test(lower)) {
      if (!STOP.has(lower)) out.push(stemEnglish(lower));
    } else out.push(lower);
    break;
  }
  return out;
}

/** A query's weighted lexemes (rows of queryLexemesSql: `term`, max `w`), or undefined: ask PostgreSQL. */
export function queryLexemes(query: QueryText, synonymWeight: number): Array<{ term: string; w: number }> | undefined {
  const text = analyse(query.text);
  const syn = analyse(query.synonyms);
  if (!text || !syn) return undefined;
  const w = new Map<string, number>();
  let n = 0;
  fillerLexemes ??= new Set(analyse(FILLER_TEXT) ?? []);
  for (const t of text) {
    if (fillerLexemes.has(t)) continue;
    if (n++ >= MAX_TERMS) break;
    w.set(t, 1);
  }
  for (const t of syn) w.set(t, Math.max(w.get(t) ?? -Infinity, synonymWeight));
  return [...w].map(([term, weight]) => ({ term, w: weight }));
}

let fillerLexemes: Set<string> | undefined;

// search_lexemes() as the migration defines it: the analyser above is its copy. A database whose
// function (or English configuration, or stop list: the probe) differs is answered by PostgreSQL.
const FUNCTION_SOURCE = `SELECT to_tsvector('english'::regconfig,
    regexp_replace(coalesce(t, ''), '[^[:alnum:]]+', ' ', 'g') || ' ' || coalesce((
      SELECT string_agg(regexp_replace(m[1], '[^[:alnum:]]+', '', 'g'), ' ')
      FROM regexp_matches(coalesce(t, ''), '([[:alnum:]]+(?:[-/.:_@+][[:alnum:]]+)+)', 'g') AS m), ''))`;
const PROBE =
  'The Arp2/3 complex, CK-666 and e-mail j.doe@example.org: 3e8abc 1E5 00012 x86_64 v1.2.3 ' +
  'generously communicating arsenals; dying skies, running hopped agreed relational ' +
  'hopefulness sensibilities anthropology. Yes, they were only 42% of them! ' +
  FILLER_TEXT;
const squash = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * Whether the database's search_lexemes() is the one `analyse` copies: the same definition, and the
 * same lexemes for a probe text of stop words, stems, compounds and numbers.
 */
export async function verifyAnalyser(db: Db): Promise<boolean> {
  const [row] = await queryRows<{ src: string | null; lexemes: string[] | null }>(
    db,
    Prisma.sql`SELECT
      (SELECT prosrc FROM pg_proc WHERE proname = 'search_lexemes' AND pronargs = 1
         AND pronamespace = to_regnamespace(current_schema())) AS src,
      array(SELECT l.lexeme FROM unnest(search_lexemes(${PROBE})) l ORDER BY l.positions[1]) AS lexemes`,
  );
  if (!row?.src || squash(row.src) !== squash(FUNCTION_SOURCE)) return false;
  const mine = analyse(PROBE);
  return !!mine && !!row.lexemes && mine.join(' ') === row.lexemes.join(' ');
}

// ---- Snowball English (Porter2) as of Snowball 2.2, the version PostgreSQL 15 ships ----

const VOWEL = 'aeiouy';
const isV = (c: string | undefined) => c !== undefined && VOWEL.includes(c);
const EXCEPTION1 = new Map<string, string>([
  ['skis', 'ski'],
  ['skies', 'sky'],
  ['dying', 'die'],
  ['lying', 'lie'],
  ['tying', 'tie'],
  ['idly', 'idl'],
  ['gently', 'gentl'],
  ['ugly', 'ugli'],
  ['early', 'earli'],
  ['only', 'onli'],
  ['singly', 'singl'],
  ['sky', 'sky'],
  ['news', 'news'],
  ['howe', 'howe'],
  ['atlas', 'atlas'],
  ['cosmos', 'cosmos'],
  ['bias', 'bias'],
  ['andes', 'andes'],
]);
const EXCEPTION2 = new Set(['inning', 'outing', 'canning', 'herring', 'earring', 'proceed', 'exceed', 'succeed']);
const REGION_PREFIXES = ['gener', 'commun', 'arsen'];
const DOUBLES = new Set(['bb', 'dd', 'ff', 'gg', 'mm', 'nn', 'pp', 'rr', 'tt']);
const VALID_LI = 'cdeghkmnrt';

/** Longest of `list` that `w` ends with. */
function longestSuffix(w: string, list: readonly string[]): string | undefined {
  let best: string | undefined;
  for (const s of list) if (w.endsWith(s) && (!best || s.length > best.length)) best = s;
  return best;
}

/** Snowball's shortv, tested at the end of w[0..end). */
function shortV(w: string, end: number): boolean {
  const a = w[end - 1];
  const b = w[end - 2];
  if (a === undefined || b === undefined || isV(a) || !isV(b)) return false;
  if (end - 2 === 0) return true;
  const c = w[end - 3];
  return !'aeiouywxY'.includes(a) && c !== undefined && !isV(c);
}

const STEP2: Array<[string, string]> = [
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['abli', 'able'],
  ['entli', 'ent'],
  ['izer', 'ize'],
  ['ization', 'ize'],
  ['ational', 'ate'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['aliti', 'al'],
  ['alli', 'al'],
  ['fulness', 'ful'],
  ['ousli', 'ous'],
  ['ousness', 'ous'],
  ['iveness', 'ive'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['bli', 'ble'],
  ['ogi', 'og'],
  ['fulli', 'ful'],
  ['lessli', 'less'],
  ['li', ''],
];
const STEP2_MAP = new Map(STEP2);
const STEP2_KEYS = STEP2.map(([k]) => k);
const STEP3 = new Map<string, string>([
  ['tional', 'tion'],
  ['ational', 'ate'],
  ['alize', 'al'],
  ['icate', 'ic'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
  ['ative', ''],
]);
const STEP3_KEYS = [...STEP3.keys()];
const STEP4_KEYS = [
  ...['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ism', 'ate', 'iti'],
  ...['ous', 'ive', 'ize', 'ion'],
];

/** Snowball's English stemmer for a lower-case word of ASCII letters. */
export function stemEnglish(word: string): string {
  const ex = EXCEPTION1.get(word);
  if (ex !== undefined) return ex;
  if (word.length < 3) return word;
  // Prelude: a leading y, and a y after a vowel, are consonants (Y).
  const chars = [...word];
  let yFound = false;
  if (chars[0] === 'y') {
    chars[0] = 'Y';
    yFound = true;
  }
  for (let i = 1; i < chars.length; i++)
    if (chars[i] === 'y' && isV(chars[i - 1])) {
      chars[i] = 'Y';
      yFound = true;
    }
  let w = chars.join('');
  // Regions: R1 after the first non-vowel following a vowel (or a listed prefix), R2 the same in R1.
  const afterVnonV = (from: number): number => {
    let i = from;
    while (i < w.length && !isV(w[i])) i++;
    if (i >= w.length) return -1;
    while (i < w.length && isV(w[i])) i++;
    if (i >= w.length) return -1;
    return i + 1;
  };
  let p1 = w.length;
  let p2 = w.length;
  const prefix = REGION_PREFIXES.find((p) => w.startsWith(p));
  const r1 = prefix ? prefix.length : afterVnonV(0);
  if (r1 >= 0) {
    p1 = r1;
    const r2 = afterVnonV(p1);
    if (r2 >= 0) p2 = r2;
  }

  // Step 1a.
  const s1a = longestSuffix(w, ['sses', 'ied', 'ies', 's', 'us', 'ss']);
  if (s1a === 'sses') w = w.slice(0, -4) + 'ss';
  else if (s1a === 'ied' || s1a === 'ies') w = w.slice(0, -3) + (w.length - 3 >= 2 ? 'i' : 'ie');
  else if (s1a === 's') {
    const before = w.slice(0, -2);
    if ([...before].some(isV)) w = w.slice(0, -1);
  }
  if (!EXCEPTION2.has(w)) {
    // Step 1b.
    const s1b = longestSuffix(w, ['eed', 'eedly', 'ed', 'edly', 'ing', 'ingly']);
    if (s1b === 'eed' || s1b === 'eedly') {
      if (w.length - s1b.length >= p1) w = w.slice(0, -s1b.length) + 'ee';
    } else if (s1b) {
      const stem = w.slice(0, -s1b.length);
      if ([...stem].some(isV)) {
        w = stem;
        const end2 = w.slice(-2);
        if (end2 === 'at' || end2 === 'bl' || end2 === 'iz') w += 'e';
        else if (DOUBLES.has(end2)) w = w.slice(0, -1);
        else if (w.length === p1 && shortV(w, w.length)) w += 'e';
      }
    }
    // Step 1c.
    const last = w[w.length - 1];
    if ((last === 'y' || last === 'Y') && w.length > 2 && !isV(w[w.length - 2])) w = w.slice(0, -1) + 'i';
    // Step 2.
    const s2 = longestSuffix(w, STEP2_KEYS);
    if (s2 && w.length - s2.length >= p1) {
      const start = w.length - s2.length;
      if (s2 === 'ogi') {
        if (w[start - 1] === 'l') w = w.slice(0, start) + 'og';
      } else if (s2 === 'li') {
        if (w[start - 1] !== undefined && VALID_LI.includes(w[start - 1]!)) w = w.slice(0, start);
      } else w = w.slice(0, start) + STEP2_MAP.get(s2)!;
    }
    // Step 3.
    const s3 = longestSuffix(w, STEP3_KEYS);
    if (s3 && w.length - s3.length >= p1) {
      const start = w.length - s3.length;
      if (s3 === 'ative') {
        if (start >= p2) w = w.slice(0, start);
      } else w = w.slice(0, start) + STEP3.get(s3)!;
    }
    // Step 4.
    const s4 = longestSuffix(w, STEP4_KEYS);
    if (s4 && w.length - s4.length >= p2) {
      const start = w.length - s4.length;
      if (s4 === 'ion') {
        if (w[start - 1] === 's' || w[start - 1] === 't') w = w.slice(0, start);
      } else w = w.slice(0, start);
    }
    // Step 5.
    const e = w.length - 1;
    if (w[e] === 'e') {
      if (e >= p2 || (e >= p1 && !shortV(w, e))) w = w.slice(0, e);
    } else if (w[e] === 'l') {
      if (e >= p2 && w[e - 1] === 'l') w = w.slice(0, e);
    }
  }
  return yFound ? w.replace(/Y/g, 'y') : w;
}
