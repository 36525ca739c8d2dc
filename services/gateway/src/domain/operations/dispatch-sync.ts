import type { Principal } from '@docfleet/auth';
import { creditTransaction, debitCredits } from '@docfleet/billing';
import { isUniqueViolation, type Db, type Operation } from '@docfleet/db';
import { ApiError, CODE_STATUS, type ErrorCode } from '@docfleet/errors';
import {
  attemptLost,
  endAttempt,
  isTerminal,
  SYNC_CREDITS,
  syncChargeKey,
  type SyncCredit,
  type SyncOperationType,
} from '@docfleet/workflows';
import type { Deps } from '../../deps';
import { enqueueAttempt, priorOperation, startAttempt, type WorkflowRequest } from './attempts';

export type SyncRequest = WorkflowRequest<SyncOperationType>;

/** How long a synchronous request is held for its run (minutes on large documents). */
export const SYNC_WAIT_MS = 15 * 60_000;

/**
 * Synchronous workflows (classify, edit). The model runs on the workflow worker, because only the
 * worker may reach model providers (deploy/k8s network policy); the request is held until the
 * operation is terminal. Credit rule (docs/api.md, Credits): one debit per idempotency key, never refunded.
 *
 *   no prior run            → create the operation and debit, in one transaction; run   (debited)
 *   queued or in_progress   → wait for that run                                          (not debited)
 *   failed or cancelled     → a fresh attempt of the model call                          (not debited)
 *   completed               → the stored output, no model call                           (not debited, replayed)
 */
export async function dispatchSync(
  deps: Pick<Deps, 'db' | 'queues' | 'logger'> & { env?: Pick<Deps['env'], 'WORKER_LOST_SECONDS'> },
  p: Principal,
  q: SyncRequest,
  opts: { waitMs?: number } = {},
): Promise<Record<string, unknown>> {
  const lostMs = (deps.env?.WORKER_LOST_SECONDS ?? 40) * 1000;
  let debitedHere = false;
  for (let round = 0; round < 4; round++) {
    const prior = await priorOperation(deps.db, p, q);
    const credit = (debited: boolean, replayed = false): SyncCredit => ({
      debited,
      credits: SYNC_CREDITS,
      idempotency_key: q.idempotencyKey,
      replayed,
    });
    if (prior?.status === 'completed') return answer(prior, credit(debitedHere, !debitedHere));
    if (prior && !isTerminal(prior.status)) {
      const seen = await waitTerminal(deps.db, prior, opts.waitMs, lostMs);
      if (seen.status === 'in_progress') await abandonLost(deps, seen, lostMs);
      else if (!wasAbandoned(seen)) return answer(seen, credit(debitedHere));
      continue; // the attempt is failed now: the next round runs a fresh one, not charged again
    }

    let op: Operation | null;
    let debited = false;
    try {
      op = await creditTransaction(deps.db, p.orgId, async (tx) => {
        // A retry of a failed or cancelled run gets a fresh attempt: the model runs again, the
        // charge stands as it is.
        const row = await startAttempt(tx, p, q, prior);
        if (!row || prior) return row;
        // 402 here rolls the operation back with it.
        const d = await debitCredits(tx, {
          orgId: p.orgId,
          amount: SYNC_CREDITS,
          idempotencyKey: syncChargeKey(row),
          reason: q.type,
          operationId: row.id,
          fileId: q.file.id,
        });
        debited = d.debited;
        debitedHere ||= d.debited;
        return row;
      });
    } catch (err) {
      if (isUniqueViolation(err)) continue; // an identical request created it first: wait for that one
      throw err;
    }
    if (!op) continue;

    try {
      await enqueueAttempt(deps, op);
    } catch (err) {
      deps.logger.error({ err, operation_id: op.id }, 'sync dispatch: enqueue failed; failing the attempt');
      // Not refunded (the sync rule), but a retry with the same key runs again without a charge.
      await endAttempt(
        deps.db,
        op,
        { status: 'failed', error: 'service_unavailable: the run could not be queued' },
        { refund: false },
      ).catch(() => undefined);
      throw new ApiError(
        'service_unavailable',
        'The workflow queue is unavailable. Retry with the same idempotency_key: it will not be charged again.',
        { details: { operation_id: op.id, credit: credit(debited) } },
      );
    }
    const seen = await waitTerminal(deps.db, op, opts.waitMs, lostMs);
    if (seen.status === 'in_progress') await abandonLost(deps, seen, lostMs);
    else if (!wasAbandoned(seen)) return answer(seen, credit(debitedHere));
  }
  throw new ApiError(
    'service_unavailable',
    'The run could not be completed: its attempts kept losing their worker or changing state concurrently. Retry with the same idempotency_key: it will not be charged again.',
  );
}

