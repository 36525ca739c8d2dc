// The events of state changes, written by the transaction that makes the change (the outbox).
// Call sites add one line after their terminal write; the event's data is read here, inside that
// transaction, so it shows the row as committed.
import type { api } from '@docfleet/contracts';
import type { Tx } from '@docfleet/db';
import { emitEvent } from './outbox';

const TERMINAL = ['completed', 'failed', 'cancelled'];

/** `parse.job.*` / `extract.job.*` for a job that has just reached a terminal status in `tx`. */
export async function emitJobEnded(tx: Tx, jobId: string): Promise<void> {
  const j = await tx.job.findUnique({ where: { id: jobId } });
  if (!j || !TERMINAL.includes(j.status)) return;
  await emitEvent(tx, {
    orgId: j.org_id,
    type: `${j.kind === 'extract' ? 'extract' : 'parse'}.job.${j.status}` as api.WebhookEventType,
    resourceKey: `job:${j.id}`,
    knowledgeBaseId: j.knowledge_base_id,
    fileId: j.file_id,
    data: {
      job_id: j.id,
      kind: j.kind,
      file_id: j.file_id,
      file_version_id: j.file_version_id,
      knowledge_base_id: j.knowledge_base_id,
      status: j.status,
      stage: j.stage,
      percent: j.percent,
      total_pages: j.total_pages,
      completed_pages: j.completed_pages,
      error: j.status === 'completed' ? null : j.error,
      error_code: j.error_code,
      result: j.status === 'completed' ? (j.result ?? null) : null,
      created_at: j.created_at.toISOString(),
      completed_at: j.completed_at?.toISOString() ?? null,
    },
  });
}

/** `operation.*` with the Operation as the API answers it (plus its type, file and knowledge base). */
export async function emitOperationEnded(
  tx: Tx,
  op: { id: string; org_id: string; file_id: string | null; knowledge_base_id: string | null; status: string },
  operation: api.Operation,
): Promise<void> {
  if (!TERMINAL.includes(op.status)) return;
  await emitEvent(tx, {
    orgId: op.org_id,
    type: `operation.${op.status}` as api.WebhookEventType,
    resourceKey: `operation:${op.id}`,
    knowledgeBaseId: op.knowledge_base_id,
    fileId: op.file_id,
    data: { ...operation, file_id: op.file_id, knowledge_base_id: op.knowledge_base_id },
  });
}

/** `file.uploaded`: a new file or a new version of one. */
export async function emitFileUploaded(
  tx: Tx,
  orgId: string,
  file: Record<string, unknown> & { id: string; knowledge_base_id: string },
) {
  await emitEvent(tx, {
    orgId,
    type: 'file.uploaded',
    resourceKey: `file:${file.id}`,
    knowledgeBaseId: file.knowledge_base_id,
    fileId: file.id,
    data: file,
  });
}

/** `index.updated`: a knowledge base's search index moved to a new version. */
export async function emitIndexUpdated(
  tx: Tx,
  e: { orgId: string; knowledgeBaseId: string; indexVersion: number | bigint; fileId?: string | null; reason: string },
) {
  await emitEvent(tx, {
    orgId: e.orgId,
    type: 'index.updated',
    resourceKey: `kb:${e.knowledgeBaseId}`,
    knowledgeBaseId: e.knowledgeBaseId,
    fileId: e.fileId ?? null,
    data: {
      knowledge_base_id: e.knowledgeBaseId,
      index_version: Number(e.indexVersion),
      file_id: e.fileId ?? null,
      reason: e.reason,
    },
  });
}
