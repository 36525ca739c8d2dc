// Search over a knowledge base, and the credit balance.
import type { SearchHit } from '@docfleet/sdk';
import { z } from 'zod';
import { kbId, uuid } from '../schemas';
import { READ_ONLY, defineTool } from '../tool';

/** What an agent needs from a hit to cite it and to open more context; the rest is noise in a transcript. */
function compactHit(h: SearchHit) {
  return {
    file_id: h.fileId,
    doc_name: h.docName,
    segment_id: h.segmentId,
    title: h.title,
    score: h.score,
    page: (h.coordinates as { pageNumber?: number }).pageNumber ?? null,
    coordinates: h.coordinates,
    is_table: h.tableMetadata?.isTable ?? false,
    markdown: h.markdown,
    file_version_id: h.fileVersionId,
    artifact_manifest_id: h.artifactManifestId,
    neighbors: h.neighbors,
  };
}

export const searchTools = [
  defineTool({
    name: 'service_search',
    title: 'Search a knowledge base',
    description:
      'Lexical full-text search over the parsed segments of a knowledge base (no model, no credits). Returns hits best first ' +
      'with the file, segment id (citation anchor), page, box and the segment markdown. Only parsed files are searchable; right after ' +
      'a parse completes results may lag a few seconds. Scores compare only within one answer.',
    input: z.strictObject({
      kb_id: kbId('the knowledge base to search'),
      query: z
        .string({ error: 'query must be a string' })
        .max(4000, 'query takes at most 4000 characters')
        .describe('words to look for; a blank query applies only the filters'),
      limit: z
        .number({ error: 'limit must be a number' })
        .int('limit must be a whole number')
        .min(1, 'limit must be at least 1')
        .max(100, 'limit must be at most 100')
        .optional()
        .describe('maximum hits, 1-100 (default 30; the server returns at most 80)'),
      file_ids: z
        .array(uuid('file_ids[]', 'a file id'), { error: 'file_ids must be an array of file ids' })
        .max(1000)
        .optional()
        .describe('restrict to these files'),
      table_only: z.boolean({ error: 'table_only must be true or false' }).optional().describe('only table segments'),
    }),
    annotations: READ_ONLY,
    run: async ({ kb_id, query, limit, file_ids, table_only }, { client }) => {
      const r = await client.search(kb_id, { query, limit, file_ids, table_only });
      return {
        knowledge_base_id: r.knowledge_base_id,
        index_version: r.index_version,
        status: r.status,
        count: r.hits.length,
        hits: r.hits.map(compactHit),
      };
    },
  }),

  defineTool({
    name: 'service_credits',
    title: 'Credit balance',
    description:
      "The organisation's credits: balance, credits reserved by running parses (available = balance - reserved), lifetime and " +
      "this month's use, and the monthly quota (null when none). Parsing costs 1 credit per page; each model workflow run 1 credit; search and reads are free.",
    input: z.strictObject({}),
    annotations: READ_ONLY,
    run: async (_a, { client }) => {
      const r = await client.billing.credits();
      return { ...r, available_credits: r.credits.balance_credits - r.credits.reserved_credits };
    },
  }),
];
