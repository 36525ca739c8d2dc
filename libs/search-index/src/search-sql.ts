// The search statement: one round trip answers whether the knowledge base exists in the caller's
// organisation, its index state (index_version, snapshot) and the hits. The query text arrives as a
// bound parameter of search_lexemes(), the analyser the index was built with; the SQL text only
// ever contains our own placeholders and numbers.
import { Prisma } from '@docfleet/db';
import { FILLER_TEXT, MAX_TERMS, type QueryText } from './query-terms';

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

/** Ranking knobs; the defaults were measured with `pnpm eval:search` (docs/benchmarks.md). */
export interface Ranking {
  /** BM25 term-frequency saturation. */
  k1: number;
  /** BM25 length normalisation (0: none, 1: full). */
  b: number;
  /**
   * Credit, as a share of their IDF, for query words that the segment lacks but another segment of
   * its file has: a question naming a document ("the AOL Verizon agreement") lifts that document's
   * segments even where they do not repeat its name.
   */
  fileContext: number;
  /**
   * A word in more than this share of the knowledge base's segments (IDF near 0) is not read when the
   * query has a rarer one: its postings are most of the cost and it barely moves the order.
   */
  commonShare: number;
  /** Weight of a synonym's lexemes beside the query's own words (1). */
  synonymWeight: number;
  /** score multiplier for table segments */
  tableBoost: number;
  /** Without filters, only this many best-scored segments (at least 4 × limit) are checked for visibility. */
  prefetch: number;
  /**
   * Early exit (exact): the query's commonest words, while their largest possible contribution
   * ((k1 + 1) × their IDF) stays under this share of the rarer words' IDF, are not read whole;
   * they are looked up for the `prefetch` best candidates of the rarer words only, and the result
   * is kept only when no unread segment can reach it (else the statement reads everything).
   * 0: always read everything.
   */
  exitShare: number;
}
// k1 and b are BM25's usual values (those of SQLite FTS5 and Lucene).
export const RANKING: Ranking = {
  k1: 1.2,
  b: 0.75,
  fileContext: 0.5,
  commonShare: 0.25,
  synonymWeight: 0.3,
  tableBoost: 1.15,
  prefetch: 100,
  exitShare: 0.3,
};

