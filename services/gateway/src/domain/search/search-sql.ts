// The search statement: one round trip answers whether the knowledge base exists in the caller's
// organisation, its index state (index_version, snapshot) and the hits. Query words arrive as
// bound parameters of plainto_tsquery / phraseto_tsquery, which parse them with the same English
// configuration the index was built with; the SQL text only ever contains our own placeholders.
import { Prisma } from '@docfleet/db';
import type { TermGroup } from './query-terms';

export interface SearchScope {
  kbId: string;
  /** Rows are also filtered by organisation: the statement never reads another tenant's segments. */
  orgId: string;
}

export interface SearchFilters {
  fileIds?: string[];
  folderId?: string;
  years?: number[];
  sourceType?: string;
  tableOnly?: boolean;
}

/** Ranking knobs; the defaults were measured with `pnpm eval:search` and `pnpm bench --only search` (docs/benchmarks.md). */
export interface Ranking {
  /** ts_rank_cd weights for D (file name), C (body), B (table labels), A (title). */
  weights: [number, number, number, number];
  /** ts_rank_cd normalisation; must keep the rank below 1 (32: rank / (rank + 1)) for the rerank bound to hold. */
  normalisation: number;
  /** score multiplier for table segments */
  tableBoost: number;
  /** base, segment-coverage and file-coverage parts of the coverage factor (sum 1) */
  coverage: [number, number, number];
  /** candidates (by coverage bound) that get the exact ts_rank_cd; at least 3 × limit */
  rerank: number;
  /** a word expected in more than this many of the knowledge base's segments does not make candidates when a rarer one is there */
  commonRows: number;
  /** at most this many candidates are scored */
  maxCandidates: number;
}
// Measured on the corpus questions (bench/eval): weights {0.1, 0.2, 0.5, 1.0} with length
// normalisation gave MRR@10 0.78; flatter weights and normalisation 32 gave 0.88. A heading is
// repeated as the title of every segment under it, so a steep title weight let headings win.
export const RANKING: Ranking = {
  weights: [0.2, 0.5, 0.6, 0.7],
  normalisation: 32,
  tableBoost: 1.15,
  coverage: [0.15, 0.55, 0.3],
  rerank: 200,
  commonRows: 500,
  maxCandidates: 5000,
};

/** The statement's one row (none when the knowledge base is not the caller's organisation's). */
export interface SearchRow {
  kb_id: string;
  folder_ok: boolean;
  version: bigint | null;
  segment_count: number | null;
  file_count: number | null;
  indexed_at: Date | null;
  /** Index jobs of this knowledge base queued and not yet applied (index_pending_updates). */
  pending: number;
  /** JSON text of the search hits, already in the API's shape (the gateway sends it as is). */
  hits: string;
}

/**
 * A number of our own (an index, a limit, a ranking constant) written into the SQL text rather
 * than bound: each bound parameter costs the client and the server a little, and a statement has
 * dozens of these. Only finite numbers pass; caller text is always bound.
 */
function num(n: number): Prisma.Sql {
  if (!Number.isFinite(n)) throw new Error(`not a finite number: ${n}`);
  return Prisma.raw(String(n));
}

function tsquery(term: string): Prisma.Sql {
  return term.includes(' ')
    ? Prisma.sql`phraseto_tsquery('english', ${term})`
    : Prisma.sql`plainto_tsquery('english', ${term})`;
}

/** One word and its synonyms, OR-ed: a tsquery satisfied by any of them. */
function groupQuery(g: TermGroup): Prisma.Sql {
  return Prisma.sql`(${Prisma.join([g.word, ...g.alternatives].map(tsquery), ' || ')})`;
}

function filters(sc: SearchScope, f: SearchFilters): Prisma.Sql {
  const parts = [Prisma.sql`s.knowledge_base_id = ${sc.kbId}::uuid`, Prisma.sql`s.org_id = ${sc.orgId}::uuid`];
  if (f.fileIds) parts.push(Prisma.sql`s.file_id = ANY(${f.fileIds}::uuid[])`);
  if (f.folderId) parts.push(Prisma.sql`f.folder_id = ${f.folderId}::uuid`);
  if (f.years?.length) parts.push(Prisma.sql`s.years && ${f.years}::int[]`);
  if (f.sourceType) parts.push(Prisma.sql`lower(s.source_type) = lower(${f.sourceType})`);
  if (f.tableOnly) parts.push(Prisma.sql`s.is_table`);
  return Prisma.join(parts, ' AND ');
}

