-- Page-sharded parses (issue 17): a parse of more than PARSE_SHARD_PAGES pages is split into
-- page-range shards that any parse worker takes (BullMQ job `parse.shard`). One row per shard:
-- its range, the pages of it that must be parsed (the rest are reused from the previous parse),
-- how many are done (progress across shards) and whether it finished. The shard that finishes
-- last, under the job row's lock, assembles the bundle.
CREATE TABLE "parse_shards" (
    "job_id" UUID NOT NULL,
    "shard_no" INTEGER NOT NULL,
    "first_page" INTEGER NOT NULL,
    "last_page" INTEGER NOT NULL,
    "pages" INTEGER[],
    "status" TEXT NOT NULL DEFAULT 'queued',
    "done_pages" INTEGER NOT NULL DEFAULT 0,
    "worker" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "parse_shards_pkey" PRIMARY KEY ("job_id","shard_no")
);

CREATE INDEX "parse_shards_status_updated_at_idx" ON "parse_shards"("status", "updated_at");

ALTER TABLE "parse_shards" ADD CONSTRAINT "parse_shards_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
