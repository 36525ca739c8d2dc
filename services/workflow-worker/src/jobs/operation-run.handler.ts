import { isApiError, redactDetail } from '@docfleet/errors';
import { isModelError, type ResolvedModel } from '@docfleet/models';
import type { JobPayload } from '@docfleet/queue';
import { startHeartbeat } from '@docfleet/runtime';
import {
  beatOperation,
  endAttempt,
  QUEUED_OPERATION_TYPES,
  reportProgress,
  type OperationType,
} from '@docfleet/workflows';
import type { WorkerDeps } from '../deps';
import { RUNNERS } from '../runners';
import { OperationCancelled, type RunContext } from '../runners/types';

const isQueuedType = (t: string) => (QUEUED_OPERATION_TYPES as readonly string[]).includes(t);

/**
 * The message an operation's `error` carries for a failure (stable code first where there is one),
 * redacted: no paths or stack frames (docs/errors.md); the log has the whole error.
 */
export function failureMessage(err: unknown): string {
  if (isModelError(err) || isApiError(err)) return redactDetail(`${err.code}: ${err.message}`);
  return redactDetail((err as Error)?.message ?? String(err));
}

/**
 * Runs one attempt of an operation (job `operation.run`). A payload for an older attempt, or for
 * an operation that already ended, is dropped. Every outcome is written by endAttempt: completion
 * with the output, failure with its reason, or cancel at a checkpoint; failed and cancelled
 * attempts of queued workflows are refunded in that same transaction. Synchronous workflows
 * (classify, edit) are never refunded (docs/api.md, Credits: their charge stands when the model call fails).
 * A worker that dies mid-run leaves the attempt in_progress with a heartbeat that stops: BullMQ
 * hands the job to another worker, which runs the attempt again; a synchronous request waiting on
 * it starts a fresh attempt once the heartbeat is WORKER_LOST_SECONDS old, and the reaper fails
 * (and refunds) an attempt no queue entry can finish.
 */
export async function runOperation(
  deps: WorkerDeps,
  payload: JobPayload<'operation.run'>,
  signal: AbortSignal,
): Promise<string> {
  const { db, logger } = deps;
  const op = await db.operation.findFirst({ where: { id: payload.operationId, org_id: payload.orgId } });
  if (!op || op.attempt !== payload.attempt || !(op.status === 'queued' || op.status === 'in_progress')) return 'stale';
  const refund = isQueuedType(op.operation_type);
  const log = logger.child({ operation_id: op.id, operation_type: op.operation_type, attempt: op.attempt });

  await db.operation.updateMany({
    where: { id: op.id, attempt: op.attempt, status: 'queued' },
    data: { status: 'in_progress', started_at: new Date(), heartbeat_at: new Date() },
  });
  const stopBeating = startHeartbeat(
    () => beatOperation(db, op.id, op.attempt),
    deps.heartbeatMs ?? 10_000,
    (err) => log.warn({ err }, 'operation heartbeat failed'),
  );

  let model: ResolvedModel | undefined;
  const ctx: RunContext = {
    op,
    request: (op.request ?? {}) as Record<string, unknown>,
    deps,
    model: () => (model ??= deps.models.resolve(op.model_id)),
    checkpoint: async () => {
      const row = await db.operation.findUnique({
        where: { id: op.id },
        select: { cancel_requested_at: true, status: true, attempt: true },
      });
      if (!row || row.attempt !== op.attempt || row.cancel_requested_at || row.status === 'cancelled')
        throw new OperationCancelled();
    },
    progress: (done, total, phase) => reportProgress(db, op.id, op.attempt, { done, total, phase }),
    signal,
  };

  const runner = RUNNERS[op.operation_type as OperationType];
  try {
    if (!runner) throw new Error(`operation type ${op.operation_type} is not supported by this worker`);
    await ctx.checkpoint();
    const output = await runner(ctx);
    const ended = await endAttempt(db, op, { status: 'completed', output }, { refund });
    log.info({ outcome: ended ? 'completed' : 'superseded' }, 'operation finished');
    return ended ? 'completed' : 'superseded';
  } catch (err) {
    if (signal.aborted && !(err instanceof OperationCancelled)) {
      // Shutting down: hand the attempt back (BullMQ retries the job on another worker).
      throw err;
    }
    const ending =
      err instanceof OperationCancelled
        ? { status: 'cancelled' as const, error: 'Cancelled on request.' }
        : { status: 'failed' as const, error: failureMessage(err) };
    if (ending.status === 'failed') log.warn({ err }, 'operation failed');
    await endAttempt(db, op, ending, { refund });
    return ending.status;
  } finally {
    stopBeating();
  }
}
