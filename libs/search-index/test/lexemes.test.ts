// Issue 22.5: the in-process analyser must give exactly what PostgreSQL's search_lexemes() gives
// (the same lexemes in the same order of first position), or decline so that PostgreSQL answers.
// Both run over the SciFact abstracts and queries, the corpus's text documents split into lines and
// paragraphs, generated runs of letters and digits (the parser's number states), and edge cases.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { CORPUS, createTestDb, type TestDb } from '@docfleet/testing';
import { Prisma, queryRows } from '@docfleet/db';
import { MemorySearch, RANKING, queryLexemesSql, queryText } from '../src';
import { analyse, queryLexemes, stemEnglish, verifyAnalyser } from '../src/lexemes';

const SCIFACT = path.join(CORPUS, 'g_retrieval/scifact');

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb();
});
afterAll(() => tdb?.drop());

/** search_lexemes() of each text, lexemes in order of first position. */
async function pgLexemes(texts: string[]): Promise<string[][]> {
  const out: string[][] = [];
  for (let i = 0; i < texts.length; i += 2000) {
    const part = texts.slice(i, i + 2000);
    const rows = await queryRows<{ i: string; lex: string[] }>(
      tdb.db,
      Prisma.sql`SELECT x.i, array(SELECT l.lexeme FROM unnest(search_lexemes(x.t)) l ORDER BY l.positions[1]) AS lex
        FROM unnest(${part}::text[]) WITH ORDINALITY AS x(t, i) ORDER BY x.i`,
    );
    out.push(...rows.map((r) => r.lex));
  }
  return out;
}

/** Every text the analyser decides must match PostgreSQL; returns how many it declined. */
async function expectSame(texts: string[]): Promise<number> {
  const pg = await pgLexemes(texts);
  let declined = 0;
  const diffs: string[] = [];
  texts.forEach((t, i) => {
    const mine = analyse(t);
    if (!mine) declined++;
    else if (mine.join(' ') !== pg[i].join(' ') && diffs.length < 10)
      diffs.push(`${JSON.stringify(t.slice(0, 200))}\n  pg:   ${pg[i].join(' ')}\n  mine: ${mine.join(' ')}`);
  });
  expect(diffs).toEqual([]);
  return declined;
}

const jsonl = (f: string) =>
  readFileSync(f, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>);

function corpusTextFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) corpusTextFiles(p, out);
    else if (/\.(txt|md|csv|tsv)$/.test(name) && statSync(p).size < 2_000_000) out.push(p);
  }
  return out;
}

const EDGE = [
  'Arp2/3 CK-666 e-mail 2023-01-15 v1.2.3 x86_64 C++ a+b a/b/c a.b.c 3.14159 -42 +7 1,000,000',
  'https://example.org/path/to/page.html?q=1&r=2#frag ftp://host.example.com:21/x www.example.com',
  'john.doe@example.com jane_doe+tag@mail.example.co.uk @handle #hashtag user@localhost',
  '3e8abc 1e5 1E5 12e 1e 1e5e6 12E34E56 A1e5 0x1F 00012 1a2b3c 1e99999 7E7 9e 4e4a4e4',
  'the and of a an in on is are was be been being it its this that these those only own same',
  "don't won't it's they're o'clock rock'n'roll children's",
  'IL-6 TNF-a p53 BRCA1/2 H2O CO2 Na+/K+-ATPase 5-HT2A COVID-19 SARS-CoV-2 mRNA-1273 IL-1beta',
  'hopping hoped agreed feed bleed succeeded proceeding exceedingly inning outing canning herring',
  'generously communication arsenals universal organization dying lying tying skis skies news',
  'fly flies flying spied spies ties tied cry cries crying yield yelling sayyid boy boys toy',
  'relational conditional valency hesitancy probably ably entirely izer organization operator',
  'feudalism formality radically hopefulness callously callousness decisiveness sensitivity',
  'sensibility laboratories archaeology geology analogy anthology gently idly ugly early singly',
  'electrical electricity formalize formative hopeful goodness revival allowance inference',
  'airliner gyroscopic adjustable defensible irritant replacement adjustment dependent adoption',
  'communism activate angulariti homologous effective bowdlerize probate rate cease controll roll',
  '   leading and trailing spaces   ',
  '\ttabs\tand\nnewlines\r\nand  double  spaces',
  '---///...:::___@@@+++',
  'a-b-c-d-e-f-g-h-i-j-k-l-m-n-o-p',
  'word1-word2/word3.word4:word5_word6@word7+word8 trailing- -leading /x/ .y. :z:',
  '1/2 3-4 5.6 7:8 9_0 1@2 3+4 10.1016/j.cell.2020.01.001 doi:10.1000/182 ISBN-978-3-16-148410-0',
  'ALLCAPS MixedCase camelCaseWord snake_case_word kebab-case-word Title Case Words',
  'a b c d e f g h i j k l m n o p q r s t u v w x y z 0 1 2 3 4 5 6 7 8 9',
  'yyy yay yey you yours youth yoyo yelp ylang',
  '',
];
const NON_ASCII = [
  'naïve café résumé',
  'TNF-α β-catenin',
  'women’s',
  'Zürich',
  '東京',
  'emoji 🙂 here',
  'nul\u0000byte',
  'x'.repeat(300),
];

