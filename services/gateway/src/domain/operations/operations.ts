import { requireKbAccess, requirePermission, type Principal } from '@docfleet/auth';
import type { Db } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { endAttempt, isTerminal, QUEUED_OPERATION_TYPES } from '@docfleet/workflows';

/**
 * An operation the caller may see: same organisation, its file still exists (a permanently deleted
 * file takes its operations with it), viewer access to the file's knowledge base. Anything else
 * is 404 operation_not_found, so ids of other organisations reveal nothing.
 */
export async function loadOperation(db: Db, p: Principal, operationId: string) {
  const notFound = () => new ApiError('operation_not_found', 'Operation not found.');
  const op = await db.operation.findFirst({ where: { id: operationId, org_id: p.orgId } });
  if (!op) throw notFound();
  if (op.file_id) {
    const file = await db.file.findFirst({
      where: { id: op.file_id, org_id: p.orgId },
      select: { knowledge_base_id: true },
    });
    if (!file) throw notFound();
    await requireKbAccess(db, p, file.knowledge_base_id, 'viewer');
  }
  return op;
}

/**
 * Cooperative cancel (docs/api.md, States). A queued attempt no worker has taken yet ends here, refunded in the
 * same transaction; a running one is flagged and ends at its next checkpoint (the worker writes
 * the terminal status and the refund). Terminal operations are returned unchanged.
 */
export async function cancelOperation(db: Db, p: Principal, operationId: string) {
  const op = await loadOperation(db, p, operationId);
  requirePermission(p, op.permission as Parameters<typeof requirePermission>[1]);
  if (isTerminal(op.status)) return op;
  const queued = (QUEUED_OPERATION_TYPES as readonly string[]).includes(op.operation_type);
  if (op.status === 'queued') {
    const ended = await endAttempt(
      db,
      op,
      { status: 'cancelled', error: 'Cancelled on request before it started.' },
      { refund: queued },
    );
    if (ended) return ended;
  } else {
    await db.operation.updateMany({
      where: { id: op.id, attempt: op.attempt, status: 'in_progress', cancel_requested_at: null },
      data: { cancel_requested_at: new Date() },
    });
  }
  return db.operation.findUniqueOrThrow({ where: { id: op.id } });
}