/** Failed because its worker or queue entry was lost (here or by the reaper), not by the model: worth a fresh attempt. */
const wasAbandoned = (op: Operation) => op.status === 'failed' && /^(worker_lost|abandoned): /.test(op.error ?? '');

/**
 * The attempt's worker died (no heartbeat for WORKER_LOST_SECONDS): end it failed, without a refund
 * (the synchronous rule), so the caller's next round starts a fresh attempt that is not charged.
 * If the attempt moved meanwhile (it finished, or another request took it over), nothing happens.
 */
async function abandonLost(deps: Pick<Deps, 'db' | 'logger'>, op: Operation, lostMs: number) {
  const ended = await endAttempt(
    deps.db,
    op,
    {
      status: 'failed',
      error: `worker_lost: the worker running attempt ${op.attempt} stopped (no heartbeat for ${Math.round(lostMs / 1000)} s); it is run again`,
    },
    { refund: false },
  );
  if (ended)
    deps.logger.warn(
      { operation_id: op.id, attempt: op.attempt },
      'sync operation lost its worker; running a fresh attempt',
    );
}

/**
 * Polls the row (50 ms, backing off to 250 ms) until the operation is terminal, or until its
 * attempt has lost its worker (then the in_progress row is returned).
 */
async function waitTerminal(db: Db, op: Operation, waitMs = SYNC_WAIT_MS, lostMs = 40_000): Promise<Operation> {
  const deadline = Date.now() + waitMs;
  let delay = 50;
  for (;;) {
    const row = await db.operation.findUnique({ where: { id: op.id } });
    if (!row)
      throw new ApiError('operation_not_found', 'The operation disappeared while it ran (its file was deleted).');
    if (isTerminal(row.status) || attemptLost(row, lostMs)) return row;
    if (Date.now() > deadline) {
      throw new ApiError(
        'service_unavailable',
        `The run did not finish within ${Math.round(waitMs / 1000)} s; it continues. Send the same request with the same idempotency_key later to get its result without a new charge.`,
        { details: { operation_id: op.id } },
      );
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(250, Math.round(delay * 1.5));
  }
}

const MODEL_FAILURES = new Set([
  'model_call_failed',
  'model_timeout',
  'invalid_model_output',
  'model_cancelled',
  'split_model_unavailable',
]);

/** The response body of a completed run, or the run's failure as an API error (code from its `error`). */
function answer(op: Operation, credit: SyncCredit): Record<string, unknown> {
  if (op.status === 'completed') return { ...(op.output as Record<string, unknown>), credit };
  const message = op.error ?? 'The run failed.';
  const code = /^([a-z_]+):\s/.exec(message)?.[1];
  const details = { operation_id: op.id, credit };
  if (op.status === 'cancelled')
    throw new ApiError('model_call_failed', `The run was cancelled: ${message}`, { details });
  if (code && !MODEL_FAILURES.has(code) && code in CODE_STATUS)
    throw new ApiError(code as ErrorCode, message.slice(code.length + 2), { details });
  throw new ApiError('model_call_failed', message, { details });
}
