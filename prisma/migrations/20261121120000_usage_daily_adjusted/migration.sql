-- The daily roll-up also carries operator adjustments, so GET /v1/billing/ledger?group_by=day can be
-- served from usage_daily for finished days.
ALTER TABLE "usage_daily" ADD COLUMN "adjusted_credits" INTEGER NOT NULL DEFAULT 0;
