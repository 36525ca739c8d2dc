-- Issue 22: BM25 ranking computed in PostgreSQL from per-knowledge-base statistics.
--
-- One analyser for both sides. search_lexemes(text) is what the index worker indexes a segment's
-- fields with and what search analyses the query with: every run of characters that are neither
-- letters nor digits separates words ("Arp2/3" → arp2, 3; "CK-666" → ck, 666), and a word made of
-- such parts joined by - / . : _ @ + is also kept whole, without its separators (arp23, ck666,
-- email of e-mail, 2023-01-15 → 20230115), so the compound matches as one rarer term. The words
-- then go through PostgreSQL's English configuration (lowercase, stop words, Snowball stemming).
CREATE FUNCTION search_lexemes(t text) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT to_tsvector('english'::regconfig,
    regexp_replace(coalesce(t, ''), '[^[:alnum:]]+', ' ', 'g') || ' ' || coalesce((
      SELECT string_agg(regexp_replace(m[1], '[^[:alnum:]]+', '', 'g'), ' ')
      FROM regexp_matches(coalesce(t, ''), '([[:alnum:]]+(?:[-/.:_@+][[:alnum:]]+)+)', 'g') AS m), ''))
$fn$;

-- A segment's terms with their field-weighted frequency (BM25F's pseudo term frequency): body 1,
-- title and table labels (headers, row labels) 1, the file name's words 0.5 (a question naming the
-- document lifts its segments, but less than the words of the segment itself).
CREATE FUNCTION search_segment_terms(title text, labels text, markdown text, filename text)
RETURNS TABLE (term text, tf double precision)
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
  SELECT l.lexeme, sum(f.w * cardinality(l.positions))::double precision
  FROM (VALUES (title, 1.0), (labels, 1.0), (markdown, 1.0), (filename, 0.5)) AS f(txt, w),
    LATERAL unnest(search_lexemes(f.txt)) AS l
  GROUP BY l.lexeme
$fn$;

-- The segment's length in the same weighted terms (sum of tf), for BM25's length normalisation.
ALTER TABLE "evidence_index_segments" ADD COLUMN "search_length" DOUBLE PRECISION NOT NULL DEFAULT 0;
-- Sum of search_length over the knowledge base's rows: average length = total_length / segment_count.
ALTER TABLE "evidence_index_state" ADD COLUMN "total_length" DOUBLE PRECISION NOT NULL DEFAULT 0;

-- One row per (segment, term): the postings. Written and deleted with the segment (cascade).
-- The (knowledge_base_id, term) index carries what scoring needs, so a query reads index entries only.
CREATE TABLE "search_postings" (
    "segment_row_id" UUID NOT NULL,
    "term" TEXT NOT NULL,
    "knowledge_base_id" UUID NOT NULL,
    "tf" DOUBLE PRECISION NOT NULL,
    "dl" DOUBLE PRECISION NOT NULL,

    CONSTRAINT "search_postings_pkey" PRIMARY KEY ("segment_row_id", "term")
);
CREATE INDEX "search_postings_kb_term_covering_idx" ON "search_postings"("knowledge_base_id", "term")
  INCLUDE ("segment_row_id", "tf", "dl");
ALTER TABLE "search_postings" ADD CONSTRAINT "search_postings_segment_row_id_fkey" FOREIGN KEY ("segment_row_id")
  REFERENCES "evidence_index_segments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Document frequency of every term in one knowledge base (one organisation's documents never
-- change another's ranking). Kept by the index worker in the transaction that changes the rows.
CREATE TABLE "search_terms" (
    "knowledge_base_id" UUID NOT NULL,
    "term" TEXT NOT NULL,
    "df" INTEGER NOT NULL,

    CONSTRAINT "search_terms_pkey" PRIMARY KEY ("knowledge_base_id", "term")
);
ALTER TABLE "search_terms" ADD CONSTRAINT "search_terms_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id")
  REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Backfill: the postings, lengths and statistics of rows indexed before this migration, with the
-- same functions the index worker uses (idempotent: a second run finds nothing to insert).
INSERT INTO "search_postings" ("segment_row_id", "term", "knowledge_base_id", "tf", "dl")
SELECT s.id, t.term, s.knowledge_base_id, t.tf, 0
FROM "evidence_index_segments" s
JOIN "files" f ON f.id = s.file_id,
LATERAL search_segment_terms(s.title,
  concat_ws(' ', (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(coalesce(s.table_metadata->'headers', '[]')) x),
    (SELECT string_agg(x, ' ') FROM jsonb_array_elements_text(coalesce(s.table_metadata->'rowLabels', '[]')) x)),
  s.markdown,
  regexp_replace(regexp_replace(regexp_replace(f.filename, '\.[A-Za-z0-9]{1,5}$', ''), '([a-z])([A-Z])', '\1 \2', 'g'), '[_.-]+', ' ', 'g')) t
ON CONFLICT DO NOTHING;
UPDATE "evidence_index_segments" s SET "search_length" = p.dl
FROM (SELECT segment_row_id, sum(tf) AS dl FROM "search_postings" GROUP BY segment_row_id) p
WHERE p.segment_row_id = s.id;
UPDATE "search_postings" p SET "dl" = s.search_length FROM "evidence_index_segments" s WHERE s.id = p.segment_row_id;
INSERT INTO "search_terms" ("knowledge_base_id", "term", "df")
SELECT knowledge_base_id, term, count(*)::int FROM "search_postings" GROUP BY knowledge_base_id, term
ON CONFLICT ("knowledge_base_id", "term") DO UPDATE SET "df" = excluded.df;
UPDATE "evidence_index_state" st SET "total_length" = coalesce(
  (SELECT sum(search_length) FROM "evidence_index_segments" s WHERE s.knowledge_base_id = st.knowledge_base_id), 0);

-- A blank query lists segments in document order (file name, file, position): these two indexes let
-- it read the first files of a knowledge base and their first segments instead of sorting them all.
CREATE INDEX "files_live_knowledge_base_id_filename_id_idx" ON "files"("knowledge_base_id", "filename", "id") WHERE "deleted_at" IS NULL;
CREATE INDEX "evidence_index_segments_file_version_id_ordinal_idx" ON "evidence_index_segments"("file_version_id", "ordinal");
