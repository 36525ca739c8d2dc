import { creditTransaction, debitCredits } from '@docfleet/billing';
import type { Principal } from '@docfleet/auth';
import type { api } from '@docfleet/contracts';
import { isUniqueViolation, type Operation } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { attemptKey, endAttempt, serializeOperation, type QueuedOperationType } from '@docfleet/workflows';
import type { Deps } from '../../deps';
import { enqueueAttempt, priorOperation, startAttempt, type WorkflowRequest } from './attempts';

/** Every queued workflow costs one credit per attempt (docs/api.md, Credits). */
export const QUEUED_CREDITS = 1;

export type QueuedRequest = WorkflowRequest<QueuedOperationType>;

export type QueuedResponse = { status: 202; body: api.QueuedAck } | { status: 200; body: unknown };

/**
 * The queued-operation response rule (docs/api.md, Idempotency), for every queued workflow. The caller has already
 * validated access, permission, parse artifacts, schema and model. Here: debit → create or reset
 * the operation (one transaction, so a declined debit leaves nothing) → enqueue.
 *
 *   no prior attempt          → 202 queued, charged under `:attempt-1`
 *   queued or in_progress     → 202 with the real status, not charged (re-attach)
 *   completed                 → 200 with the output inline, not charged
 *   failed or cancelled       → 202 queued, a fresh attempt charged under `:attempt-N`
 *
 * Concurrent identical requests meet on the (org, type, key) unique index or on the guarded
 * reset: one creates and pays, the others re-attach.
 */
export async function dispatchQueued(
  deps: Pick<Deps, 'db' | 'queues' | 'logger'>,
  p: Principal,
  q: QueuedRequest,
): Promise<QueuedResponse> {
  for (let round = 0; round < 3; round++) {
    const prior = await priorOperation(deps.db, p, q);
    if (prior && (prior.status === 'queued' || prior.status === 'in_progress')) return ack(prior);
    if (prior && prior.status === 'completed') return { status: 200, body: serializeOperation(prior).output };

    let op: Operation | null;
    try {
      op = await creditTransaction(deps.db, p.orgId, async (tx) => {
        const row = await startAttempt(tx, p, q, prior);
        // 402 here rolls back the row (or the reset) with it.
        if (row) {
          await debitCredits(tx, {
            orgId: p.orgId,
            amount: QUEUED_CREDITS,
            idempotencyKey: attemptKey(row),
            reason: `${q.type} (attempt ${row.attempt})`,
            operationId: row.id,
            fileId: q.file.id,
          });
        }
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) continue; // a concurrent identical request created it first
      throw err;
    }
    if (!op) continue; // a concurrent request reset it first: answer from the new state

    try {
      await enqueueAttempt(deps, op);
    } catch (err) {
      deps.logger.error({ err, operation_id: op.id }, 'operation dispatch: enqueue failed; failing the attempt');
      await endAttempt(
        deps.db,
        op,
        { status: 'failed', error: 'The operation could not be queued (queue unavailable); the credit was refunded.' },
        { refund: true },
      ).catch(() => undefined);
      throw new ApiError(
        'service_unavailable',
        'The workflow queue is unavailable; nothing was charged. Try again shortly.',
      );
    }
    return ack(op);
  }
  throw new ApiError('service_unavailable', 'The operation is changing state concurrently; try again.');
}

const ack = (op: Operation): QueuedResponse => ({
  status: 202,
  body: { operation_id: op.id, status: op.status as api.OperationStatus },
});
