// Takes a trashed or deleted file out of the search index (the index worker's 'index.remove-file'
// job runs it). Search already hides such rows at query time (it joins live files and their current version), so this is clean-up and a
// snapshot refresh, never what correctness depends on.
import { Prisma, clearPendingIndexJob, type Tx } from '@docfleet/db';
import type { SearchIndexDeps } from './deps';
import { applyIndexDelta, indexedKbsOfOrg, recountIndexState } from './index-state';
import { NO_TERMS, applyTermDelta, termCountsOf } from './search-stats';

export type RemoveOutcome =
  { status: 'removed' | 'pruned'; removed: number } | { status: 'skipped'; reason: 'file_live' };

/**
 * A trashed file loses all its segments; a permanently deleted one has lost them already (the
 * gateway deletes them with the file) and only the snapshot is refreshed. A file that is live
 * again (restored before this job ran) keeps the segments of its current version: only rows of
 * other versions go, so a late removal can never undo the re-index that the restore queued.
 */
export async function removeFile(
  deps: Pick<SearchIndexDeps, 'db' | 'txTimeoutMs'>,
  p: { orgId: string; fileId: string; pendingId?: string },
): Promise<RemoveOutcome> {
  return deps.db.$transaction(
    async (tx: Tx) => {
      // Applied by this transaction whatever it finds: no longer pending, in the same commit (issue 13.6).
      await clearPendingIndexJob(tx, p.pendingId);
      const files = await tx.$queryRaw<
        { knowledge_base_id: string; current_version_id: string | null; deleted_at: Date | null }[]
      >`
        SELECT knowledge_base_id::text, current_version_id::text, deleted_at FROM files
        WHERE id = ${p.fileId}::uuid AND org_id = ${p.orgId}::uuid FOR NO KEY UPDATE`;
      const file = files[0];
      if (!file) {
        const removed =
          await tx.$executeRaw`DELETE FROM evidence_index_segments WHERE file_id = ${p.fileId}::uuid AND org_id = ${p.orgId}::uuid`;
        // The file row is gone and so is the way to its knowledge base: refresh every indexed one
        // of the organisation (permanent deletes are rare; each refresh is one count).
        for (const kbId of await indexedKbsOfOrg(tx, p.orgId)) await recountIndexState(tx, p.orgId, kbId);
        return { status: 'removed' as const, removed };
      }
      if (file.deleted_at) {
        const gone = await termCountsOf(tx, Prisma.sql`s.file_id = ${p.fileId}::uuid`);
        const removed = await tx.$executeRaw`DELETE FROM evidence_index_segments WHERE file_id = ${p.fileId}::uuid`;
        if (removed) {
          const length = await applyTermDelta(tx, file.knowledge_base_id, NO_TERMS, gone);
          await applyIndexDelta(
            tx,
            p.orgId,
            file.knowledge_base_id,
            { segments: -removed, files: -1, length },
            p.fileId,
          );
        }
        return { status: 'removed' as const, removed };
      }
      const stale = Prisma.sql`s.file_id = ${p.fileId}::uuid AND s.file_version_id IS DISTINCT FROM ${file.current_version_id}::uuid`;
      const gone = await termCountsOf(tx, stale);
      const removed = await tx.$executeRaw`
        DELETE FROM evidence_index_segments s WHERE ${stale}`;
      if (!removed) return { status: 'skipped' as const, reason: 'file_live' as const };
      const length = await applyTermDelta(tx, file.knowledge_base_id, NO_TERMS, gone);
      const left = await tx.$queryRaw<
        { any: boolean }[]
      >`SELECT EXISTS (SELECT 1 FROM evidence_index_segments WHERE file_id = ${p.fileId}::uuid) AS any`;
      await applyIndexDelta(
        tx,
        p.orgId,
        file.knowledge_base_id,
        {
          segments: -removed,
          files: left[0]?.any ? 0 : -1,
          length,
        },
        p.fileId,
      );
      return { status: 'pruned' as const, removed };
    },
    { timeout: deps.txTimeoutMs ?? 600_000, maxWait: 30_000 },
  );
}
