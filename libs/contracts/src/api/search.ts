// The search endpoint's request and response shapes (POST /v1/knowledge-bases/{kbId}/search, the
// search hit). The gateway validates with them and generates OpenAPI from them; the SDK's types are
// inferred from them.
import { z } from 'zod';
import { JsonObject, Timestamp, Uuid } from './common';

export const SEARCH_MAX_QUERY_CHARS = 4000;
export const SEARCH_DEFAULT_LIMIT = 30;
export const SEARCH_MAX_LIMIT = 80;

// Text that PostgreSQL cannot hold (NUL) is refused here rather than failing in the database.
// eslint-disable-next-line no-control-regex
const SafeString = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');
const FileIds = z.array(Uuid).max(1000);
const FolderId = Uuid.nullable();
const SourceType = SafeString(64);
const TableOnly = z.boolean();

/** Hits stay segments; `file` collapses them to each file's best segment, so one document's segments do not crowd out others. */
const SearchGroupBy = z.enum(['file']);

/** snake_case fields, and their camelCase forms (accepted for older clients); snake_case wins when both are sent. */
export const SearchBody = z.object({
  query: SafeString(SEARCH_MAX_QUERY_CHARS)
    .nullish()
    .describe(`up to ${SEARCH_MAX_QUERY_CHARS} characters; blank applies the filters only`),
  limit: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`default ${SEARCH_DEFAULT_LIMIT}; values above ${SEARCH_MAX_LIMIT} are capped at ${SEARCH_MAX_LIMIT}`),
  file_ids: FileIds.optional().describe('restrict to these documents (an empty list restricts nothing)'),
  fileIds: FileIds.optional(),
  folder_id: FolderId.optional().describe('restrict to files directly in this folder'),
  folderId: FolderId.optional(),
  years: z
    .array(z.number().int().min(0).max(9999))
    .max(200)
    .optional()
    .describe('segments tagged with any of these years'),
  source_type: SourceType.optional().describe('e.g. pdf, image, spreadsheet'),
  sourceType: SourceType.optional(),
  table_only: TableOnly.optional().describe('only table segments'),
  tableOnly: TableOnly.optional(),
  group_by: SearchGroupBy.optional().describe(
    'file: at most one hit per file (its best-scoring segment), files in the order of that score (blank query: file name order)',
  ),
  groupBy: SearchGroupBy.optional(),
});
export type SearchBody = z.infer<typeof SearchBody>;

export const SearchHit = z.object({
  id: z.string().describe('index row id'),
  fileId: Uuid,
  docId: Uuid.describe('same as fileId, kept for older clients'),
  fileVersionId: Uuid,
  artifactManifestId: Uuid,
  segmentId: z.string().describe('element inside the parse artifact; citation anchor'),
  docName: z.string(),
  title: z.string(),
  markdown: z.string(),
  score: z.number().describe('BM25 score against the query; comparable within one response only'),
  sourceType: z.string(),
  coordinates: JsonObject.describe(
    'PDF: pageNumber, xmin, ymin, xmax, ymax (0-1000), sourceType; spreadsheet: sheetIndex, sheetName, startRow, endRow, startCol, endCol, rangeA1',
  ),
  tableMetadata: z.object({
    isTable: z.boolean(),
    headers: z.array(z.string()).optional(),
    rowLabels: z.array(z.string()).optional(),
    noteRefs: z.array(z.string()).optional(),
  }),
  noteRefs: z.array(z.string()),
  years: z.array(z.number().int()),
  quarters: z.array(z.string()),
  neighbors: z.object({
    previousSegmentId: z.string().nullable(),
    nextSegmentId: z.string().nullable(),
    noteSegmentIds: z.array(z.string()),
  }),
});
export type SearchHit = z.infer<typeof SearchHit>;

export const SearchSnapshot = z.object({
  segment_count: z
    .number()
    .int()
    .describe(
      'segments in the knowledge base index at the last change (rows of a file trashed or replaced a moment ago count until the index worker removes them; search never returns them)',
    ),
  file_count: z.number().int(),
  indexed_at: Timestamp.nullable().describe('when the index of this knowledge base last changed'),
  pending_updates: z
    .number()
    .int()
    .describe(
      'index jobs of this knowledge base queued and not yet applied (a parse, restore, trash or delete whose index update is still to run); 0 when the index is caught up',
    ),
});

export const SearchResponse = z.object({
  knowledge_base_id: Uuid,
  index_version: z.string().describe('goes up with every change to the knowledge base index'),
  status: z.enum(['ready', 'empty']),
  snapshot: SearchSnapshot,
  hits: z.array(SearchHit),
});
export type SearchResponse = z.infer<typeof SearchResponse>;
