-- Issue 22.5: the covering index of the postings is keyed on (knowledge_base_id, term, file_id) rather
-- than (knowledge_base_id, term), same columns and size. A term's whole list is read as before (the
-- prefix); in addition "does file F hold term t" is one index probe, which the search's early-exit
-- path needs to score the file-context credit of a common word for a few candidate segments without
-- reading that word's postings.
DROP INDEX IF EXISTS "search_postings_kb_term_covering_idx";
CREATE INDEX "search_postings_kb_term_file_covering_idx" ON "search_postings"("knowledge_base_id", "term", "file_id")
  INCLUDE ("segment_row_id", "tf", "dl");
