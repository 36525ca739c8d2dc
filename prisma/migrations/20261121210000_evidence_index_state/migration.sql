-- The search index's state per knowledge base, written by the index worker at the end of every
-- transaction that changes the knowledge base's segments. The search endpoint answers
-- index_version and snapshot from this one row instead of counting segments per request.
-- CreateTable
CREATE TABLE "evidence_index_state" (
    "knowledge_base_id" UUID NOT NULL,
    "org_id" UUID NOT NULL,
    "version" BIGINT NOT NULL DEFAULT 0,
    "segment_count" INTEGER NOT NULL DEFAULT 0,
    "file_count" INTEGER NOT NULL DEFAULT 0,
    "indexed_at" TIMESTAMPTZ(3),
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "evidence_index_state_pkey" PRIMARY KEY ("knowledge_base_id")
);

-- Beyond what Prisma can express (no relation in the schema, like the other derived rows): the
-- state goes with its knowledge base and its organisation.
ALTER TABLE "evidence_index_state" ADD CONSTRAINT "evidence_index_state_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "evidence_index_state" ADD CONSTRAINT "evidence_index_state_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
