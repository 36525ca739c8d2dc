import { api } from '@docfleet/contracts';
import { requirePermission } from '@docfleet/auth';
import { ApiError } from '@docfleet/errors';
import type { Request } from 'express';
import { z } from 'zod';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import { serializeFile } from '../http/serializers';
import { uploadReceiver } from '../upload/receive-upload';
import {
  listFiles,
  loadFile,
  moveFile,
  permanentDeleteFile,
  replaceContent,
  restoreFile,
  softDeleteFile,
  uploadFile,
} from '../domain/files/files';
import { reindexFile, unindexFile } from '../domain/search/index-sync';

const FileParams = z.object({ fileId: api.Uuid });
const tags = ['Files'];

/** Hooks later features plug into (auto_parse dispatches a parse job). */
export interface FileHooks {
  afterUpload?: (ctx: { req: Request; fileId: string; autoParse: boolean }) => Promise<Record<string, unknown>>;
}

export function fileRoutes(r: ApiRoutes, deps: Deps, hooks: FileHooks = {}) {
  const withUpload = uploadReceiver(deps.storage, deps.env.MAX_UPLOAD_BYTES);

  const afterUpload = async (req: Request, fileId: string, autoParse: boolean) =>
    hooks.afterUpload ? hooks.afterUpload({ req, fileId, autoParse }) : {};

  r.add(
    {
      method: 'post',
      path: '/v1/files',
      summary: 'Upload a document (multipart)',
      tags,
      multipart: api.UploadFields,
      responses: { 201: { description: 'created', schema: api.UploadResponse } },
      errors: [
        'permission_required',
        'invalid_request_body',
        'duplicate_filename',
        'file_too_large',
        'request_too_large',
        'unsupported_file_type',
        'unsupported_media_type',
        'empty_file',
        'invalid_metadata',
        'knowledge_base_not_found',
        'folder_not_found',
        'insufficient_storage',
        'storage_unavailable',
      ],
    },
    async ({ req, res, principal }) => {
      // Before the body: a caller who may not upload never gets to send one.
      requirePermission(principal, 'files.write');
      return withUpload(req, res, async (staged) => {
        const parsed = api.UploadFields.safeParse(req.body ?? {});
        if (!parsed.success) {
          const i = parsed.error.issues[0];
          throw new ApiError('invalid_request_body', `Invalid upload field ${i.path.join('.')}: ${i.message}`);
        }
        const { file } = await uploadFile(deps, principal, parsed.data, staged);
        const extra = await afterUpload(req, file.id, parsed.data.auto_parse === 'true');
        return { status: 201, body: { file: serializeFile(file), ...extra } };
      });
    },
  );
  r.add(
    {
      method: 'get',
      path: '/v1/files',
      summary: 'List files',
      tags,
      query: api.ListFilesQuery,
      responses: { 200: { description: 'page of files', schema: api.FilePage } },
    },
    async ({ query, principal }) => {
      const out = await listFiles(deps, principal, query);
      return { body: { files: out.files.map((f) => serializeFile(f)), next_cursor: out.next_cursor } };
    },
  );
  r.add(
    {
      method: 'get',
      path: '/v1/files/:fileId',
      summary: 'Get a file',
      tags,
      params: FileParams,
      responses: { 200: { description: 'file', schema: api.FileEnvelope } },
      errors: ['file_not_found'],
    },
    async ({ params, principal }) => ({
      body: { file: serializeFile(await loadFile(deps.db, principal, params.fileId)) },
    }),
  );
  r.add(
    {
      method: 'patch',
      path: '/v1/files/:fileId/move',
      summary: 'Move a file to another folder (or the top level)',
      tags,
      params: FileParams,
      body: api.MoveFileBody,
      responses: { 200: { description: 'moved', schema: api.FileEnvelope } },
      errors: ['duplicate_filename', 'folder_not_found'],
    },
    async ({ params, body, principal }) => ({
      body: { file: serializeFile(await moveFile(deps, principal, params.fileId, body.folder_id)) },
    }),
  );
  r.add(
    {
      method: 'put',
      path: '/v1/files/:fileId/content',
      summary: 'Replace the content (creates a new version)',
      tags,
      params: FileParams,
      multipart: z.object({ auto_parse: z.enum(['true', 'false']).optional() }),
      responses: { 200: { description: 'new version', schema: api.UploadResponse } },
      errors: [
        'permission_required',
        'file_not_found',
        'invalid_request_body',
        'file_has_active_job',
        'unsupported_file_type',
        'file_too_large',
        'insufficient_storage',
        'storage_unavailable',
      ],
    },
    async ({ req, res, params, principal }) => {
      requirePermission(principal, 'files.write');
      await loadFile(deps.db, principal, params.fileId);
      return withUpload(req, res, async (staged) => {
        const { file } = await replaceContent(deps, principal, params.fileId, staged);
        const extra = await afterUpload(req, file.id, (req.body as { auto_parse?: string })?.auto_parse === 'true');
        return { body: { file: serializeFile(file), ...extra } };
      });
    },
  );
  r.add(
    {
      method: 'delete',
      path: '/v1/files/:fileId',
      summary: 'Move a file to the trash (restorable)',
      tags,
      params: FileParams,
      responses: { 200: { description: 'trashed', schema: api.FileEnvelope } },
      errors: ['file_has_active_job'],
    },
    async ({ params, principal }) => {
      const file = await softDeleteFile(deps, principal, params.fileId);
      await unindexFile(deps, file);
      return { body: { file: serializeFile(file) } };
    },
  );
  r.add(
    {
      method: 'post',
      path: '/v1/files/:fileId/restore',
      summary: 'Restore a trashed file',
      tags,
      params: FileParams,
      responses: { 200: { description: 'restored', schema: api.FileEnvelope } },
      errors: ['duplicate_filename'],
    },
    async ({ params, principal }) => {
      const file = await restoreFile(deps, principal, params.fileId);
      await reindexFile(deps, file);
      return { body: { file: serializeFile(file) } };
    },
  );
  r.add(
    {
      method: 'delete',
      path: '/v1/files/:fileId/permanent',
      summary: 'Permanently delete a file, its versions and artifacts',
      tags,
      params: FileParams,
      query: api.PermanentDeleteQuery,
      responses: { 200: { description: 'deletion report', schema: api.FilePermanentDeleteReport } },
      errors: ['confirmation_required', 'file_has_active_job'],
    },
    async ({ params, query, principal }) => {
      const { knowledge_base_id, ...out } = await permanentDeleteFile(
        deps,
        principal,
        params.fileId,
        query.confirm_permanent === 'true',
      );
      await unindexFile(deps, { org_id: principal.orgId, id: out.file_id, knowledge_base_id });
      return { body: out };
    },
  );
}