/** The statement's one row (none when the knowledge base is not the caller's organisation's). */
export interface SearchRow {
  /** Text search: whether the early exit's result was kept (false: every posting was read). */
  early_exit: boolean | null;
  kb_id: string;
  folder_ok: boolean;
  version: bigint | null;
  segment_count: number | null;
  file_count: number | null;
  indexed_at: Date | null;
  /** Index jobs of this knowledge base queued and not yet applied (index_pending_updates). */
  pending: number;
  /** candidateSearchSql only: how many hits the statement returned. */
  hit_count?: number;
  /** candidateSearchSql only: the last hit's score (as returned: boosted, rounded). */
  last_score?: number | null;
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

function filters(sc: SearchScope, f: SearchFilters): Prisma.Sql {
  const parts = [Prisma.sql`s.knowledge_base_id = ${sc.kbId}::uuid`, Prisma.sql`s.org_id = ${sc.orgId}::uuid`];
  if (f.fileIds) parts.push(Prisma.sql`s.file_id = ANY(${f.fileIds}::uuid[])`);
  if (f.folderId) parts.push(Prisma.sql`f.folder_id = ${f.folderId}::uuid`);
  if (f.years?.length) parts.push(Prisma.sql`s.years && ${f.years}::int[]`);
  if (f.sourceType) parts.push(Prisma.sql`lower(s.source_type) = lower(${f.sourceType})`);
  if (f.tableOnly) parts.push(Prisma.sql`s.is_table`);
  return Prisma.join(parts, ' AND ');
}

// A search hit's keys (the API's Search hit) from segment row `s`, in three parts around the two
// that are not the row's own: `docName` (the file's current name) and `score` (the search's).
const HIT_HEAD = Prisma.raw(`'id', s.id, 'fileId', s.file_id, 'docId', s.file_id, 'fileVersionId', s.file_version_id,
          'artifactManifestId', s.artifact_manifest_id, 'segmentId', s.segment_id`);
const HIT_BODY = Prisma.raw(`'title', s.title, 'markdown', s.markdown`);
const HIT_TAIL = Prisma.raw(`'sourceType', s.source_type, 'coordinates', s.coordinates,
          'tableMetadata', s.table_metadata || jsonb_build_object('isTable', s.is_table),
          'noteRefs', coalesce(s.note_refs, '{}'), 'years', coalesce(s.years, '{}'), 'quarters', coalesce(s.quarters, '{}'),
          'neighbors', json_build_object('previousSegmentId', s.neighbors->'previousSegmentId', 'nextSegmentId', s.neighbors->'nextSegmentId',
            'noteSegmentIds', coalesce(s.neighbors->'noteSegmentIds', '[]'::jsonb))`);

/**
 * Wraps the CTEs that end in `top` (hit ids with score and position): one row with the knowledge
 * base of the caller's organisation (no row: unknown here), its index state, the folder check,
 * and the hits as one JSON array already in the API's shape (Search hit), in `pos` order.
 * Building the hits in PostgreSQL saves the gateway decoding ~20 typed columns per hit.
 */
function envelope(
  sc: SearchScope,
  f: SearchFilters,
  ctes: Prisma.Sql,
  exit: Prisma.Sql = Prisma.sql`NULL::boolean`,
  columns: Prisma.Sql = Prisma.empty,
): Prisma.Sql {
  return Prisma.sql`
    WITH ${ctes}
    SELECT ${exit} AS early_exit, ${columns} kb.id::text AS kb_id, ${f.folderId ? Prisma.sql`EXISTS (SELECT 1 FROM folders fo WHERE fo.id = ${f.folderId}::uuid AND fo.knowledge_base_id = kb.id)` : Prisma.sql`true`} AS folder_ok,
      st.version, st.segment_count, st.file_count, st.indexed_at,
      (SELECT count(*) FROM index_pending_updates pu WHERE pu.knowledge_base_id = kb.id)::int AS pending,
      coalesce((
        SELECT json_agg(json_build_object(
          ${HIT_HEAD}, 'docName', f.filename, ${HIT_BODY}, 'score', round(top.score::numeric, 6)::float8, ${HIT_TAIL}
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
 * The visible segments of `from` (rows of id and the unboosted score), filtered, boosted, rounded and
 * ordered as the API returns them, at most `limit` (with `groupByFile`, each file's best one).
 * Rounded to the six decimals the API returns before ordering: scores equal as shown are ordered
 * by file and position, never by the last bits of a floating-point sum (whose order depends on the
 * plan, so the exhaustive and early-exit paths, or two plans, could otherwise order ties differently).
 */
function rankedSql(
  sc: SearchScope,
  f: SearchFilters,
  from: Prisma.Sql,
  extra: Prisma.Sql,
  limit: number,
  groupByFile: boolean,
  r: Ranking,
): Prisma.Sql {
  const score = Prisma.sql`round((c.score * CASE WHEN s.is_table THEN ${num(r.tableBoost)} ELSE 1 END)::numeric, 6)::float8`;
  return groupByFile
    ? // Each file's best visible segment (ties: the earlier one), then the files by that score.
      Prisma.sql`
      SELECT id, file_id, ordinal, score FROM (
        SELECT s.id, s.file_id, s.ordinal, ${score} AS score,
          row_number() OVER (PARTITION BY s.file_id ORDER BY ${score} DESC, s.ordinal) AS file_rank
        FROM ${from} c
        JOIN evidence_index_segments s ON s.id = c.id
        ${VISIBLE}
        WHERE ${filters(sc, f)} ${extra}
      ) g WHERE file_rank = 1
      ORDER BY score DESC, file_id, ordinal
      LIMIT ${num(limit)}`
    : Prisma.sql`
      SELECT s.id, s.file_id, s.ordinal, ${score} AS score
      FROM ${from} c
      JOIN evidence_index_segments s ON s.id = c.id
      ${VISIBLE}
      WHERE ${filters(sc, f)} ${extra}
      ORDER BY score DESC, s.file_id, s.ordinal
      LIMIT ${num(limit)}`;
}

/**
 * The query's lexemes with their weights (`term`, `w`): its own words through search_lexemes()
 * without the filler words, at most MAX_TERMS in order of first position, at weight 1, and its
 * synonyms' lexemes at `synonymWeight`. The text of the statement's `ql` and of queryLexemesSql.
 */
function lexemesSql(query: QueryText, r: Ranking): Prisma.Sql {
  return Prisma.sql`
      SELECT term, max(w) AS w FROM (
        (SELECT l.lexeme AS term, 1::float8 AS w FROM unnest(search_lexemes(${query.text})) l
         WHERE l.lexeme <> ALL (tsvector_to_array(search_lexemes(${FILLER_TEXT})))
         ORDER BY l.positions[1] LIMIT ${num(MAX_TERMS)})
        UNION ALL
        SELECT l.lexeme, ${num(r.synonymWeight)}::float8 FROM unnest(search_lexemes(${query.synonyms})) l
      ) x GROUP BY term`;
}

/** The query's weighted lexemes alone (rows of `term`, `w`), for scoring outside PostgreSQL. */
export function queryLexemesSql(query: QueryText, r: Ranking = RANKING): Prisma.Sql {
  return lexemesSql(query, r);
}

/**
 * Text search: BM25 over the knowledge base's postings, in PostgreSQL.
 *
 * The query goes through search_lexemes() (the migration's SQL function), the same analyser the
 * index worker indexed the segments with, so "Arp2/3" or "CK-666" yield the same lexemes on both
 * sides. Filler words are dropped the same way (their lexemes), and a word's synonyms join the
 * query at `synonymWeight`. For each query lexeme, search_terms gives its document frequency in this
 * knowledge base, and the (knowledge_base_id, term) index of search_postings its segments with
 * their term frequency and length: the score is
 *   Σ w · idf · tf·(k1 + 1) / (tf + k1·(1 − b + b·dl/avgdl)),  idf = ln(1 + (N − df + 0.5)/(df + 0.5))
 * with N and avgdl from evidence_index_state, plus `fileContext` × the w · idf of query words found
 * only elsewhere in the segment's file, × `tableBoost` for table segments. No row is read
 * outside the index until the best `prefetch` segments are known; only those are joined to check
 * that they are visible (live file, current version) and to apply the filters. If too few survive
 * (or any filter is given), every scored segment is checked. With `groupByFile`, each file keeps only
 * its best segment (the file's score is its best passage's, as document ranking from passages does),
 * so one document's many matching segments do not crowd other documents out of `limit`.
 */
export function textSearchSql(
  sc: SearchScope,
  query: QueryText,
  f: SearchFilters,
  limit: number,
  groupByFile = false,
  r: Ranking = RANKING,
): Prisma.Sql {
  const hasFilters = Boolean(f.fileIds || f.folderId || f.years?.length || f.sourceType || f.tableOnly);
  const prefetch = Math.max(r.prefetch, 4 * limit);
  const ranked = (from: Prisma.Sql, extra: Prisma.Sql) => rankedSql(sc, f, from, extra, limit, groupByFile, r);
  // BM25's saturated term frequency of posting p, times the term's IDF.
  const weight = (p: string, t: string) =>
    Prisma.raw(`${t}.idf * ${p}.tf * ${r.k1 + 1} / (${p}.tf + ${r.k1} * (${1 - r.b} + ${r.b} * ${p}.dl / st.avgdl))`);
  if (![r.k1, r.b].every(Number.isFinite)) throw new Error('ranking constants must be finite');
  // The query's terms with their IDF (common words dropped when rarer ones exist).
  const terms = Prisma.sql`
    st AS MATERIALIZED (
      SELECT greatest(segment_count, 1)::float8 AS n, greatest(total_length / greatest(segment_count, 1), 1e-9) AS avgdl
      FROM evidence_index_state WHERE knowledge_base_id = ${sc.kbId}::uuid
    ),
    ql AS MATERIALIZED (${lexemesSql(query, r)}
    ),
    qa AS MATERIALIZED (
      SELECT ql.term, t.df, t.df <= ${num(r.commonShare)} * st.n AS rare, ql.w * ln(1 + (st.n - t.df + 0.5) / (t.df + 0.5)) AS idf
      FROM ql JOIN search_terms t ON t.knowledge_base_id = ${sc.kbId}::uuid AND t.term = ql.term, st
      WHERE ql.w > 0
    ),
    qt AS MATERIALIZED (SELECT term, idf, df FROM qa WHERE rare OR NOT EXISTS (SELECT 1 FROM qa WHERE rare)),`;
  // Exhaustive: every posting of every term, scored and aggregated.
  // With the early exit in front, the essential terms' postings are already read (he): only the others are.
  const full = (early: boolean) => Prisma.sql`
    hits AS MATERIALIZED (
      ${
        early
          ? Prisma.sql`SELECT * FROM he UNION ALL
      SELECT p.segment_row_id AS id, p.file_id, qn.term, qn.idf, ${weight('p', 'qn')} AS s
      FROM qn JOIN search_postings p ON p.knowledge_base_id = ${sc.kbId}::uuid AND p.term = qn.term, st`
          : Prisma.sql`SELECT p.segment_row_id AS id, p.file_id, qt.term, qt.idf, ${weight('p', 'qt')} AS s
      FROM qt JOIN search_postings p ON p.knowledge_base_id = ${sc.kbId}::uuid AND p.term = qt.term, st`
      }
    ),
    fc AS MATERIALIZED (
      SELECT file_id, sum(idf) AS file_idf FROM (SELECT DISTINCT file_id, term, idf FROM hits) x GROUP BY file_id
    ),
    sc AS MATERIALIZED (
      SELECT h.id, sum(h.s) + ${num(r.fileContext)} * (max(fc.file_idf) - sum(h.idf)) AS score
      FROM hits h JOIN fc ON fc.file_id = h.file_id
      GROUP BY h.id
    ),
    ${
      hasFilters
        ? Prisma.sql`full_ranked AS (${ranked(Prisma.sql`sc`, Prisma.empty)}),`
        : Prisma.sql`pre AS MATERIALIZED (SELECT id, score FROM sc ORDER BY score DESC, id LIMIT ${num(prefetch)}),
    r1 AS MATERIALIZED (${ranked(Prisma.sql`pre`, Prisma.empty)}),
    r2 AS MATERIALIZED (${ranked(
      Prisma.sql`sc`,
      Prisma.sql`AND (SELECT count(*) FROM r1) < ${num(limit)} AND (SELECT count(*) FROM sc) > ${num(prefetch)}`,
    )}),
    full_ranked AS (SELECT * FROM r2 UNION ALL SELECT * FROM r1 WHERE NOT EXISTS (SELECT 1 FROM r2)),`
    }`;
  const top = Prisma.sql`top AS (SELECT ranked.*, row_number() OVER (ORDER BY score DESC, file_id, ordinal) AS pos FROM ranked)`;
  if (!(r.exitShare > 0)) {
    return envelope(sc, f, Prisma.sql`${terms} ${full(false)} ranked AS (SELECT * FROM full_ranked), ${top}`);
  }
  // Early exit, exact (MaxScore's split of the terms). A term contributes to a segment's score
  // idf·tfn if the segment holds it, fileContext·idf if only another segment of its file does, else 0:
  // at most idf·max(k1 + 1, fileContext). The commonest terms, while that bound summed over them stays
  // under exitShare × the other terms' IDF (and never all terms), are the non-essential ones (qn): their
  // postings are not read. The essential terms' postings (qe) are read whole; their part of the score is
  // exact for every segment holding one. The `prefetch` best of those by that part are completed with
  // the non-essential terms by index lookups (the segment's posting by primary key, the file's by the
  // (knowledge_base_id, term, file_id) index) and ranked as the exhaustive path ranks. The result stands
  // when its last score is above what any other segment can reach: a candidate left out has at most its
  // part + the non-essential bound; a segment without an essential term at most fileContext × its
  // file's essential IDF + that bound (× the table boost if the knowledge base has a table segment);
  // the margin of 1e-6 keeps such a segment below the last hit after rounding to six decimals.
  // Otherwise the exhaustive path answers, reading only the postings not read yet.
  const boostMax = Math.max(1, r.tableBoost);
  const termMax = Math.max(r.k1 + 1, r.fileContext);
  const c = num(r.fileContext);
  const early = Prisma.sql`
    qo AS MATERIALIZED (
      SELECT term, idf, row_number() OVER (ORDER BY df, term) = 1 AS rarest,
        sum(idf) OVER (ORDER BY df DESC, term DESC) AS common_idf, sum(idf) OVER () AS all_idf
      FROM qt
    ),
    qn AS MATERIALIZED (
      SELECT term, idf FROM qo WHERE NOT rarest AND ${num(termMax)} * common_idf <= ${num(r.exitShare)} * (all_idf - common_idf)
    ),
    he AS MATERIALIZED (
      SELECT p.segment_row_id AS id, p.file_id, qe.term, qe.idf, ${weight('p', 'qe')} AS s
      FROM qt qe JOIN search_postings p ON p.knowledge_base_id = ${sc.kbId}::uuid AND p.term = qe.term, st
      WHERE qe.term NOT IN (SELECT term FROM qn)
    ),
    fe AS MATERIALIZED (
      SELECT file_id, sum(idf) AS file_idf FROM (SELECT DISTINCT file_id, term, idf FROM he) x GROUP BY file_id
    ),
    ct AS MATERIALIZED (
      SELECT id, file_id, s, idf, file_idf, s + ${c} * (file_idf - idf) AS part FROM (
        SELECT h.id, h.file_id, sum(h.s) AS s, sum(h.idf) AS idf, max(fe.file_idf) AS file_idf
        FROM he h JOIN fe ON fe.file_id = h.file_id GROUP BY h.id, h.file_id
      ) x ORDER BY part DESC, id LIMIT ${num(prefetch + 1)}
    ),
    cand AS MATERIALIZED (SELECT * FROM ct ORDER BY part DESC, id LIMIT ${num(prefetch)}),
    nf AS MATERIALIZED (
      SELECT x.file_id, sum(qn.idf) AS file_idf FROM (SELECT DISTINCT file_id FROM cand) x CROSS JOIN qn
      CROSS JOIN LATERAL (
        SELECT 1 FROM search_postings p
        WHERE p.knowledge_base_id = ${sc.kbId}::uuid AND p.term = qn.term AND p.file_id = x.file_id LIMIT 1
      ) e
      GROUP BY x.file_id
    ),
    ns AS MATERIALIZED (
      SELECT cd.id, sum(${weight('p', 'qn')}) AS s, sum(qn.idf) AS idf
      FROM cand cd CROSS JOIN qn JOIN search_postings p ON p.segment_row_id = cd.id AND p.term = qn.term, st
      GROUP BY cd.id
    ),
    cx AS MATERIALIZED (
      SELECT cd.id, (cd.s + coalesce(ns.s, 0)) + ${c} * ((cd.file_idf + coalesce(nf.file_idf, 0)) - (cd.idf + coalesce(ns.idf, 0))) AS score
      FROM cand cd LEFT JOIN ns ON ns.id = cd.id LEFT JOIN nf ON nf.file_id = cd.file_id
    ),
    fast AS MATERIALIZED (${ranked(Prisma.sql`cx`, Prisma.empty)}),
    bound AS MATERIALIZED (
      SELECT ${
        boostMax > 1
          ? Prisma.sql`CASE WHEN EXISTS (SELECT 1 FROM evidence_index_segments t WHERE t.knowledge_base_id = ${sc.kbId}::uuid AND t.is_table) THEN ${num(boostMax)} ELSE 1 END`
          : Prisma.sql`1`
      } * greatest(
        (SELECT part FROM ct ORDER BY part DESC, id OFFSET ${num(prefetch)} LIMIT 1) + rest.v,
        CASE WHEN EXISTS (SELECT 1 FROM qn) THEN ${c} * (SELECT max(file_idf) FROM fe) + rest.v END
      ) AS v
      FROM (SELECT ${num(termMax)} * coalesce(sum(idf), 0) AS v FROM qn) rest
    ),
    ok AS MATERIALIZED (
      SELECT (SELECT v FROM bound) IS NULL
        OR ((SELECT count(*) FROM fast) >= ${num(limit)}
          AND (SELECT min(score) FROM fast) > (SELECT v FROM bound) * (1 + 1e-9) + 1e-6) AS v
    ),`;
  return envelope(
    sc,
    f,
    Prisma.sql`${terms} ${early} ${full(true)}
    ranked AS (SELECT * FROM fast WHERE (SELECT v FROM ok) UNION ALL SELECT * FROM full_ranked WHERE NOT (SELECT v FROM ok)),
    ${top}`,
    Prisma.sql`(SELECT v FROM ok)`,
  );
}

/**
 * Blank query: the filters alone, in document order (file name, then position in the file). Files
 * are read in that order from files_live_knowledge_base_id_filename_id_idx and each one's segments
 * from (file_version_id, ordinal), so `limit` 1 reads one file's first segment, not the knowledge base.
 * With `groupByFile`, each file's first segment only.
 */
export function filterOnlySql(sc: SearchScope, f: SearchFilters, limit: number, groupByFile = false): Prisma.Sql {
  return envelope(
    sc,
    f,
    Prisma.sql`
    top AS (
      SELECT x.id, 0::float8 AS score, row_number() OVER (ORDER BY x.filename, x.file_id, x.ordinal) AS pos
      FROM (
        SELECT s.id, f.filename, s.file_id, s.ordinal
        FROM files f
        CROSS JOIN LATERAL (
          SELECT s.id, s.file_id, s.ordinal FROM evidence_index_segments s
          WHERE s.file_version_id = f.current_version_id AND ${filters(sc, f)}
          ORDER BY s.ordinal LIMIT ${num(groupByFile ? 1 : limit)}
        ) s
        WHERE f.knowledge_base_id = ${sc.kbId}::uuid AND f.org_id = ${sc.orgId}::uuid AND f.deleted_at IS NULL
        ORDER BY f.filename, f.id, s.ordinal
        LIMIT ${num(limit)}
      ) x
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

/**
 * Text search over candidates scored outside PostgreSQL (memory-search.ts): `ids` with their
 * unboosted BM25 scores, computed from the same postings and statistics as textSearchSql. They are
 * checked for visibility and filters, boosted, rounded and ordered exactly as that statement orders
 * its own candidates, in the same envelope (knowledge base of the caller's organisation, index state,
 * folder check, hits' JSON), plus `hit_count`, so the caller can tell when too few candidates survived.
 */
export function candidateSearchSql(
  sc: SearchScope,
  f: SearchFilters,
  ids: string[],
  scores: number[],
  limit: number,
  groupByFile = false,
  r: Ranking = RANKING,
): Prisma.Sql {
  return envelope(
    sc,
    f,
    Prisma.sql`
    cand AS MATERIALIZED (SELECT * FROM unnest(${ids}::uuid[], ${scores}::float8[]) AS x(id, score)),
    ranked AS (${rankedSql(sc, f, Prisma.sql`cand`, Prisma.empty, limit, groupByFile, r)}),
    top AS (SELECT ranked.*, row_number() OVER (ORDER BY score DESC, file_id, ordinal) AS pos FROM ranked)`,
    Prisma.sql`NULL::boolean`,
    Prisma.sql`(SELECT count(*) FROM top)::int AS hit_count, (SELECT min(score) FROM top) AS last_score,`,
  );
}

/** candidateStateSql's one row (none when the knowledge base is not the caller's organisation's). */
export interface CandidateStateRow {
  kb_id: string;
  folder_ok: boolean;
  version: bigint | string | null;
  segment_count: number | null;
  file_count: number | null;
  indexed_at: Date | null;
  pending: number;
  /** JSON text: [[file id, current version id, folder id, filename], …] of the live files asked for, or null. */
  files: string | null;
}

/**
 * What may change without a new index version, for candidates ranked outside PostgreSQL
 * (memory-search.ts): the knowledge base of the caller's organisation (no row: unknown here), its
 * index state and pending updates (the snapshot), the folder check, and of the files asked for those
 * that are live, with their current version, folder and name (visibility, the folder filter and the
 * hits' `docName`). One text whatever the request, so each connection prepares it once; the files'
 * rows are read by primary key, no segment row is read.
 */
export function candidateStateSql(sc: SearchScope, folderId: string | undefined, fileIds: string[]): Prisma.Sql {
  const folder = folderId ?? null;
  return Prisma.sql`
    SELECT kb.id::text AS kb_id,
      (${folder}::uuid IS NULL OR EXISTS (SELECT 1 FROM folders fo WHERE fo.id = ${folder}::uuid AND fo.knowledge_base_id = kb.id)) AS folder_ok,
      st.version::text AS version, st.segment_count, st.file_count, st.indexed_at,
      (SELECT count(*) FROM index_pending_updates pu WHERE pu.knowledge_base_id = kb.id)::int AS pending,
      (SELECT json_agg(json_build_array(f.id, f.current_version_id, f.folder_id, f.filename))
        FROM files f WHERE f.id = ANY(${fileIds}::uuid[]) AND f.deleted_at IS NULL)::text AS files
    FROM knowledge_bases kb
    LEFT JOIN evidence_index_state st ON st.knowledge_base_id = kb.id
    WHERE kb.id = ${sc.kbId}::uuid AND kb.org_id = ${sc.orgId}::uuid`;
}

/**
 * The parts of segments' search hits that never change (a segment row is written once and deleted,
 * never updated), as three JSON objects each: the keys before `docName`, those between `docName` and
 * `score`, and those after, in the order envelope() builds a hit, so a hit is those parts with the
 * file's current name and the search's score put between them.
 */
export function hitFragmentsSql(sc: SearchScope, ids: string[]): Prisma.Sql {
  return Prisma.sql`
    SELECT s.id::text AS id, json_build_object(${HIT_HEAD})::text AS head,
      json_build_object(${HIT_BODY})::text AS body, json_build_object(${HIT_TAIL})::text AS tail
    FROM evidence_index_segments s
    WHERE s.id = ANY(${ids}::uuid[]) AND s.knowledge_base_id = ${sc.kbId}::uuid AND s.org_id = ${sc.orgId}::uuid`;
}
