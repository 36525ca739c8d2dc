// The Operation resource (docs/api.md, Resources and States). Every queued workflow and
// every synchronous one is a row in `operations`; this module owns its wire shape, its charging
// keys and its terminal transitions, so the gateway (cancel of a queued attempt) and the workflow
// worker (completion, failure, cancel at a checkpoint) move it the same way.
import { refundDebit } from '@docfleet/billing';
import type { api } from '@docfleet/contracts';
import type { Db, Operation, Tx } from '@docfleet/db';
import { Prisma } from '@docfleet/db';
import { emitOperationEnded } from '@docfleet/webhooks';

export const QUEUED_OPERATION_TYPES = [
  'split_run',
  'extract_run',
  'split_rules_suggest',
  'schema_generate',
] as const satisfies readonly api.OperationType[];
export const SYNC_OPERATION_TYPES = [
  'classify_run',
  'classify_suggest',
  'edit_run',
] as const satisfies readonly api.OperationType[];
export type QueuedOperationType = (typeof QUEUED_OPERATION_TYPES)[number];
export type OperationType = api.OperationType;
export type OperationStatus = api.OperationStatus;
export const TERMINAL: readonly OperationStatus[] = ['completed', 'failed', 'cancelled'];
export const isTerminal = (s: string) => (TERMINAL as readonly string[]).includes(s);

export type Progress = api.OperationProgress;
export const NO_PROGRESS: Progress = { done: 0, total: 0, phase: null };

/** Ledger key of one attempt's charge; its refund is `<key>:refund` (libs/billing refundDebit). */
export function attemptKey(op: Pick<Operation, 'operation_type' | 'idempotency_key' | 'attempt'>): string {
  return `op:${op.operation_type}:${op.idempotency_key}:attempt-${op.attempt}`;
}

/** BullMQ job id of an attempt's `operation.run` (one queue entry per attempt; the reaper looks it up). */
export const operationJobId = (operationId: string, attempt: number) => `op-${operationId}-${attempt}`;

/** The Operation resource as the API answers it. */
export function serializeOperation(op: Operation): api.Operation {
  const p = (op.progress ?? {}) as Partial<Progress>;
  return {
    operation_id: op.id,
    operation_type: op.operation_type as OperationType,
    status: op.status as OperationStatus,
    progress: { done: p.done ?? 0, total: p.total ?? 0, phase: p.phase ?? null },
    output: op.status === 'completed' ? ((op.output ?? null) as api.JsonObject | null) : null,
    error: op.status === 'failed' || op.status === 'cancelled' ? op.error : null,
    created_at: op.created_at.toISOString(),
    completed_at: op.completed_at?.toISOString() ?? null,
  };
}

export type Ending =
  | { status: 'completed'; output: unknown }
  | { status: 'failed'; error: string }
  | { status: 'cancelled'; error?: string };

/**
 * Ends one attempt: writes the terminal status and, for a failed or cancelled queued attempt, the
 * refund of its charge in the same transaction (docs/api.md, Credits). Guarded by attempt and a non-terminal
 * status, so a stale worker or a racing cancel cannot end an attempt twice. Returns the row when
 * this call ended it, null when something else already had.
 */
export async function endAttempt(
  db: Db | Tx,
  op: Pick<Operation, 'id' | 'org_id' | 'file_id' | 'operation_type' | 'idempotency_key' | 'attempt'>,
  ending: Ending,
  opts: { refund: boolean },
): Promise<Operation | null> {
  const run = async (tx: Tx) => {
    const now = new Date();
    const n = await tx.operation.updateMany({
      where: { id: op.id, attempt: op.attempt, status: { in: ['queued', 'in_progress'] } },
      data: {
        status: ending.status,
        completed_at: now,
        output: ending.status === 'completed' ? (ending.output as Prisma.InputJsonValue) : Prisma.DbNull,
        error: ending.status === 'completed' ? null : (ending.error ?? 'Cancelled on request.'),
      },
    });
    if (!n.count) return null;
    if (ending.status !== 'completed' && opts.refund) {
      await refundDebit(tx, {
        orgId: op.org_id,
        originalKey: attemptKey(op),
        reason: `${op.operation_type} attempt ${op.attempt} ${ending.status}: refund`,
        operationId: op.id,
        fileId: op.file_id,
      });
    }
    const ended = await tx.operation.findUniqueOrThrow({ where: { id: op.id } });
    await emitOperationEnded(tx, ended, serializeOperation(ended));
    return ended;
  };
  return '$transaction' in db ? (db as Db).$transaction(run) : run(db as Tx);
}

/** Advisory progress; never moves a terminal row. */
export async function reportProgress(db: Db, opId: string, attempt: number, progress: Progress): Promise<void> {
  await db.operation.updateMany({
    where: { id: opId, attempt, status: 'in_progress' },
    data: { progress: progress as unknown as Prisma.InputJsonValue },
  });
}

/** The running attempt's worker is alive: heartbeat_at = now (updated_at, the row's change time, stays). */
export async function beatOperation(db: Db, opId: string, attempt: number): Promise<void> {
  await db.$executeRaw`UPDATE operations SET heartbeat_at = now() WHERE id = ${opId}::uuid AND attempt = ${attempt} AND status = 'in_progress'`;
}

/**
 * True when an in_progress attempt has lost its worker: no heartbeat for `lostMs` (an attempt that
 * never beat counts from when it started). Queued attempts are never "lost" here: whether their
 * queue entry still exists is the reaper's question.
 */
export function attemptLost(
  op: Pick<Operation, 'status' | 'heartbeat_at' | 'started_at' | 'updated_at'>,
  lostMs: number,
  now = new Date(),
): boolean {
  if (op.status !== 'in_progress') return false;
  const last = op.heartbeat_at ?? op.started_at ?? op.updated_at;
  return now.getTime() - last.getTime() > lostMs;
}
