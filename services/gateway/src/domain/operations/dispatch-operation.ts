import { debitCredits } from '@docfleet/billing';
import type { Principal } from '@docfleet/auth';
import { isUniqueViolation, Prisma, type Db, type Operation } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { attemptKey, endAttempt, NO_PROGRESS, serializeOperation, type QueuedOperationType, operationJobId } from '@docfleet/workflows';
import type { Deps } from '../../deps';

export interface QueuedRequest {
  type: QueuedOperationType;
  /** The workflow permission (also what cancel demands). */
  permission: string;
  fileId: string;
  knowledgeBaseId: string;
  /** The caller's key, or the workflow's default key derived from the request's content. */
  idempotencyKey: string;
  /** Everything the worker needs to run the attempt (stored on the row, replaced on a fresh attempt). */
  request: Record<string, unknown>;
  modelId: string;
  credits: number;
}

export type QueuedResponse = { status: 202; body: { operation_id: string; status: string } } | { status: 200; body: unknown };

/**
 * The queued-operation response rule (spec), for every queued workflow. The caller has already
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
export async function dispatchQueued(deps: Pick<Deps, 'db' | 'queues' | 'logger'>, p: Principal, q: QueuedRequest): Promise<QueuedResponse> {
  for (let round = 0; round < 3; round++) {
    const prior = await findOp(deps.db, p.orgId, q.type, q.idempotencyKey);
    if (prior && prior.file_id !== q.fileId) {
      throw new ApiError('idempotency_conflict', `This idempotency_key was already used for a ${q.type} of another file.`);
    }
    if (prior && (prior.status === 'queued' || prior.status === 'in_progress')) return ack(prior);
    if (prior && prior.status === 'completed') return { status: 200, body: serializeOperation(prior).output };

    let op: Operation | null;
    try {
      op = await deps.db.$transaction(async (tx) => {
        let row: Operation;
        if (!prior) {
          row = await tx.operation.create({
            data: {
              org_id: p.orgId, knowledge_base_id: q.knowledgeBaseId, file_id: q.fileId, operation_type: q.type, status: 'queued',
              request: q.request as Prisma.InputJsonValue, model_id: q.modelId, permission: q.permission, idempotency_key: q.idempotencyKey,
              attempt: 1, created_by_user_id: p.userId ?? null, api_key_id: p.apiKeyId ?? null,
            },
          });
        } else {
          // Fresh attempt of a failed or cancelled operation; guarded so only one racer resets it.
          const n = await tx.operation.updateMany({
            where: { id: prior.id, attempt: prior.attempt, status: { in: ['failed', 'cancelled'] } },
            data: {
              status: 'queued', attempt: prior.attempt + 1, output: Prisma.DbNull, error: null, completed_at: null, started_at: null,
              cancel_requested_at: null, progress: NO_PROGRESS as unknown as Prisma.InputJsonValue,
              request: q.request as Prisma.InputJsonValue, model_id: q.modelId,
            },
          });
          if (!n.count) return null;
          row = await tx.operation.findUniqueOrThrow({ where: { id: prior.id } });
        }
        // 402 here rolls back the row (or the reset) with it.
        await debitCredits(tx, {
          orgId: p.orgId, amount: q.credits, idempotencyKey: attemptKey(row), reason: `${q.type} (attempt ${row.attempt})`,
          operationId: row.id, fileId: q.fileId,
        });
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) continue; // a concurrent identical request created it first
      throw err;
    }
    if (!op) continue; // a concurrent request reset it first: answer from the new state

    try {
      await deps.queues.enqueue('operation.run', { operationId: op.id, orgId: p.orgId, attempt: op.attempt }, { jobId: operationJobId(op.id, op.attempt) });
    } catch (err) {
      deps.logger.error({ err, operation_id: op.id }, 'operation dispatch: enqueue failed; failing the attempt');
      await endAttempt(deps.db, op, { status: 'failed', error: 'The operation could not be queued (queue unavailable); the credit was refunded.' }, { refund: true }).catch(() => undefined);
      throw new ApiError('service_unavailable', 'The workflow queue is unavailable; nothing was charged. Try again shortly.');
    }
    return ack(op);
  }
  throw new ApiError('service_unavailable', 'The operation is changing state concurrently; try again.');
}

const ack = (op: Operation): QueuedResponse => ({ status: 202, body: { operation_id: op.id, status: op.status } });

function findOp(db: Db, orgId: string, type: string, key: string) {
  return db.operation.findUnique({ where: { org_id_operation_type_idempotency_key: { org_id: orgId, operation_type: type, idempotency_key: key } } });
}
