import type { Principal } from '@docfleet/auth';
import { debitCredits } from '@docfleet/billing';
import { isUniqueViolation, Prisma, type Db, type Operation } from '@docfleet/db';
import { ApiError, CODE_STATUS, type ErrorCode } from '@docfleet/errors';
import { isTerminal, NO_PROGRESS, SYNC_CREDITS, syncChargeKey, type SyncCredit, type SyncOperationType, operationJobId } from '@docfleet/workflows';
import type { Deps } from '../../deps';

export interface SyncRequest {
  type: SyncOperationType;
  permission: string;
  fileId: string;
  knowledgeBaseId: string;
  idempotencyKey: string;
  request: Record<string, unknown>;
  modelId: string;
}

/** How long a synchronous request is held for its run (spec: minutes on large documents). */
export const SYNC_WAIT_MS = 15 * 60_000;

/**
 * Synchronous workflows (classify, edit). The model runs on the workflow worker, because only the
 * worker may reach model providers (deploy/k8s network policy); the request is held until the
 * operation is terminal. Credit rule (spec): one debit per idempotency key, never refunded.
 *
 *   no prior run            → create the operation and debit, in one transaction; run   (debited)
 *   queued or in_progress   → wait for that run                                          (not debited)
 *   failed or cancelled     → a fresh attempt of the model call                          (not debited)
 *   completed               → the stored output, no model call                           (not debited, replayed)
 */
export async function dispatchSync(deps: Pick<Deps, 'db' | 'queues' | 'logger'>, p: Principal, q: SyncRequest, opts: { waitMs?: number } = {}): Promise<Record<string, unknown>> {
  for (let round = 0; round < 3; round++) {
    const prior = await deps.db.operation.findUnique({
      where: { org_id_operation_type_idempotency_key: { org_id: p.orgId, operation_type: q.type, idempotency_key: q.idempotencyKey } },
    });
    if (prior && prior.file_id !== q.fileId) {
      throw new ApiError('idempotency_conflict', `This idempotency_key was already used for a ${q.type} of another file.`);
    }
    const credit = (debited: boolean, replayed = false): SyncCredit => ({ debited, credits: SYNC_CREDITS, idempotency_key: q.idempotencyKey, replayed });
    if (prior?.status === 'completed') return answer(prior, credit(false, true));
    if (prior && !isTerminal(prior.status)) return answer(await waitTerminal(deps.db, prior, opts.waitMs), credit(false));

    let op: Operation | null;
    let debited = false;
    try {
      op = await deps.db.$transaction(async (tx) => {
        if (prior) {
          // Retry of a failed or cancelled run: the model runs again, the charge stands as it is.
          const n = await tx.operation.updateMany({
            where: { id: prior.id, attempt: prior.attempt, status: { in: ['failed', 'cancelled'] } },
            data: {
              status: 'queued', attempt: prior.attempt + 1, output: Prisma.DbNull, error: null, completed_at: null, started_at: null,
              cancel_requested_at: null, progress: NO_PROGRESS as unknown as Prisma.InputJsonValue, request: q.request as Prisma.InputJsonValue, model_id: q.modelId,
            },
          });
          return n.count ? tx.operation.findUniqueOrThrow({ where: { id: prior.id } }) : null;
        }
        const row = await tx.operation.create({
          data: {
            org_id: p.orgId, knowledge_base_id: q.knowledgeBaseId, file_id: q.fileId, operation_type: q.type, status: 'queued',
            request: q.request as Prisma.InputJsonValue, model_id: q.modelId, permission: q.permission, idempotency_key: q.idempotencyKey,
            attempt: 1, created_by_user_id: p.userId ?? null, api_key_id: p.apiKeyId ?? null,
          },
        });
        // 402 here rolls the operation back with it.
        const d = await debitCredits(tx, { orgId: p.orgId, amount: SYNC_CREDITS, idempotencyKey: syncChargeKey(row), reason: q.type, operationId: row.id, fileId: q.fileId });
        debited = d.debited;
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) continue; // an identical request created it first: wait for that one
      throw err;
    }
    if (!op) continue;

    try {
      await deps.queues.enqueue('operation.run', { operationId: op.id, orgId: p.orgId, attempt: op.attempt }, { jobId: operationJobId(op.id, op.attempt) });
    } catch (err) {
      deps.logger.error({ err, operation_id: op.id }, 'sync dispatch: enqueue failed; failing the attempt');
      // Not refunded (the sync rule), but a retry with the same key runs again without a charge.
      await deps.db.operation.updateMany({
        where: { id: op.id, attempt: op.attempt, status: 'queued' },
        data: { status: 'failed', error: 'service_unavailable: the run could not be queued', completed_at: new Date() },
      }).catch(() => undefined);
      throw new ApiError('service_unavailable', 'The workflow queue is unavailable. Retry with the same idempotency_key: it will not be charged again.', { details: { operation_id: op.id, credit: credit(debited) } });
    }
    return answer(await waitTerminal(deps.db, op, opts.waitMs), credit(debited));
  }
  throw new ApiError('service_unavailable', 'The operation is changing state concurrently; try again.');
}

/** Polls the row (50 ms, backing off to 250 ms) until the operation is terminal. */
async function waitTerminal(db: Db, op: Operation, waitMs = SYNC_WAIT_MS): Promise<Operation> {
  const deadline = Date.now() + waitMs;
  let delay = 50;
  for (;;) {
    const row = await db.operation.findUnique({ where: { id: op.id } });
    if (!row) throw new ApiError('operation_not_found', 'The operation disappeared while it ran (its file was deleted).');
    if (isTerminal(row.status)) return row;
    if (Date.now() > deadline) {
      throw new ApiError('service_unavailable', `The run did not finish within ${Math.round(waitMs / 1000)} s; it continues. Send the same request with the same idempotency_key later to get its result without a new charge.`, { details: { operation_id: op.id } });
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(250, Math.round(delay * 1.5));
  }
}

const MODEL_FAILURES = new Set(['model_call_failed', 'model_timeout', 'invalid_model_output', 'model_cancelled', 'split_model_unavailable']);

/** The response body of a completed run, or the run's failure as an API error (code from its `error`). */
function answer(op: Operation, credit: SyncCredit): Record<string, unknown> {
  if (op.status === 'completed') return { ...(op.output as Record<string, unknown>), credit };
  const message = op.error ?? 'The run failed.';
  const code = /^([a-z_]+):\s/.exec(message)?.[1];
  const details = { operation_id: op.id, credit };
  if (op.status === 'cancelled') throw new ApiError('model_call_failed', `The run was cancelled: ${message}`, { details });
  if (code && !MODEL_FAILURES.has(code) && code in CODE_STATUS) throw new ApiError(code as ErrorCode, message.slice(code.length + 2), { details });
  throw new ApiError('model_call_failed', message, { details });
}
