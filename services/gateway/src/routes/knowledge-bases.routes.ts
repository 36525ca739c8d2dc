import { api } from '@docfleet/contracts';
import { z } from 'zod';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import { serializeFolder, serializeKb } from '../http/serializers';
import { createFolder } from '../domain/knowledge-bases/folders';
import {
  createKnowledgeBase,
  deleteKnowledgeBase,
  listKnowledgeBases,
  renameKnowledgeBase,
} from '../domain/knowledge-bases/knowledge-bases';
import { buildKbListing } from '../domain/knowledge-bases/kb-listing';

const KbParams = z.object({ kbId: api.Uuid });
const tags = ['Knowledge bases'];

export function knowledgeBaseRoutes(r: ApiRoutes, deps: Deps) {
  r.add(
    {
      method: 'post',
      path: '/v1/knowledge-bases',
      summary: 'Create a knowledge base',
      tags,
      body: api.CreateKnowledgeBaseBody,
      responses: { 201: { description: 'created', schema: api.KnowledgeBaseEnvelope } },
      errors: ['duplicate_knowledge_base_name', 'permission_required'],
    },
    async ({ body, principal }) => ({
      status: 201,
      body: { knowledge_base: serializeKb(await createKnowledgeBase(deps, principal, body)) },
    }),
  );
  r.add(
    {
      method: 'get',
      path: '/v1/knowledge-bases',
      summary: 'List knowledge bases the caller can reach, newest first',
      tags,
      responses: { 200: { description: 'list', schema: api.KnowledgeBaseList } },
    },
    async ({ principal }) => ({
      body: { knowledge_bases: (await listKnowledgeBases(deps, principal)).map(serializeKb) },
    }),
  );
  r.add(
    {
      method: 'patch',
      path: '/v1/knowledge-bases/:kbId',
      summary: 'Rename a knowledge base (name is required)',
      tags,
      params: KbParams,
      body: api.UpdateKnowledgeBaseBody,
      responses: { 200: { description: 'updated', schema: api.KnowledgeBaseEnvelope } },
      errors: ['knowledge_base_not_found', 'duplicate_knowledge_base_name'],
    },
    async ({ params, body, principal }) => ({
      body: { knowledge_base: serializeKb(await renameKnowledgeBase(deps, principal, params.kbId, body)) },
    }),
  );
  r.add(
    {
      method: 'delete',
      path: '/v1/knowledge-bases/:kbId',
      summary: 'Permanently delete a knowledge base and everything in it',
      tags,
      params: KbParams,
      query: api.DeleteKnowledgeBaseQuery,
      responses: { 200: { description: 'deletion report', schema: api.KnowledgeBaseDeleteReport } },
      errors: ['confirmation_required', 'knowledge_base_not_found'],
    },
    async ({ params, query, principal }) => ({
      body: await deleteKnowledgeBase(deps, principal, params.kbId, query.confirm_permanent === 'true'),
    }),
  );
  r.add(
    {
      method: 'post',
      path: '/v1/knowledge-bases/:kbId/folders',
      summary: 'Create a folder (optionally nested)',
      tags,
      params: KbParams,
      body: api.CreateFolderBody,
      responses: { 201: { description: 'created', schema: api.FolderEnvelope } },
      errors: ['duplicate_folder_name', 'folder_not_found'],
    },
    async ({ params, body, principal }) => ({
      status: 201,
      body: { folder: serializeFolder(await createFolder(deps, principal, params.kbId, body)) },
    }),
  );
  r.add(
    {
      method: 'get',
      path: '/v1/knowledge-bases/:kbId/index',
      summary: 'Every file with its job state and artifact links',
      tags,
      params: KbParams,
      query: api.KbListingQuery,
      responses: {
        200: { description: 'index; ETag is the index_version', schema: api.KbListing },
        304: { description: 'unchanged since the If-None-Match index_version' },
      },
      errors: ['knowledge_base_not_found', 'folder_not_found'],
    },
    async ({ req, res, params, query, principal }) => {
      const out = await buildKbListing(deps, principal, params.kbId, query.folder_id, req.header('if-none-match'));
      res.setHeader('ETag', `"${out.version}"`);
      res.setHeader('Cache-Control', 'private, no-cache');
      if (out.notModified) {
        res.status(304).end();
        return;
      }
      return { body: out.body };
    },
  );
}