/**
 * Wraps the CTEs that end in `top` (hit ids with score and position): one row with the knowledge
 * base of the caller's organisation (no row: unknown here), its index state, the folder check,
 * and the hits as one JSON array already in the API's shape (Search hit), in `pos` order.
 * Building the hits in PostgreSQL saves the gateway decoding ~20 typed columns per hit.
 */
function envelope(sc: SearchScope, f: SearchFilters, ctes: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`
    WITH ${ctes}
    SELECT kb.id::text AS kb_id, ${f.folderId ? Prisma.sql`EXISTS (SELECT 1 FROM folders fo WHERE fo.id = ${f.folderId}::uuid AND fo.knowledge_base_id = kb.id)` : Prisma.sql`true`} AS folder_ok,
      st.version, st.segment_count, st.file_count, st.indexed_at,
      (SELECT count(*) FROM index_pending_updates pu WHERE pu.knowledge_base_id = kb.id)::int AS pending,
      coalesce((
        SELECT json_agg(json_build_object(
          'id', s.id, 'fileId', s.file_id, 'docId', s.file_id, 'fileVersionId', s.file_version_id, 'artifactManifestId', s.artifact_manifest_id,
          'segmentId', s.segment_id, 'docName', f.filename, 'title', s.title, 'markdown', s.markdown,
          'score', round(top.score::numeric, 6)::float8, 'sourceType', s.source_type, 'coordinates', s.coordinates,
          'tableMetadata', s.table_metadata || jsonb_build_object('isTable', s.is_table),
          'noteRefs', coalesce(s.note_refs, '{}'), 'years', coalesce(s.years, '{}'), 'quarters', coalesce(s.quarters, '{}'),
          'neighbors', json_build_object('previousSegmentId', s.neighbors->'previousSegmentId', 'nextSegmentId', s.neighbors->'nextSegmentId',
            'noteSegmentIds', coalesce(s.neighbors->'noteSegmentIds', '[]'::jsonb))
        ) ORDER BY top.pos)
        FROM top
        JOIN evidence_index_segments s ON s.id = top.id
        JOIN files f ON f.id = s.file_id
      ), '[]'::json)::text AS hits
    FROM knowledge_bases kb
    LEFT JOIN evidence_index_state st ON st.knowledge_base_id = kb.id
    WHERE kb.id = ${sc.kbId}::uuid AND kb.org_id = ${sc.orgId}::uuid`;
}

// Only what a reader may see: the file is live and the row belongs to its current version.
// Correctness never waits for the index worker to remove trashed files or old versions.
// (No knowledge base condition on files here: with one, the planner started from the knowledge
// base's files and read every segment of each, 20,000 rows for 137 matches, instead of the GIN index.)
const VISIBLE = Prisma.sql`JOIN files f ON f.id = s.file_id AND f.deleted_at IS NULL AND f.current_version_id = s.file_version_id`;

/**
 * Text search.
 *
 * Candidates. A segment is a candidate when it contains a query word (or a synonym). Words that
 * are common in a large knowledge base (their share of all segments in PostgreSQL's statistics,
 * pg_stats' most_common_elems of the tsv column, times the knowledge base's segment count, is
 * over `commonRows`) do not make candidates on their own when the query has a rarer word:
 * "Azure Interior bank account number" takes the segments with azure or interior, and scores them
 * on all five words. A query made only of common words takes the segments having all of them, or,
 * when none has, those having any. At most `maxCandidates` are scored. Without statistics (a fresh
 * database) every word counts as rare.
 *
 * Score. coverage factor = 0.15 + 0.55 · segment coverage² + 0.30 · file coverage², where coverage
 * is the IDF-weighted share of query words present (in the segment; anywhere in its file among
 * the candidates), IDF over the candidates: a rare word such as a name or a number counts more
 * than one every candidate has, and a question naming a document ("the AOL Verizon agreement")
 * lifts that document's segments even where they do not repeat its name. Then
 *   score = coverage factor × ts_rank_cd/(ts_rank_cd + 1) × `tableBoost` for table segments,
 * ts_rank_cd being cover density with weights by field (title A, table labels B, body C, file name D).
 *
 * Cost. ts_rank_cd is the expensive part (~25 µs a row for a long OR query). The rank term is
 * below 1, so coverage factor × boost bounds the score: only the `rerank` candidates with the
 * highest bound get ts_rank_cd (all of them when every candidate has every word).
 */
