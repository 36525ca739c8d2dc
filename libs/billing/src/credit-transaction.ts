import type { Db, Tx } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';

/**
 * How long a credit transaction may wait for the ones of the same organisation ahead of it in this
 * process before the caller is told the service is busy (503): longer than any burst the row lock
 * clears, short enough that a client is not left hanging.
 */
export const CREDIT_QUEUE_WAIT_MS = 20_000;

interface Turn {
  done: Promise<void>;
}
const tails = new Map<string, Turn>();

/**
 * Runs fn in a database transaction that charges or holds the organisation's credits, one such
 * transaction per organisation at a time in this process.
 *
 * Why: every credit write locks the organisation's account row (lockAccount), so concurrent charges
 * of one organisation run one after another anyway. Without this queue each of them would hold a
 * pooled connection while it waits for that lock, and a burst (200 parse requests at once) starved
 * the pool: transactions could not even start and answered 500. Queued here, a burst holds at
 * most one connection per organisation and process; the row lock still serialises processes.
 * Other organisations and every read keep the rest of the pool. A transaction that does not get its
 * turn within CREDIT_QUEUE_WAIT_MS answers 503 service_unavailable.
 *
 * Do not nest: fn must not call creditTransaction for the same organisation (it would wait on itself).
 */
export async function creditTransaction<T>(
  db: Db,
  orgId: string,
  fn: (tx: Tx) => Promise<T>,
  opts: { waitMs?: number } = {},
): Promise<T> {
  const ahead = tails.get(orgId);
  let release!: () => void;
  const mine = new Promise<void>((r) => (release = r));
  // The next caller waits for everyone ahead of us and for us, even if we give up waiting early.
  const turn: Turn = { done: (ahead ? ahead.done : Promise.resolve()).then(() => mine) };
  tails.set(orgId, turn);
  // Forget the organisation once everyone up to us is done (not when we return: a caller that gave
  // up waiting returns while those ahead of it still run).
  void turn.done.then(() => {
    if (tails.get(orgId) === turn) tails.delete(orgId);
  });
  try {
    if (ahead) await waitTurn(ahead.done, opts.waitMs ?? CREDIT_QUEUE_WAIT_MS);
    return await db.$transaction(fn);
  } finally {
    release();
  }
}

async function waitTurn(ahead: Promise<void>, waitMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new ApiError(
            'service_unavailable',
            'Too many credit operations for this organisation at once; try again shortly.',
            { headers: { 'retry-after': '2' } },
          ),
        ),
      waitMs,
    );
  });
  try {
    await Promise.race([ahead, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Credit transactions of the organisation queued or running in this process (for tests and metrics). */
export function creditQueueActive(orgId: string): boolean {
  return tails.has(orgId);
}
