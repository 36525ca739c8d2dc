-- docfleet initial schema, hand-written (prisma/README.md explains why).
-- Sections 1-3 are what `prisma migrate diff` would render for prisma/schema.prisma, with Prisma's
-- default names (<table>_pkey, <table>_<cols>_key, <table>_<cols>_idx, <table>_<cols>_fkey).
-- Section 4 holds what Prisma cannot express. Two deliberate deviations in sections 1-3 so raw SQL
-- inserts work: uuid ids DEFAULT gen_random_uuid() (Prisma generates them client-side) and
-- updated_at DEFAULT now() (Prisma sets @updatedAt client-side).
-- Never edit this file once applied anywhere: the runner verifies its checksum. Add a new folder.

-- ============================================================== 1. tables

-- CreateTable
CREATE TABLE "organizations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "organizations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "email" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "name" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "memberships" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "role" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "created_by_user_id" UUID,
    "last_used_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sessions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "user_id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "rbac_grants" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "resource_type" TEXT NOT NULL,
    "resource_id" UUID NOT NULL,
    "access_level" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rbac_grants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_bases" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_by_user_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "knowledge_bases_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "folders" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "knowledge_base_id" UUID NOT NULL,
    "parent_folder_id" UUID,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "folders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "files" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "knowledge_base_id" UUID NOT NULL,
    "folder_id" UUID,
    "filename" TEXT NOT NULL,
    "content_type" TEXT NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "current_version_id" UUID,
    "deleted_at" TIMESTAMPTZ(3),
    "created_by_user_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "files_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "file_versions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "file_id" UUID NOT NULL,
    "version_number" INTEGER NOT NULL,
    "storage_path" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "byte_size" BIGINT NOT NULL,
    "content_type" TEXT NOT NULL,
    "original_filename" TEXT NOT NULL,
    "page_count" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "file_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "page_versions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "file_version_id" UUID NOT NULL,
    "page_number" INTEGER NOT NULL,
    "content_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "page_versions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "imports" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "knowledge_base_id" UUID NOT NULL,
    "source" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "imports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "import_items" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "import_id" UUID NOT NULL,
    "file_id" UUID,
    "source_path" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "import_items_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "jobs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "knowledge_base_id" UUID NOT NULL,
    "file_id" UUID NOT NULL,
    "file_version_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "stage" TEXT,
    "percent" INTEGER NOT NULL DEFAULT 0,
    "total_pages" INTEGER,
    "completed_pages" INTEGER NOT NULL DEFAULT 0,
    "error" TEXT,
    "result" JSONB,
    "options" JSONB NOT NULL DEFAULT '{}',
    "idempotency_key" TEXT NOT NULL,
    "retry_of_job_id" UUID,
    "created_by_user_id" UUID,
    "api_key_id" UUID,
    "lease_owner" TEXT,
    "heartbeat_at" TIMESTAMPTZ(3),
    "cancel_requested_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "job_events" (
    "id" BIGSERIAL NOT NULL,
    "job_id" UUID NOT NULL,
    "event_type" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "stage" TEXT,
    "payload" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "job_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "artifact_manifests" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "file_id" UUID NOT NULL,
    "file_version_id" UUID NOT NULL,
    "job_id" UUID,
    "artifact_type" TEXT NOT NULL,
    "manifest" JSONB NOT NULL DEFAULT '{}',
    "links" JSONB NOT NULL DEFAULT '{}',
    "storage_prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "artifact_manifests_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "evidence_index_segments" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "knowledge_base_id" UUID NOT NULL,
    "folder_id" UUID,
    "file_id" UUID NOT NULL,
    "file_version_id" UUID NOT NULL,
    "artifact_manifest_id" UUID NOT NULL,
    "segment_id" TEXT NOT NULL,
    "ordinal" INTEGER NOT NULL,
    "title" TEXT NOT NULL,
    "markdown" TEXT NOT NULL,
    "source_type" TEXT NOT NULL,
    "coordinates" JSONB NOT NULL DEFAULT '{}',
    "is_table" BOOLEAN NOT NULL DEFAULT false,
    "table_metadata" JSONB NOT NULL DEFAULT '{}',
    "note_refs" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "years" INTEGER[] DEFAULT ARRAY[]::INTEGER[],
    "quarters" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "neighbors" JSONB NOT NULL DEFAULT '{}',
    "tsv" tsvector,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "evidence_index_segments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "extraction_schemas" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "knowledge_base_id" UUID,
    "file_id" UUID,
    "title" TEXT NOT NULL,
    "description" TEXT,
    "schema" JSONB NOT NULL,
    "json_schema" JSONB NOT NULL,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_by_user_id" UUID,
    "deleted_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "extraction_schemas_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "extraction_results" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "file_id" UUID NOT NULL,
    "file_version_id" UUID NOT NULL,
    "job_id" UUID,
    "operation_id" UUID,
    "schema_id" UUID,
    "artifact_manifest_id" UUID,
    "result" JSONB NOT NULL,
    "validation_errors" JSONB NOT NULL DEFAULT '[]',
    "model_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "extraction_results_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "operations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "knowledge_base_id" UUID,
    "file_id" UUID,
    "operation_type" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "progress" JSONB NOT NULL DEFAULT '{"done":0,"total":0,"phase":null}',
    "output" JSONB,
    "error" TEXT,
    "request" JSONB NOT NULL DEFAULT '{}',
    "model_id" TEXT,
    "permission" TEXT NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL DEFAULT 1,
    "created_by_user_id" UUID,
    "api_key_id" UUID,
    "cancel_requested_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3),
    "completed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "operations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "split_sessions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "operation_id" UUID NOT NULL,
    "file_id" UUID NOT NULL,
    "session" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "split_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "edit_proposals" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "file_id" UUID NOT NULL,
    "operation_id" UUID NOT NULL,
    "status" TEXT NOT NULL,
    "prompt" TEXT NOT NULL,
    "rules" JSONB NOT NULL DEFAULT '[]',
    "proposal" JSONB NOT NULL,
    "diff" TEXT,
    "model_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "edit_proposals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "classification_results" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "file_id" UUID NOT NULL,
    "operation_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "classes" JSONB NOT NULL,
    "result" JSONB NOT NULL,
    "model_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "classification_results_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credit_accounts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "balance_credits" INTEGER NOT NULL DEFAULT 0,
    "total_used_credits" INTEGER NOT NULL DEFAULT 0,
    "monthly_used_credits" INTEGER NOT NULL DEFAULT 0,
    "monthly_quota_credits" INTEGER,
    "period_start" TIMESTAMPTZ(3) NOT NULL,
    "subscription" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "credit_accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credit_reservations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "knowledge_base_id" UUID,
    "file_id" UUID,
    "job_id" UUID,
    "amount_credits" INTEGER NOT NULL,
    "debited_credits" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "finalized_at" TIMESTAMPTZ(3),

    CONSTRAINT "credit_reservations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "amount_credits" INTEGER NOT NULL,
    "balance_after" INTEGER NOT NULL,
    "idempotency_key" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "file_id" UUID,
    "job_id" UUID,
    "operation_id" UUID,
    "reservation_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "usage_daily" (
    "org_id" UUID NOT NULL,
    "day" DATE NOT NULL,
    "debited_credits" INTEGER NOT NULL DEFAULT 0,
    "refunded_credits" INTEGER NOT NULL DEFAULT 0,
    "granted_credits" INTEGER NOT NULL DEFAULT 0,
    "entry_count" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),

    CONSTRAINT "usage_daily_pkey" PRIMARY KEY ("org_id","day")
);