export function textSearchSql(
  sc: SearchScope,
  groups: TermGroup[],
  f: SearchFilters,
  limit: number,
  r: Ranking = RANKING,
): Prisma.Sql {
  if (groups.length === 1) return oneWordSql(sc, groups[0], f, limit, r);
  const gs = groups.map(groupQuery);
  const idx = gs.map((_, i) => i);
  const bit = (i: number) => Prisma.sql`(1::bigint << ${num(i)})`;
  const mask = Prisma.join(
    idx.map((i) => Prisma.sql`CASE WHEN s.tsv @@ q.gs[${num(i + 1)}] THEN ${bit(i)} ELSE 0::bigint END`),
    ' | ',
  );
  const df = Prisma.join(
    idx.map((i) => Prisma.sql`count(*) FILTER (WHERE c.mask & ${bit(i)} <> 0)::float8`),
    ', ',
  );
  const weights = Prisma.sql`(SELECT ARRAY(SELECT CASE WHEN d = 0 THEN 0 ELSE ln(1 + x.n / d) END FROM unnest(x.df) d) AS w
    FROM (SELECT count(*)::float8 AS n, ARRAY[${df}] AS df FROM cand c) x)`;
  const cov = (m: Prisma.Sql) =>
    Prisma.sql`((${Prisma.join(
      idx.map((i) => Prisma.sql`idf.w[${num(i + 1)}] * ((${m} >> ${num(i)}) & 1)`),
      ' + ',
    )}) / greatest(${Prisma.join(
      idx.map((i) => Prisma.sql`idf.w[${num(i + 1)}]`),
      ' + ',
    )}, 1e-9))`;
  // Share of segments having the word (any alternative; a multi-word alternative counts its rarest lexeme).
  const share = (g: TermGroup) => Prisma.sql`(SELECT least(1, coalesce(sum(af), 0)) FROM (
      SELECT (SELECT min(coalesce((SELECT st.freqs[array_position(st.elems, l.lexeme)] FROM st), 0)) FROM unnest(to_tsvector('english', a)) l) AS af
      FROM unnest(${[g.word, ...g.alternatives]}::text[]) a) x)`;
  const rare = (i: number) => Prisma.sql`g.share[${num(i + 1)}] * g.n <= ${num(r.commonRows)}`;
  const candidates = (query: Prisma.Sql, extra: Prisma.Sql) => Prisma.sql`
      SELECT s.id, s.file_id, s.ordinal, s.is_table, (${mask}) AS mask
      FROM q
      JOIN evidence_index_segments s ON s.tsv @@ ${query}
      ${VISIBLE}
      WHERE ${filters(sc, f)} ${extra}
      LIMIT ${num(r.maxCandidates)}`;
  return envelope(
    sc,
    f,
    Prisma.sql`
    st AS MATERIALIZED (
      SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs FROM pg_stats
      WHERE schemaname = current_schema() AND tablename = 'evidence_index_segments' AND attname = 'tsv' LIMIT 1
    ),
    g AS MATERIALIZED (
      SELECT ARRAY[${Prisma.join(gs)}]::tsquery[] AS gs, ARRAY[${Prisma.join(groups.map(share))}]::float8[] AS share,
        coalesce((SELECT segment_count FROM evidence_index_state WHERE knowledge_base_id = ${sc.kbId}::uuid), 0)::float8 AS n
    ),
    q AS MATERIALIZED (
      SELECT g.gs, (${Prisma.join(
        idx.map((i) => Prisma.sql`g.gs[${num(i + 1)}]`),
        ' || ',
      )}) AS qor,
        CASE WHEN ${Prisma.join(idx.map(rare), ' OR ')}
          THEN (${Prisma.join(
            idx.map((i) => Prisma.sql`CASE WHEN ${rare(i)} THEN g.gs[${num(i + 1)}] ELSE ''::tsquery END`),
            ' || ',
          )})
          ELSE (${Prisma.join(
            idx.map((i) => Prisma.sql`g.gs[${num(i + 1)}]`),
            ' && ',
          )}) END AS qgen,
        NOT (${Prisma.join(idx.map(rare), ' OR ')}) AS strict
      FROM g
    ),
    first AS MATERIALIZED (${candidates(Prisma.sql`q.qgen`, Prisma.empty)}),
    cand AS MATERIALIZED (
      SELECT * FROM first
      UNION ALL (${candidates(Prisma.sql`q.qor`, Prisma.sql`AND q.strict AND NOT EXISTS (SELECT 1 FROM first)`)})
    ),
    idf AS MATERIALIZED ${weights},
    bounded AS (
      SELECT c.id, c.file_id, c.ordinal,
        (${num(r.coverage[0])} + ${num(r.coverage[1])} * power(${cov(Prisma.sql`c.mask`)}, 2) + ${num(r.coverage[2])} * power(${cov(Prisma.sql`c.fmask`)}, 2))
          * CASE WHEN c.is_table THEN ${num(r.tableBoost)} ELSE 1 END AS bound
      FROM (SELECT cand.*, bit_or(cand.mask) OVER (PARTITION BY cand.file_id) AS fmask FROM cand) c, idf
      ORDER BY bound DESC, c.file_id, c.ordinal
      LIMIT (SELECT CASE WHEN (SELECT count(DISTINCT mask) FROM cand) > 1 THEN ${num(Math.max(r.rerank, 3 * limit))} ELSE ${num(r.maxCandidates)} END)
    ),
    ranked AS (
      SELECT b.id, b.file_id, b.ordinal, b.bound * ts_rank_cd(ARRAY[${Prisma.join(r.weights.map(num))}]::float4[], s.tsv, q.qor, ${num(r.normalisation)}) AS score
      FROM bounded b JOIN evidence_index_segments s ON s.id = b.id, q
      ORDER BY score DESC, b.file_id, b.ordinal
      LIMIT ${num(limit)}
    ),
    top AS (SELECT ranked.*, row_number() OVER (ORDER BY score DESC, file_id, ordinal) AS pos FROM ranked)`,
  );
}

