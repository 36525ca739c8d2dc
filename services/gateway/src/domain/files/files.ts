import path from 'node:path';
import { reachableKbIds, requireKbAccess, requirePermission, type AccessLevel, type Principal } from '@docfleet/auth';
import { MAX_JSON_DEPTH, formatJsonPath, tooDeepPath } from '@docfleet/contracts';
import { isUniqueViolation, type Db, type Tx } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import { ACTIVE_JOB_STATUSES } from '@docfleet/jobs';
import { fileVersionKey, filePrefix } from '@docfleet/storage';
import { emitFileUploaded } from '@docfleet/webhooks';
import type { Deps } from '../../deps';
import { serializeFile } from '../../http/serializers';
import { deleteFileRows, loadKb } from '../knowledge-bases/knowledge-bases';
import { loadFolder } from '../knowledge-bases/folders';
import { sniffContentType } from '../../upload/sniff';
import type { StagedFile } from '../../upload/staging-storage';

const withVersion = { current_version: true } as const;

/** A file of the caller's organisation (soft-deleted ones only when asked); others look unknown. */
export async function loadFile(
  db: Db | Tx,
  p: Principal,
  fileId: string,
  opts: { includeDeleted?: boolean; level?: AccessLevel } = {},
) {
  const file = await db.file.findFirst({ where: { id: fileId, org_id: p.orgId }, include: withVersion });
  if (!file || (file.deleted_at && !opts.includeDeleted) || !file.current_version)
    throw new ApiError('file_not_found', 'File not found.');
  await requireKbAccess(db, p, file.knowledge_base_id, opts.level ?? 'viewer');
  return file as typeof file & { current_version: NonNullable<typeof file.current_version> };
}

/** Strips any path the client sent and refuses names that cannot be shown safely. */
export function cleanFilename(name: string): string {
  const base = path.posix.basename(name.replace(/\\/g, '/')).trim();
  // eslint-disable-next-line no-control-regex
  if (!base || base === '.' || base === '..' || /[\u0000-\u001f\u007f]/.test(base)) {
    throw new ApiError('invalid_request_body', 'The filename is empty or contains control characters.');
  }
  return base.slice(0, 512);
}

export function parseMetadata(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    throw new ApiError('invalid_metadata', 'metadata must be a JSON object encoded as a string.');
  }
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new ApiError('invalid_metadata', 'metadata must be a JSON object.');
  const tooDeep = tooDeepPath(v, MAX_JSON_DEPTH);
  if (tooDeep)
    throw new ApiError(
      'invalid_metadata',
      `metadata is nested deeper than ${MAX_JSON_DEPTH} levels at ${formatJsonPath(['metadata', ...tooDeep])}.`,
    );
  return v as Record<string, unknown>;
}

function sniffOrThrow(staged: StagedFile, filename: string) {
  if (staged.byteSize === 0) throw new ApiError('empty_file', 'The uploaded file is empty.');
  const sniffed = sniffContentType(staged.head, filename);
  if (!sniffed) {
    throw new ApiError(
      'unsupported_file_type',
      'This file type cannot be parsed. Supported: PDF, PNG, JPEG, TIFF, GIF, WebP, BMP, XLSX and CSV.',
    );
  }
  return sniffed;
}

export async function assertNoActiveJob(db: Db | Tx, fileId: string) {
  const active = await db.job.findFirst({
    where: { file_id: fileId, status: { in: ACTIVE_JOB_STATUSES } },
    select: { id: true },
  });
  if (active)
    throw new ApiError(
      'file_has_active_job',
      'A parse or extract job is queued or running for this file; wait for it or cancel it.',
    );
}

const duplicate = (name: string) =>
  new ApiError('duplicate_filename', `A file named '${name}' already exists in this folder.`);

