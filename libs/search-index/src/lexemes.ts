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
import { newStemmer } from 'snowball-stemmers';
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

// Snowball's English (Porter2) stemmer, PostgreSQL's english_stem: snowball-stemmers is the
// Snowball project's algorithms compiled to JavaScript (the same words as PostgreSQL 15's on every
// distinct word of the SciFact abstracts, lexemes.test.ts; verifyAnalyser checks the database itself).
const english = newStemmer('english');
// The compiled stemmer costs ~10 µs a word in plain Node (and over ten times that inside a vm
// context such as jest's: its helpers look up Object.* globals per character), while words repeat by
// Zipf's law; stemming is a pure function, so each distinct word is stemmed once. Emptied when full.
const stems = new Map<string, string>();
const MAX_STEMS = 100_000;

/** Snowball's English stemmer for a lower-case word of ASCII letters. */
export function stemEnglish(word: string): string {
  let stem = stems.get(word);
  if (stem === undefined) {
    if (stems.size >= MAX_STEMS) stems.clear();
    stem = english.stem(word);
    stems.set(word, stem);
  }
  return stem;
}
