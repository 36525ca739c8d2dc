// evidence_index_state: one row per knowledge base that the search endpoint reads its
// index_version and snapshot from. Updated as the last step of every index transaction.
import { Prisma, type Tx } from '@docfleet/db';
import { emitIndexUpdated } from '@docfleet/webhooks';
import { recountTerms } from './search-stats';

export interface IndexDelta {
  /** Rows inserted minus rows deleted by this transaction. */
  segments: number;
  /** +1 when the file now has rows and had none, -1 for the reverse, else 0. */
  files: number;
  /** Change of the rows' summed search_length (BM25 lengths); 0 when absent. */
  length?: number;
}

/**
 * Bumps the knowledge base's index version and applies this transaction's row and file deltas.
 * The upsert takes the state row's lock, so concurrent jobs of one knowledge base apply their
 * deltas one after the other and the counts stay exact; it is the transaction's last statement,
 * so the lock is held only until the commit. Cost is constant, whatever the knowledge base's size.
 */
export async function applyIndexDelta(
  tx: Tx,
  orgId: string,
  kbId: string,
  d: IndexDelta,
  fileId: string | null = null,
): Promise<void> {
  const [st] = await tx.$queryRaw<{ version: number }[]>`
    INSERT INTO evidence_index_state AS st (knowledge_base_id, org_id, version, segment_count, file_count, total_length, indexed_at, updated_at)
    VALUES (${kbId}::uuid, ${orgId}::uuid, 1, greatest(${d.segments}::int, 0), greatest(${d.files}::int, 0), greatest(${d.length ?? 0}::float8, 0), now(), now())
    ON CONFLICT (knowledge_base_id) DO UPDATE SET
      version = st.version + 1,
      segment_count = greatest(st.segment_count + ${d.segments}::int, 0),
      file_count = greatest(st.file_count + ${d.files}::int, 0),
      total_length = greatest(st.total_length + ${d.length ?? 0}::float8, 0),
      indexed_at = now(), updated_at = now()
    RETURNING version`;
  // index.updated, in this transaction (the outbox).
  if (st)
    await emitIndexUpdated(tx, {
      orgId,
      knowledgeBaseId: kbId,
      indexVersion: st.version,
      fileId,
      reason: 'file indexed',
    });
}

/**
 * Counts the knowledge base's rows again (O(rows of the knowledge base)). Used only where the
 * rows went without this worker seeing them: a permanent delete removes them in the gateway.
 */
export async function recountIndexState(tx: Tx, orgId: string, kbId: string): Promise<void> {
  await tx.$executeRaw`
    INSERT INTO evidence_index_state (knowledge_base_id, org_id) VALUES (${kbId}::uuid, ${orgId}::uuid)
    ON CONFLICT (knowledge_base_id) DO NOTHING`;
  await tx.$queryRaw`SELECT 1 FROM evidence_index_state WHERE knowledge_base_id = ${kbId}::uuid FOR UPDATE`;
  // A new statement after the lock is held: its snapshot includes every earlier commit.
  await recountTerms(tx, kbId);
  await tx.$executeRaw`
    UPDATE evidence_index_state st
    SET version = st.version + 1, segment_count = c.n, file_count = c.files, total_length = c.length, indexed_at = now(), updated_at = now()
    FROM (SELECT count(*)::int AS n, count(DISTINCT file_id)::int AS files, coalesce(sum(search_length), 0)::float8 AS length
      FROM evidence_index_segments WHERE knowledge_base_id = ${kbId}::uuid) c
    WHERE st.knowledge_base_id = ${kbId}::uuid`;
  const st = await tx.evidenceIndexState.findUnique({ where: { knowledge_base_id: kbId }, select: { version: true } });
  if (st) await emitIndexUpdated(tx, { orgId, knowledgeBaseId: kbId, indexVersion: st.version, reason: 'recounted' });
}

/** Every indexed knowledge base of an organisation (when the file that changed is gone). */
export async function indexedKbsOfOrg(tx: Tx, orgId: string): Promise<string[]> {
  const rows = await tx.$queryRaw<{ id: string }[]>(
    Prisma.sql`SELECT knowledge_base_id::text AS id FROM evidence_index_state WHERE org_id = ${orgId}::uuid ORDER BY knowledge_base_id`,
  );
  return rows.map((r) => r.id);
}