export async function uploadFile(
  deps: Pick<Deps, 'db' | 'storage'>,
  p: Principal,
  input: { knowledge_base_id: string; folder_id?: string; filename?: string; metadata?: string },
  staged: StagedFile,
) {
  requirePermission(p, 'files.write');
  const kb = await loadKb(deps.db, p, input.knowledge_base_id, 'viewer');
  if (input.folder_id) await loadFolder(deps, kb.id, input.folder_id);
  const filename = cleanFilename(input.filename ?? staged.originalname);
  const metadata = parseMetadata(input.metadata);
  const sniffed = sniffOrThrow(staged, filename);
  let created;
  try {
    created = await deps.db.$transaction(async (tx) => {
      const file = await tx.file.create({
        data: {
          org_id: p.orgId,
          knowledge_base_id: kb.id,
          folder_id: input.folder_id ?? null,
          filename,
          content_type: sniffed.contentType,
          metadata: metadata as object,
          created_by_user_id: p.userId ?? null,
        },
      });
      return promoteVersion(tx, deps, p, file, 1, staged, sniffed.contentType);
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate(filename);
    throw err;
  }
  return {
    file: created as typeof created & { current_version: NonNullable<typeof created.current_version> },
    kind: sniffed.kind,
  };
}

/**
 * Version `n` of a file from the staged bytes, made the current one, inside the caller's transaction
 * (an upload's version 1, a replacement's next): the bytes are promoted before the commit, so if the
 * move fails no row points at nothing; then file.uploaded goes to the outbox in the same transaction.
 */
async function promoteVersion(
  tx: Tx,
  deps: Pick<Deps, 'storage'>,
  p: Principal,
  file: { id: string; knowledge_base_id: string },
  n: number,
  staged: StagedFile,
  contentType: string,
) {
  const key = fileVersionKey(file.knowledge_base_id, file.id, n);
  const version = await tx.fileVersion.create({
    data: {
      file_id: file.id,
      version_number: n,
      storage_path: key,
      sha256: staged.sha256,
      byte_size: BigInt(staged.byteSize),
      content_type: contentType,
      original_filename: staged.originalname,
    },
  });
  await deps.storage.move(staged.key, key);
  const done = await tx.file.update({
    where: { id: file.id },
    data: { current_version_id: version.id, content_type: contentType },
    include: withVersion,
  });
  await emitFileUploaded(tx, p.orgId, serializeFile(done as Parameters<typeof serializeFile>[0]));
  return done;
}

export async function replaceContent(
  deps: Pick<Deps, 'db' | 'storage'>,
  p: Principal,
  fileId: string,
  staged: StagedFile,
) {
  requirePermission(p, 'files.write');
  const file = await loadFile(deps.db, p, fileId);
  const sniffed = sniffOrThrow(staged, file.filename);
  const updated = await deps.db.$transaction(async (tx) => {
    // Lock the file row so two concurrent replacements get consecutive version numbers.
    await tx.$queryRaw`SELECT id FROM files WHERE id = ${file.id}::uuid FOR UPDATE`;
    await assertNoActiveJob(tx, file.id);
    const last = await tx.fileVersion.findFirst({ where: { file_id: file.id }, orderBy: { version_number: 'desc' } });
    const n = (last?.version_number ?? 0) + 1;
    return promoteVersion(tx, deps, p, file, n, staged, sniffed.contentType);
  });
  return {
    file: updated as typeof updated & { current_version: NonNullable<typeof updated.current_version> },
    kind: sniffed.kind,
  };
}

export async function moveFile(deps: Pick<Deps, 'db'>, p: Principal, fileId: string, folderId: string | null) {
  requirePermission(p, 'files.write');
  const file = await loadFile(deps.db, p, fileId);
  if (folderId) await loadFolder(deps, file.knowledge_base_id, folderId);
  try {
    return await deps.db.file.update({ where: { id: file.id }, data: { folder_id: folderId }, include: withVersion });
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate(file.filename);
    throw err;
  }
}

export async function softDeleteFile(deps: Pick<Deps, 'db'>, p: Principal, fileId: string) {
  requirePermission(p, 'files.write');
  const file = await loadFile(deps.db, p, fileId);
  return deps.db.$transaction(async (tx) => {
    await assertNoActiveJob(tx, file.id);
    return tx.file.update({ where: { id: file.id }, data: { deleted_at: new Date() }, include: withVersion });
  });
}

export async function restoreFile(deps: Pick<Deps, 'db'>, p: Principal, fileId: string) {
  requirePermission(p, 'files.write');
  const file = await loadFile(deps.db, p, fileId, { includeDeleted: true });
  if (!file.deleted_at) return file;
  try {
    return await deps.db.file.update({ where: { id: file.id }, data: { deleted_at: null }, include: withVersion });
  } catch (err) {
    if (isUniqueViolation(err)) throw duplicate(file.filename);
    throw err;
  }
}

export async function permanentDeleteFile(
  deps: Pick<Deps, 'db' | 'storage'>,
  p: Principal,
  fileId: string,
  confirm: boolean,
) {
  if (!confirm)
    throw new ApiError('confirmation_required', 'Permanent deletion cannot be undone: send confirm_permanent=true.');
  requirePermission(p, 'files.write');
  const file = await loadFile(deps.db, p, fileId, { includeDeleted: true, level: 'manager' });
  const database = await deps.db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM files WHERE id = ${file.id}::uuid FOR UPDATE`;
    await assertNoActiveJob(tx, file.id);
    return deleteFileRows(tx, [file.id]);
  });
  await deps.storage.removePrefix(filePrefix(file.knowledge_base_id, file.id));
  return {
    deleted: true as const,
    permanent: true as const,
    file_id: file.id,
    database,
    knowledge_base_id: file.knowledge_base_id,
  };
}

export async function listFiles(
  deps: Pick<Deps, 'db'>,
  p: Principal,
  q: {
    knowledge_base_id?: string;
    folder_id?: string;
    include_deleted?: 'true' | 'false';
    limit: number;
    cursor?: string;
  },
) {
  requirePermission(p, 'files.read');
  if (q.knowledge_base_id) await loadKb(deps.db, p, q.knowledge_base_id, 'viewer');
  const kbIds = q.knowledge_base_id ? [q.knowledge_base_id] : await reachableKbIds(deps.db, p);
  let after: { created_at: Date; id: string } | null = null;
  if (q.cursor) {
    try {
      const [ts, id] = JSON.parse(Buffer.from(q.cursor, 'base64url').toString()) as [string, string];
      after = { created_at: new Date(ts), id };
      if (Number.isNaN(after.created_at.getTime())) throw new Error('bad');
    } catch {
      throw new ApiError('invalid_request', 'Invalid cursor.');
    }
  }
  const rows = await deps.db.file.findMany({
    where: {
      org_id: p.orgId,
      ...(kbIds ? { knowledge_base_id: { in: kbIds } } : {}),
      ...(q.folder_id ? { folder_id: q.folder_id } : {}),
      ...(q.include_deleted === 'true' ? {} : { deleted_at: null }),
      ...(after
        ? { OR: [{ created_at: { lt: after.created_at } }, { created_at: after.created_at, id: { lt: after.id } }] }
        : {}),
    },
    include: withVersion,
    orderBy: [{ created_at: 'desc' }, { id: 'desc' }],
    take: q.limit + 1,
  });
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    files: page,
    next_cursor:
      rows.length > q.limit && last
        ? Buffer.from(JSON.stringify([last.created_at.toISOString(), last.id])).toString('base64url')
        : null,
  };
}
