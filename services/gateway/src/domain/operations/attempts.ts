// What both dispatchers (queued workflows and synchronous ones) do to an operation row: find the
// prior run of a request identity, start an attempt (a new row or a fresh attempt of a failed or
// cancelled one, guarded so one racer wins), and hand the attempt to the workflow queue.
import type { Principal } from '@docfleet/auth';
import { Prisma, type Db, type Operation, type Tx } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { NO_PROGRESS, operationJobId, type OperationType } from '@docfleet/workflows';
import type { Deps } from '../../deps';

/** Every model workflow needs this permission (docs/api.md, "Validation order"), and cancel demands it again. */
export const WORKFLOW_PERMISSION = 'extract.run';

export interface WorkflowRequest<T extends OperationType = OperationType> {
  type: T;
  file: { id: string; knowledge_base_id: string };
  /** The caller's key, or the workflow's default key derived from the request's content. */
  idempotencyKey: string;
  /** Everything the worker needs to run the attempt (stored on the row, replaced on a fresh attempt). */
  request: Record<string, unknown>;
  modelId: string;
}

/** The operation of this request identity, if any; a key reused for another file is a 409. */
export async function priorOperation(db: Db, p: Principal, q: WorkflowRequest): Promise<Operation | null> {
  const prior = await db.operation.findUnique({
    where: {
      org_id_operation_type_idempotency_key: {
        org_id: p.orgId,
        operation_type: q.type,
        idempotency_key: q.idempotencyKey,
      },
    },
  });
  if (prior && prior.file_id !== q.file.id) {
    throw new ApiError(
      'idempotency_conflict',
      `This idempotency_key was already used for a ${q.type} of another file.`,
    );
  }
  return prior;
}

/**
 * Inside the caller's transaction: a new operation (attempt 1), or the failed or cancelled `prior`
 * reset to a fresh attempt. Null when a concurrent request reset it first; a concurrent create
 * surfaces as a unique violation. The caller charges in the same transaction.
 */
export async function startAttempt(
  tx: Tx,
  p: Principal,
  q: WorkflowRequest,
  prior: Operation | null,
): Promise<Operation | null> {
  if (!prior) {
    return tx.operation.create({
      data: {
        org_id: p.orgId,
        knowledge_base_id: q.file.knowledge_base_id,
        file_id: q.file.id,
        operation_type: q.type,
        status: 'queued',
        request: q.request as Prisma.InputJsonValue,
        model_id: q.modelId,
        permission: WORKFLOW_PERMISSION,
        idempotency_key: q.idempotencyKey,
        attempt: 1,
        created_by_user_id: p.userId ?? null,
        api_key_id: p.apiKeyId ?? null,
      },
    });
  }
  const n = await tx.operation.updateMany({
    where: { id: prior.id, attempt: prior.attempt, status: { in: ['failed', 'cancelled'] } },
    data: {
      status: 'queued',
      attempt: prior.attempt + 1,
      output: Prisma.DbNull,
      error: null,
      completed_at: null,
      started_at: null,
      cancel_requested_at: null,
      progress: NO_PROGRESS as unknown as Prisma.InputJsonValue,
      request: q.request as Prisma.InputJsonValue,
      model_id: q.modelId,
    },
  });
  return n.count ? tx.operation.findUniqueOrThrow({ where: { id: prior.id } }) : null;
}

/** Puts the attempt on the workflow queue (one BullMQ job per attempt). */
export function enqueueAttempt(deps: Pick<Deps, 'queues'>, op: Operation): Promise<unknown> {
  return deps.queues.enqueue(
    'operation.run',
    { operationId: op.id, orgId: op.org_id, attempt: op.attempt },
    { jobId: operationJobId(op.id, op.attempt) },
  );
}