/**
 * One query word (with its synonyms): every candidate covers all of the query, so the coverage
 * factor is 1 and the score is ts_rank_cd × `tableBoost`, computed while the candidates are read
 * (no second visit to their rows).
 */
function oneWordSql(sc: SearchScope, g: TermGroup, f: SearchFilters, limit: number, r: Ranking): Prisma.Sql {
  return envelope(
    sc,
    f,
    Prisma.sql`
    q AS MATERIALIZED (SELECT ${groupQuery(g)} AS q),
    cand AS (
      SELECT s.id, s.file_id, s.ordinal, s.is_table, s.tsv
      FROM q
      JOIN evidence_index_segments s ON s.tsv @@ q.q
      ${VISIBLE}
      WHERE ${filters(sc, f)}
      LIMIT ${num(r.maxCandidates)}
    ),
    ranked AS (
      SELECT c.id, c.file_id, c.ordinal,
        ts_rank_cd(ARRAY[${Prisma.join(r.weights.map(num))}]::float4[], c.tsv, q.q, ${num(r.normalisation)}) * CASE WHEN c.is_table THEN ${num(r.tableBoost)} ELSE 1 END AS score
      FROM cand c, q
      ORDER BY score DESC, c.file_id, c.ordinal
      LIMIT ${num(limit)}
    ),
    top AS (SELECT ranked.*, row_number() OVER (ORDER BY score DESC, file_id, ordinal) AS pos FROM ranked)`,
  );
}

/** Blank query: the filters alone, in document order (file name, then position in the file). */
export function filterOnlySql(sc: SearchScope, f: SearchFilters, limit: number): Prisma.Sql {
  return envelope(
    sc,
    f,
    Prisma.sql`
    top AS (
      SELECT s.id, 0::float8 AS score, row_number() OVER (ORDER BY f.filename, s.file_id, s.ordinal) AS pos
      FROM evidence_index_segments s
      ${VISIBLE}
      WHERE ${filters(sc, f)}
      ORDER BY f.filename, s.file_id, s.ordinal
      LIMIT ${num(limit)}
    )`,
  );
}

/** A query with no searchable word left: no hits, but the same knowledge base and state answer. */
export function noHitsSql(sc: SearchScope, f: SearchFilters): Prisma.Sql {
  return envelope(
    sc,
    f,
    Prisma.sql`top AS (SELECT NULL::uuid AS id, 0::float8 AS score, 0::bigint AS pos WHERE false)`,
  );
}
