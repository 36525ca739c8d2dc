-- Issue 22.5: the search's early exit bounds unread segments' scores by the table boost only when the
-- knowledge base has a table segment at all; this small partial index answers that in one probe.
CREATE INDEX "evidence_index_segments_kb_table_idx" ON "evidence_index_segments"("knowledge_base_id") WHERE "is_table";
