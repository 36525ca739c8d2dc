import { api } from '@docfleet/contracts';
import { z } from 'zod';
import type { Deps } from '../deps';
import type { ApiRoutes } from '../http/route';
import { searchKnowledgeBase, searchResponseJson, searchServerTiming } from '../domain/search/search';
import { normaliseSearchBody } from '@docfleet/search-index';

export function searchRoutes(r: ApiRoutes, deps: Deps) {
  r.add(
    {
      method: 'post',
      path: '/v1/knowledge-bases/:kbId/search',
      summary: 'Lexical full-text search over the knowledge base’s parsed segments (no model, no credits)',
      tags: ['Search'],
      params: z.object({ kbId: api.Uuid }),
      body: api.SearchBody,
      responses: { 200: { description: 'hits, best first (blank query: document order)', schema: api.SearchResponse } },
      errors: ['invalid_request_body', 'knowledge_base_not_found', 'knowledge_base_access_denied', 'folder_not_found'],
    },
    async ({ params, body, principal, res }) => {
      const result = await searchKnowledgeBase(deps, principal, params.kbId, normaliseSearchBody(body));
      // Written as is: res.send would also hash the body for an ETag, which no client of a POST uses.
      const out = Buffer.from(searchResponseJson(result));
      res.statusCode = 200;
      res.setHeader('content-type', 'application/json; charset=utf-8');
      res.setHeader('content-length', String(out.length));
      res.setHeader('server-timing', searchServerTiming(result));
      res.end(out);
    },
  );
}
