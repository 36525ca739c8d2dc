import { z } from 'zod';
import { Timestamp, Uuid } from './common';

export const Credits = z.object({
  credits: z.object({
    balance_credits: z.number().int(),
    reserved_credits: z.number().int(),
    total_used_credits: z.number().int(),
    monthly_used_credits: z.number().int(),
    monthly_quota_credits: z.number().int().nullable(),
  }),
  subscription: z.record(z.string(), z.unknown()).nullable(),
});
export type Credits = z.infer<typeof Credits>;

export const LedgerQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(100),
  cursor: z.string().optional(),
  group_by: z.enum(['day']).optional(),
});

export const LedgerEntry = z.object({
  id: Uuid,
  kind: z.enum(['grant', 'debit', 'reversal', 'adjustment']),
  amount_credits: z.number().int(),
  balance_after: z.number().int(),
  idempotency_key: z.string(),
  reason: z.string(),
  file_id: Uuid.nullable(),
  job_id: Uuid.nullable(),
  operation_id: Uuid.nullable(),
  created_at: Timestamp,
});
export const LedgerDay = z.object({
  day: z.string(),
  debited_credits: z.number().int(),
  refunded_credits: z.number().int(),
  granted_credits: z.number().int(),
  adjusted_credits: z.number().int(),
  net_used_credits: z.number().int(),
  entry_count: z.number().int(),
});
export const LedgerPage = z.object({
  entries: z.array(z.union([LedgerEntry, LedgerDay])),
  next_cursor: z.string().nullable(),
});