-- CreateTable
CREATE TABLE "knowledge_base_jobs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "org_id" UUID NOT NULL,
    "knowledge_base_id" UUID NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "progress" JSONB NOT NULL DEFAULT '{}',
    "error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT now(),
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "knowledge_base_jobs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "knowledge_base_job_credit_reservations" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "knowledge_base_job_id" UUID NOT NULL,
    "reservation_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "knowledge_base_job_credit_reservations_pkey" PRIMARY KEY ("id")
);

-- ============================================================== 2. @unique, @@unique, @@index

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE UNIQUE INDEX "memberships_org_id_user_id_key" ON "memberships"("org_id", "user_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_org_id_idx" ON "api_keys"("org_id");

-- CreateIndex
CREATE UNIQUE INDEX "sessions_token_hash_key" ON "sessions"("token_hash");

-- CreateIndex
CREATE INDEX "sessions_user_id_idx" ON "sessions"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "rbac_grants_user_id_resource_type_resource_id_key" ON "rbac_grants"("user_id", "resource_type", "resource_id");

-- CreateIndex
CREATE INDEX "rbac_grants_org_id_resource_type_resource_id_idx" ON "rbac_grants"("org_id", "resource_type", "resource_id");

-- CreateIndex
CREATE INDEX "knowledge_bases_org_id_created_at_idx" ON "knowledge_bases"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "folders_knowledge_base_id_idx" ON "folders"("knowledge_base_id");

-- CreateIndex
CREATE UNIQUE INDEX "files_current_version_id_key" ON "files"("current_version_id");

-- CreateIndex
CREATE INDEX "files_org_id_knowledge_base_id_created_at_idx" ON "files"("org_id", "knowledge_base_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "file_versions_file_id_version_number_key" ON "file_versions"("file_id", "version_number");

-- CreateIndex
CREATE UNIQUE INDEX "page_versions_file_version_id_page_number_key" ON "page_versions"("file_version_id", "page_number");

-- CreateIndex
CREATE INDEX "imports_knowledge_base_id_idx" ON "imports"("knowledge_base_id");

-- CreateIndex
CREATE INDEX "import_items_import_id_idx" ON "import_items"("import_id");

-- CreateIndex
CREATE UNIQUE INDEX "jobs_org_id_kind_idempotency_key_key" ON "jobs"("org_id", "kind", "idempotency_key");

-- CreateIndex
CREATE INDEX "jobs_file_id_created_at_idx" ON "jobs"("file_id", "created_at");

-- CreateIndex
CREATE INDEX "jobs_status_idx" ON "jobs"("status");

-- CreateIndex
CREATE INDEX "job_events_job_id_id_idx" ON "job_events"("job_id", "id");

-- CreateIndex
CREATE INDEX "artifact_manifests_file_id_created_at_idx" ON "artifact_manifests"("file_id", "created_at");

-- CreateIndex
CREATE INDEX "artifact_manifests_file_version_id_artifact_type_idx" ON "artifact_manifests"("file_version_id", "artifact_type");

-- CreateIndex
CREATE INDEX "evidence_index_segments_file_id_idx" ON "evidence_index_segments"("file_id");

-- CreateIndex
CREATE UNIQUE INDEX "evidence_index_segments_file_version_id_segment_id_key" ON "evidence_index_segments"("file_version_id", "segment_id");

-- CreateIndex
CREATE INDEX "extraction_schemas_org_id_created_at_idx" ON "extraction_schemas"("org_id", "created_at");

-- CreateIndex
CREATE INDEX "extraction_results_file_id_idx" ON "extraction_results"("file_id");

-- CreateIndex
CREATE INDEX "operations_file_id_idx" ON "operations"("file_id");

-- CreateIndex
CREATE UNIQUE INDEX "operations_org_id_operation_type_idempotency_key_key" ON "operations"("org_id", "operation_type", "idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "split_sessions_operation_id_key" ON "split_sessions"("operation_id");

-- CreateIndex
CREATE INDEX "split_sessions_file_id_idx" ON "split_sessions"("file_id");

-- CreateIndex
CREATE INDEX "edit_proposals_file_id_idx" ON "edit_proposals"("file_id");

-- CreateIndex
CREATE INDEX "classification_results_file_id_idx" ON "classification_results"("file_id");

-- CreateIndex
CREATE UNIQUE INDEX "credit_accounts_org_id_key" ON "credit_accounts"("org_id");

-- CreateIndex
CREATE UNIQUE INDEX "credit_reservations_job_id_key" ON "credit_reservations"("job_id");

-- CreateIndex
CREATE INDEX "credit_reservations_org_id_status_idx" ON "credit_reservations"("org_id", "status");

-- CreateIndex
CREATE INDEX "ledger_entries_org_id_created_at_idx" ON "ledger_entries"("org_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_org_id_idempotency_key_key" ON "ledger_entries"("org_id", "idempotency_key");

-- CreateIndex
CREATE INDEX "knowledge_base_jobs_knowledge_base_id_idx" ON "knowledge_base_jobs"("knowledge_base_id");

-- CreateIndex (Prisma's default name, truncated to PostgreSQL's 63 bytes the way Prisma does it)
CREATE UNIQUE INDEX "knowledge_base_job_credit_reservations_knowledge_base_job_i_key" ON "knowledge_base_job_credit_reservations"("knowledge_base_job_id", "reservation_id");

-- ============================================================== 3. relations declared in the schema

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rbac_grants" ADD CONSTRAINT "rbac_grants_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "knowledge_bases" ADD CONSTRAINT "knowledge_bases_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "folders" ADD CONSTRAINT "folders_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "folders" ADD CONSTRAINT "folders_parent_folder_id_fkey" FOREIGN KEY ("parent_folder_id") REFERENCES "folders"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "files" ADD CONSTRAINT "files_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "files" ADD CONSTRAINT "files_folder_id_fkey" FOREIGN KEY ("folder_id") REFERENCES "folders"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "files" ADD CONSTRAINT "files_current_version_id_fkey" FOREIGN KEY ("current_version_id") REFERENCES "file_versions"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "file_versions" ADD CONSTRAINT "file_versions_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "files"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "page_versions" ADD CONSTRAINT "page_versions_file_version_id_fkey" FOREIGN KEY ("file_version_id") REFERENCES "file_versions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "import_items" ADD CONSTRAINT "import_items_import_id_fkey" FOREIGN KEY ("import_id") REFERENCES "imports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "job_events" ADD CONSTRAINT "job_events_job_id_fkey" FOREIGN KEY ("job_id") REFERENCES "jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credit_accounts" ADD CONSTRAINT "credit_accounts_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ============================================================== 4. beyond what Prisma can express

-- The composite (knowledge_base_id, tsv) GIN index needs GIN operator classes for uuid.
-- btree_gin is a trusted contrib extension: a database owner may create it.
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- Knowledge base names are unique per organisation, case-insensitively (409 duplicate_knowledge_base_name).
CREATE UNIQUE INDEX "knowledge_bases_org_id_lower_name_key" ON "knowledge_bases"("org_id", lower("name"));

-- Sibling folder names are unique, case-insensitively; NULLS NOT DISTINCT makes top-level folders
-- (parent_folder_id NULL) siblings too (409 duplicate_folder_name).
CREATE UNIQUE INDEX "folders_knowledge_base_id_parent_folder_id_lower_name_key" ON "folders"("knowledge_base_id", "parent_folder_id", lower("name")) NULLS NOT DISTINCT;

-- Live filenames are unique per (knowledge base, folder), the root (folder_id NULL) included;
-- trashed files do not hold their name (409 duplicate_filename on restore).
CREATE UNIQUE INDEX "files_live_knowledge_base_id_folder_id_filename_key" ON "files"("knowledge_base_id", "folder_id", "filename") NULLS NOT DISTINCT WHERE "deleted_at" IS NULL;

-- Lexical search: tsv alone, and scoped to one knowledge base (the search endpoint's filter).
CREATE INDEX "evidence_index_segments_tsv_idx" ON "evidence_index_segments" USING GIN ("tsv");
CREATE INDEX "evidence_index_segments_knowledge_base_id_tsv_idx" ON "evidence_index_segments" USING GIN ("knowledge_base_id", "tsv");

-- Rows derived from a file go with it on permanent deletion (file versions and page versions
-- already do through the schema's relations). Deliberately without a foreign key to files:
-- operations (they outlive a permanent file delete: GET answers 404 by checking the file) and
-- their outputs (split_sessions, edit_proposals, classification_results), import_items,
-- extraction_schemas, credit_reservations and ledger_entries (permanent billing history).
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "files"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "artifact_manifests" ADD CONSTRAINT "artifact_manifests_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "files"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "evidence_index_segments" ADD CONSTRAINT "evidence_index_segments_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "files"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "extraction_results" ADD CONSTRAINT "extraction_results_file_id_fkey" FOREIGN KEY ("file_id") REFERENCES "files"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Knowledge-base-scoped rows go with their knowledge base (deletion is permanent, spec).
-- operations.knowledge_base_id has none, for the same reason as operations.file_id.
ALTER TABLE "imports" ADD CONSTRAINT "imports_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "evidence_index_segments" ADD CONSTRAINT "evidence_index_segments_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "extraction_schemas" ADD CONSTRAINT "extraction_schemas_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "credit_reservations" ADD CONSTRAINT "credit_reservations_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_base_jobs" ADD CONSTRAINT "knowledge_base_jobs_knowledge_base_id_fkey" FOREIGN KEY ("knowledge_base_id") REFERENCES "knowledge_bases"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_base_job_credit_reservations" ADD CONSTRAINT "knowledge_base_job_credit_reservations_knowledge_base_job__fkey" FOREIGN KEY ("knowledge_base_job_id") REFERENCES "knowledge_base_jobs"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_base_job_credit_reservations" ADD CONSTRAINT "knowledge_base_job_credit_reservations_reservation_id_fkey" FOREIGN KEY ("reservation_id") REFERENCES "credit_reservations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Everything of an organisation goes with it.
ALTER TABLE "rbac_grants" ADD CONSTRAINT "rbac_grants_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "folders" ADD CONSTRAINT "folders_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "files" ADD CONSTRAINT "files_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "imports" ADD CONSTRAINT "imports_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "artifact_manifests" ADD CONSTRAINT "artifact_manifests_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "evidence_index_segments" ADD CONSTRAINT "evidence_index_segments_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "extraction_schemas" ADD CONSTRAINT "extraction_schemas_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "extraction_results" ADD CONSTRAINT "extraction_results_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "operations" ADD CONSTRAINT "operations_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "split_sessions" ADD CONSTRAINT "split_sessions_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "edit_proposals" ADD CONSTRAINT "edit_proposals_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "classification_results" ADD CONSTRAINT "classification_results_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "credit_reservations" ADD CONSTRAINT "credit_reservations_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "usage_daily" ADD CONSTRAINT "usage_daily_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "knowledge_base_jobs" ADD CONSTRAINT "knowledge_base_jobs_org_id_fkey" FOREIGN KEY ("org_id") REFERENCES "organizations"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The enumerated values documented in schema.prisma, and the credit invariants.
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_role_check" CHECK ("role" IN ('admin', 'member', 'viewer'));
ALTER TABLE "rbac_grants" ADD CONSTRAINT "rbac_grants_resource_type_check" CHECK ("resource_type" IN ('knowledge_base', 'agent'));
ALTER TABLE "rbac_grants" ADD CONSTRAINT "rbac_grants_access_level_check" CHECK ("access_level" IN ('viewer', 'manager'));
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_kind_check" CHECK ("kind" IN ('parse', 'extract'));
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_status_check" CHECK ("status" IN ('queued', 'started', 'in_progress', 'running', 'completed', 'failed', 'cancelled'));
ALTER TABLE "jobs" ADD CONSTRAINT "jobs_percent_check" CHECK ("percent" BETWEEN 0 AND 100);
ALTER TABLE "artifact_manifests" ADD CONSTRAINT "artifact_manifests_artifact_type_check" CHECK ("artifact_type" IN ('parse', 'extract'));
ALTER TABLE "operations" ADD CONSTRAINT "operations_operation_type_check" CHECK ("operation_type" IN ('split_run', 'extract_run', 'classify_run', 'edit_run', 'split_rules_suggest', 'schema_generate', 'classify_suggest'));
ALTER TABLE "operations" ADD CONSTRAINT "operations_status_check" CHECK ("status" IN ('queued', 'in_progress', 'completed', 'failed', 'cancelled'));
ALTER TABLE "classification_results" ADD CONSTRAINT "classification_results_kind_check" CHECK ("kind" IN ('suggest', 'run'));
ALTER TABLE "credit_accounts" ADD CONSTRAINT "credit_accounts_balance_credits_check" CHECK ("balance_credits" >= 0);
ALTER TABLE "credit_reservations" ADD CONSTRAINT "credit_reservations_status_check" CHECK ("status" IN ('reserved', 'committed', 'released', 'failed', 'cancelled'));
ALTER TABLE "credit_reservations" ADD CONSTRAINT "credit_reservations_amount_credits_check" CHECK ("amount_credits" >= 0);
ALTER TABLE "credit_reservations" ADD CONSTRAINT "credit_reservations_debited_credits_check" CHECK ("debited_credits" >= 0 AND "debited_credits" <= "amount_credits");
ALTER TABLE "ledger_entries" ADD CONSTRAINT "ledger_entries_kind_check" CHECK ("kind" IN ('grant', 'debit', 'reversal', 'adjustment'));
