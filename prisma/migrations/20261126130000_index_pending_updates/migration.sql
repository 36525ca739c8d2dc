-- Index jobs not yet applied (issue 13.6): one row per queued index job, written before the job is
-- queued and deleted by the index worker in the transaction that applies it (or when it skips).
-- Search answers snapshot.pending_updates as the count of a knowledge base's rows, so the count is
-- exact however many workers or queues there are; the index sweep re-queues a row whose queue
-- entry was lost (a Redis restart) from the name and payload kept here.
CREATE TABLE "index_pending_updates" (
    "job_id" TEXT NOT NULL,
    "org_id" UUID NOT NULL,
    "knowledge_base_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "index_pending_updates_pkey" PRIMARY KEY ("job_id")
);

CREATE INDEX "index_pending_updates_knowledge_base_id_idx" ON "index_pending_updates"("knowledge_base_id");
CREATE INDEX "index_pending_updates_created_at_idx" ON "index_pending_updates"("created_at");
