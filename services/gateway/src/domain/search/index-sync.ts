// Keeps the search index in step with trash and restore. Search hides trashed files at query time
// anyway; these jobs remove their rows (and refresh the snapshot) or bring them back.
import type { Deps } from '../../deps';

/** After a soft or permanent delete: the index worker drops the file's segments. */
export async function unindexFile(
  deps: Pick<Deps, 'queues' | 'logger'>,
  file: { org_id: string; id: string },
): Promise<void> {
  await deps.queues.enqueue('index.remove-file', { orgId: file.org_id, fileId: file.id }).catch((err: unknown) => {
    // The file is already hidden from search; only clean-up is late. Do not fail the request.
    deps.logger.warn({ err, file_id: file.id }, 'could not enqueue index.remove-file');
  });
}

/** After a restore: re-index the newest parse of the current version, if there is one. */
export async function reindexFile(
  deps: Pick<Deps, 'db' | 'queues'>,
  file: { org_id: string; id: string; current_version_id: string | null },
): Promise<void> {
  if (!file.current_version_id) return;
  const manifest = await deps.db.artifactManifest.findFirst({
    where: { file_id: file.id, file_version_id: file.current_version_id, artifact_type: 'parse' },
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    select: { id: true },
  });
  if (!manifest) return;
  await deps.queues.enqueue('index.file-version', {
    orgId: file.org_id,
    fileId: file.id,
    fileVersionId: file.current_version_id,
    manifestId: manifest.id,
  });
}
