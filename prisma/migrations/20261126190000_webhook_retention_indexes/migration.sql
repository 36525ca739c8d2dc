-- Retention of the webhook outbox (libs/webhooks/src/retention.ts) looks up expired events by age
-- and their deliveries by event: without these each pruning batch scanned both tables.
CREATE INDEX "webhook_events_created_at_idx" ON "webhook_events"("created_at");
CREATE INDEX "webhook_deliveries_event_id_idx" ON "webhook_deliveries"("event_id");
