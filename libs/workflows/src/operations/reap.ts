import type { Db } from '@docfleet/db';
import { endAttempt, QUEUED_OPERATION_TYPES } from './operations';

export interface ReapOperationsOptions {
  now?: Date;
  /**
   * A candidate: an in_progress attempt whose worker has not beaten (heartbeat_at, or started_at
   * when it never did) for this long, or a queued one not picked up for this long.
   */
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
    where: {
      OR: [
        { status: 'queued', updated_at: { lt: before } },
        { status: 'in_progress', heartbeat_at: { lt: before } },
        {
          status: 'in_progress',
          heartbeat_at: null,
          OR: [{ started_at: { lt: before } }, { started_at: null, updated_at: { lt: before } }],
        },
      ],
    },
    take: 500,
  });
  const reaped: string[] = [];
  for (const op of stale) {
    if (await opts.hasLiveJob(op.id, op.attempt)) continue;
    const since = op.status === 'queued' ? op.updated_at : (op.heartbeat_at ?? op.started_at ?? op.updated_at);
    const ago = ageText(now.getTime() - since.getTime());
    const ended = await endAttempt(
      db,
      op,
      {
        status: 'failed',
        error: `abandoned: the ${op.status === 'queued' ? 'queue entry was lost' : 'worker stopped'} ${ago} ago and no worker holds the attempt; send the request again`,
      },
      { refund: (QUEUED_OPERATION_TYPES as readonly string[]).includes(op.operation_type) },
    );
    if (ended) reaped.push(op.id);
  }
  return reaped;
}

function ageText(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return s < 120 ? `${s} seconds` : `${Math.round(s / 60)} minutes`;
}
