-- A running operation carries the time its worker last said it is alive, as jobs already do
-- (jobs.heartbeat_at) (issue 13.2): a worker writes it every WORKER_HEARTBEAT_SECONDS; a row not
-- beaten for WORKER_LOST_SECONDS has lost its worker, and the reaper (or a waiting synchronous
-- request) takes it over in seconds instead of after 30 minutes of staleness.
ALTER TABLE "operations" ADD COLUMN "heartbeat_at" TIMESTAMPTZ(3);