/** Random runs over letters (with e and E often) and digits: the parser's number and word states. */
function generatedRuns(n: number): string[] {
  let seed = 12345;
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
  const alphabet = 'eeEE0123456789abxyzAXY-/._@+ ';
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let s = '';
    const len = 1 + Math.floor(rnd() * 14);
    for (let j = 0; j < len; j++) s += alphabet[Math.floor(rnd() * alphabet.length)];
    out.push(s);
  }
  return out;
}

test('the analyser equals search_lexemes() on the SciFact abstracts, titles and queries', async () => {
  const docs = jsonl(path.join(SCIFACT, 'corpus.jsonl'));
  const queries = jsonl(path.join(SCIFACT, 'queries-train.jsonl')).map((q) => q.text);
  const texts = [...docs.map((d) => `${d.title}\n${d.text}`), ...docs.map((d) => d.title), ...queries];
  const declined = await expectSame(texts);
  // Abstracts with a non-ASCII character go to PostgreSQL; most texts are decided here.
  expect(declined).toBeLessThan(texts.length / 2);
  expect(await expectSame(queries)).toBeLessThan(queries.length / 10);
}, 300_000);

test("the analyser equals search_lexemes() on the corpus's text documents, line by line and whole", async () => {
  const texts: string[] = [];
  for (const f of corpusTextFiles(CORPUS).filter((p) => !p.includes('scifact'))) {
    const s = readFileSync(f, 'utf8');
    texts.push(...s.split(/\n+/).filter((l) => l.trim()));
    texts.push(...s.split(/\n\s*\n/).filter((l) => l.length < 16_000));
  }
  expect(texts.length).toBeGreaterThan(1000);
  const declined = await expectSame(texts);
  expect(declined).toBeLessThan(texts.length);
}, 300_000);

test('edge cases and generated runs: equal, and non-ASCII or over-long text is left to PostgreSQL', async () => {
  expect(await expectSame(EDGE)).toBe(0);
  expect(await expectSame(generatedRuns(20_000))).toBe(0);
  for (const t of NON_ASCII) expect(analyse(t)).toBeUndefined();
  // The stemmer over every distinct word of the abstracts (each word alone through search_lexemes()).
  const words = new Set<string>();
  for (const d of jsonl(path.join(SCIFACT, 'corpus.jsonl')))
    for (const m of `${d.title} ${d.text}`.matchAll(/[A-Za-z]+/g)) words.add(m[0].toLowerCase());
  expect(words.size).toBeGreaterThan(20_000);
  expect(await expectSame([...words])).toBe(0);
  // Snowball 2.2, as PostgreSQL 15 ships it (later versions keep 'add' and 'evening').
  expect([stemEnglish('added'), stemEnglish('evening')]).toEqual(['ad', 'even']);
}, 300_000);

test('queryLexemes equals queryLexemesSql (fillers dropped, 32 terms, synonyms) and the database is verified', async () => {
  const queries = [
    ...jsonl(path.join(SCIFACT, 'queries-train.jsonl')).map((q) => q.text),
    ...EDGE,
    'what is the effective date of the agreement and who signed the contract',
    Array.from({ length: 60 }, (_, i) => `word${i} term${i % 7}`).join(' '),
  ];
  let decided = 0;
  for (const q of queries) {
    const qt = queryText(q);
    const mine = queryLexemes(qt, RANKING.synonymWeight);
    if (!mine) continue;
    decided++;
    const rows = await queryRows<{ term: string; w: number }>(tdb.db, queryLexemesSql(qt, RANKING));
    const key = (xs: Array<{ term: string; w: number }>) =>
      xs
        .map((x) => `${x.term}:${Number(x.w)}`)
        .sort()
        .join(' ');
    expect(`${q}\n${key(mine)}`).toBe(`${q}\n${key(rows)}`);
  }
  expect(decided).toBeGreaterThan(queries.length * 0.9);
  expect(await verifyAnalyser(tdb.db)).toBe(true);
  expect(await new MemorySearch(tdb.db, { maxBytes: 1, minSegments: 0 }).analyserReady()).toBe(true);
  // A database whose function differs is not trusted.
  await tdb.db.$executeRawUnsafe(
    `CREATE OR REPLACE FUNCTION search_lexemes(t text) RETURNS tsvector LANGUAGE sql IMMUTABLE AS $$ SELECT to_tsvector('simple'::regconfig, coalesce(t, '')) $$`,
  );
  expect(await verifyAnalyser(tdb.db)).toBe(false);
  const warned: unknown[] = [];
  const m = new MemorySearch(tdb.db, { maxBytes: 1, minSegments: 0, onAnalyserError: (e) => warned.push(e) });
  expect(await m.analyserReady()).toBe(false);
  expect(warned).toHaveLength(1);
}, 300_000);
