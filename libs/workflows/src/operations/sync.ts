// Synchronous workflows (classify, edit): the charge rule the gateway applies and the worker
// respects. One debit per idempotency key, whatever happens to the model call and however often
// the same key is retried; so the ledger key carries no attempt suffix (queued workflows charge
// per attempt, see attemptKey).
import type { api } from '@docfleet/contracts';
import type { Operation } from '@docfleet/db';
import { SYNC_OPERATION_TYPES } from './operations';

export type SyncOperationType = (typeof SYNC_OPERATION_TYPES)[number];

export const SYNC_CREDITS = 1;

/** Ledger key of a synchronous workflow's one charge. */
export function syncChargeKey(op: Pick<Operation, 'operation_type' | 'idempotency_key'>): string {
  return `op:${op.operation_type}:${op.idempotency_key}`;
}

/** The `credit` object of a synchronous response. */
export type SyncCredit = api.SyncCredit;
