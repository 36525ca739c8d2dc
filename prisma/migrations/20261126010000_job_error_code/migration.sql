-- A failed job carries its stable failure code beside its human `error` (docs/errors.md, Job
-- failures), so a client can branch on it without reading the event log. Null unless failed.
-- AlterTable
ALTER TABLE "jobs" ADD COLUMN "error_code" TEXT;
