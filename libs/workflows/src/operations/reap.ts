import type { Db } from '@docfleet/db';
import { endAttempt, QUEUED_OPERATION_TYPES } from './operations';

export interface ReapOperationsOptions {
  now?: Date;
  /** An unfinished operation untouched for this long is a candidate (runners write progress). */
  staleMs: number;
  /**
   * Whether the attempt still has a live queue entry (waiting, delayed or active). The billing
   * service answers from BullMQ (`op-<id>-<attempt>`); an attempt with a live entry is left alone
   * however old it is.
   */
  hasLiveJob(operationId: string, attempt: number): Promise<boolean>;
}

/**
 * Ends operations whose attempt can no longer finish: the queue entry was lost (Redis flushed)
 * or BullMQ gave up on it (the worker kept dying or could not reach the database to record the
 * outcome). They fail with a reason, and queued workflows are refunded in the same transaction,
 * so no credit stays charged for work that will never happen.
 */
export async function reapOperations(db: Db, opts: ReapOperationsOptions): Promise<string[]> {
  const now = opts.now ?? new Date();
  const before = new Date(now.getTime() - opts.staleMs);
  const stale = await db.operation.findMany({
    where: { status: { in: ['queued', 'in_progress'] }, updated_at: { lt: before } },
    take: 500,
  });
  const reaped: string[] = [];
  for (const op of stale) {
    if (await opts.hasLiveJob(op.id, op.attempt)) continue;
    const minutes = Math.round((now.getTime() - op.updated_at.getTime()) / 60000);
    const ended = await endAttempt(db, op, {
      status: 'failed',
      error: `abandoned: the ${op.status === 'queued' ? 'queue entry was lost' : 'worker stopped'} ${minutes} minutes ago and no worker holds the attempt; send the request again`,
    }, { refund: (QUEUED_OPERATION_TYPES as readonly string[]).includes(op.operation_type) });
    if (ended) reaped.push(op.id);
  }
  return reaped;
}
