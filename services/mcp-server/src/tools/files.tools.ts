// Files: list, upload from a local path, soft delete, and the gated permanent delete.
import type { FileRecord } from '@docfleet/sdk';
import { z } from 'zod';
import { openLocalFile } from '../local-file';
import { absolutePath, fileId, kbId, uuid } from '../schemas';
import { ADDITIVE, DESTRUCTIVE, READ_ONLY, defineTool } from '../tool';

/** Enough for an agent's view of a knowledge base; beyond it the index tool is the better read. */
const LIST_CAP = 1000;

export const fileTools = [
  defineTool({
    name: 'service_list_files',
    title: 'List files',
    description:
      `Lists live files (id, filename, content type, knowledge base, folder, current version with byte size and page count), ` +
      `in one knowledge base when kb_id is given, else across the organisation; at most ${LIST_CAP}. ` +
      'For parse status and artifact links use service_kb_index.',
    input: z.strictObject({ kb_id: kbId('restrict to this knowledge base').optional() }),
    annotations: READ_ONLY,
    run: async ({ kb_id }, { client }) => {
      const files: FileRecord[] = [];
      let truncated = false;
      for await (const f of client.files.iterate({ knowledgeBaseId: kb_id, limit: 200 })) {
        if (files.length >= LIST_CAP) {
          truncated = true;
          break;
        }
        files.push(f);
      }
      return { files, count: files.length, truncated };
    },
  }),

  defineTool({
    name: 'service_upload_file',
    title: 'Upload a local file',
    description:
      'Uploads a file from this machine into a knowledge base and returns the file record with its id. It does NOT parse: ' +
      'call service_parse_file next. The path must be absolute and name a regular file within the upload size limit. ' +
      'Supported: PDF, PNG/JPEG images, XLSX and CSV. A live file with the same name in the same folder fails with duplicate_filename.',
    input: z.strictObject({
      path: absolutePath('path', 'absolute path of the local file to upload'),
      kb_id: kbId('the knowledge base to upload into'),
      folder_id: uuid('folder_id', 'a folder of that knowledge base; omit for the top level').optional(),
    }),
    annotations: ADDITIVE,
    run: async ({ path, kb_id, folder_id }, { client, maxUploadBytes }) => {
      const local = await openLocalFile(path, maxUploadBytes);
      try {
        const r = await client.files.upload(local.stream, {
          knowledgeBaseId: kb_id,
          folderId: folder_id,
          filename: local.name,
        });
        return { ...r, uploaded_bytes: local.size, next: 'service_parse_file with this file id' };
      } finally {
        await local.close();
      }
    },
  }),

  defineTool({
    name: 'service_delete_file',
    title: 'Move a file to the trash',
    description:
      'Soft-deletes a file: it leaves lists, the index and search, and can be restored by an operator. ' +
      'Fails with file_has_active_job while a parse or extract job is queued or running.',
    input: z.strictObject({ file_id: fileId() }),
    annotations: DESTRUCTIVE,
    run: ({ file_id }, { client }) => client.files.delete(file_id),
  }),

  defineTool({
    name: 'service_permanent_delete_file',
    title: 'Permanently delete a file',
    description:
      'IRREVERSIBLE. Permanently deletes a file with all its versions, parse and extract artifacts and index entries. ' +
      'There is no undo; prefer service_delete_file (restorable) unless the user explicitly asked for permanent deletion.',
    input: z.strictObject({ file_id: fileId('the file to destroy') }),
    annotations: DESTRUCTIVE,
    gated: true,
    run: ({ file_id }, { client }) => client.files.permanentDelete(file_id, { confirmPermanent: true }),
  }),
];
