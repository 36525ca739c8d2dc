// The search query: its text goes to PostgreSQL's search_lexemes(), the one analyser of index and
// query (search-sql.ts), as a bound parameter; filler words are dropped there by their lexemes
// (FILLER_TEXT), and the synonyms of its words travel beside it. Nothing a caller types ever
// becomes SQL or tsquery syntax.
import { SYNONYMS } from './synonyms';

/** One query word with the alternatives that also satisfy it (the word itself comes first). */
export interface TermGroup {
  word: string;
  alternatives: string[];
}

/** At most this many distinct terms count; a pasted paragraph searches by its first 32 words. */
export const MAX_TERMS = 32;
const MAX_TOKEN_CHARS = 64;

// Words that carry no meaning in a question. PostgreSQL's English stop list drops the usual
// articles and pronouns too; this list adds question and request fillers it keeps.
const FILLER = new Set([
  'a',
  'an',
  'the',
  'and',
  'or',
  'of',
  'to',
  'in',
  'on',
  'at',
  'by',
  'for',
  'with',
  'from',
  'as',
  'into',
  'than',
  'then',
  'is',
  'are',
  'was',
  'were',
  'be',
  'been',
  'being',
  'am',
  'do',
  'does',
  'did',
  'done',
  'have',
  'has',
  'had',
  'having',
  'what',
  'whats',
  'which',
  'who',
  'whom',
  'whose',
  'where',
  'when',
  'why',
  'how',
  'whether',
  'this',
  'that',
  'these',
  'those',
  'it',
  'its',
  'there',
  'their',
  'they',
  'them',
  'he',
  'she',
  'his',
  'her',
  'we',
  'our',
  'you',
  'your',
  'i',
  'me',
  'my',
  'can',
  'could',
  'would',
  'should',
  'shall',
  'will',
  'may',
  'might',
  'must',
  'show',
  'find',
  'give',
  'tell',
  'list',
  'get',
  'please',
  'search',
  'look',
  'looking',
  'need',
  'want',
  'know',
  'about',
  'any',
  'some',
  'all',
  'each',
  'every',
  'much',
  'many',
  'mentioned',
  'mention',
  'say',
  'says',
  'said',
  'stated',
  'state',
  'according',
  'given',
  'listed',
  'shown',
  'written',
  'described',
  'named',
  'called',
  'document',
  'documents',
  'file',
  'files',
  'doc',
  'docs',
  'page',
  'pages',
  'anything',
  'something',
  'thing',
  'things',
  'also',
  'just',
  'only',
  'very',
  'so',
  'such',
  'if',
  'not',
  'no',
  'yes',
  'into',
  'out',
  'up',
  'down',
  'over',
  'under',
  'per',
  'via',
  'eg',
  'etc',
  'ie',
  'vs',
]);

// A number keeps its inner separators (1,234.56 / 2023-01-15 / 10:30) so it is matched the way
// the indexer's parser saw it; words split at anything that is not a letter, mark or digit.
const TOKEN = /\p{N}+(?:[.,:/-]\p{N}+)*|[\p{L}\p{M}\p{N}]+(?:['’][\p{L}]+)?/gu;

function singular(w: string): string {
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) return w.slice(0, -1);
  return w;
}

export function tokenize(query: string): string[] {
  const text = query.normalize('NFKC').toLowerCase();
  const out: string[] = [];
  for (const m of text.matchAll(TOKEN)) {
    const t = m[0].replace(/['’]s$/, '').replace(/['’]/g, '');
    if (t && t.length <= MAX_TOKEN_CHARS) out.push(t);
  }
  return out;
}

/** The filler words as one text, analysed in SQL like the query so their lexemes can be dropped. */
export const FILLER_TEXT = [...FILLER].join(' ');

/** What the search statement binds: the query as typed, and its words' synonyms as one text. */
export interface QueryText {
  text: string;
  synonyms: string;
}

export function queryText(query: string): QueryText {
  const synonyms = queryTerms(query).flatMap((g) => g.alternatives);
  return { text: query.normalize('NFKC'), synonyms: [...new Set(synonyms)].join(' ') };
}

/** Query → term groups, at most MAX_TERMS, first occurrence order. Empty for a blank query. */
export function queryTerms(query: string): TermGroup[] {
  const groups: TermGroup[] = [];
  const seen = new Set<string>();
  for (const token of tokenize(query)) {
    if (FILLER.has(token)) continue;
    const key = singular(token);
    if (seen.has(key)) continue;
    seen.add(key);
    const syn = SYNONYMS.get(token) ?? SYNONYMS.get(key) ?? [];
    groups.push({ word: token, alternatives: syn.filter((s) => s !== token && s !== key) });
    if (groups.length >= MAX_TERMS) break;
  }
  return groups;
}
