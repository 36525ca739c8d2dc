// The search endpoint's request and response shapes (spec: Endpoints > Search, Resources > Search
// hit). The gateway validates with them and generates OpenAPI from them.
import { api } from '@docfleet/contracts';
import { z } from 'zod';

export const MAX_QUERY_CHARS = 4000;
export const DEFAULT_LIMIT = 30;
export const MAX_LIMIT = 80;

// Text that PostgreSQL cannot hold (NUL) is refused here rather than failing in the database.
// eslint-disable-next-line no-control-regex
const SafeString = (max: number) => z.string().max(max).refine((s) => !s.includes('\u0000'), 'must not contain NUL characters');
const FileIds = z.array(api.Uuid).max(1000);
const FolderId = api.Uuid.nullable();
const SourceType = SafeString(64);
const TableOnly = z.boolean();

/** snake_case fields, and their camelCase forms (spec, Versioning 5); snake_case wins when both are sent. */
export const SearchBody = z.object({
  query: SafeString(MAX_QUERY_CHARS).nullish().describe(`up to ${MAX_QUERY_CHARS} characters; blank applies the filters only`),
  limit: z.number().int().min(1).optional().describe(`default ${DEFAULT_LIMIT}; values above ${MAX_LIMIT} are capped at ${MAX_LIMIT}`),
  file_ids: FileIds.optional().describe('restrict to these documents (an empty list restricts nothing)'),
  fileIds: FileIds.optional(),
  folder_id: FolderId.optional().describe('restrict to files directly in this folder'),
  folderId: FolderId.optional(),
  years: z.array(z.number().int().min(0).max(9999)).max(200).optional().describe('segments tagged with any of these years'),
  source_type: SourceType.optional().describe('e.g. pdf, image, spreadsheet'),
  sourceType: SourceType.optional(),
  table_only: TableOnly.optional().describe('only table segments'),
  tableOnly: TableOnly.optional(),
});
export type SearchBody = z.infer<typeof SearchBody>;

export interface SearchRequest {
  query: string;
  limit: number;
  fileIds?: string[];
  folderId?: string;
  years?: number[];
  sourceType?: string;
  tableOnly: boolean;
}

export function normaliseSearchBody(b: SearchBody): SearchRequest {
  return {
    query: b.query ?? '',
    limit: Math.min(b.limit ?? DEFAULT_LIMIT, MAX_LIMIT),
    // An empty list restricts nothing (like an absent one), for clients that always send the field.
    fileIds: (b.file_ids ?? b.fileIds)?.length ? (b.file_ids ?? b.fileIds) : undefined,
    folderId: (b.folder_id !== undefined ? b.folder_id : b.folderId) ?? undefined,
    years: b.years,
    sourceType: (b.source_type ?? b.sourceType)?.trim() || undefined,
    tableOnly: b.table_only ?? b.tableOnly ?? false,
  };
}

export const SearchHit = z.object({
  id: z.string().describe('index row id'),
  fileId: api.Uuid,
  docId: api.Uuid.describe('same as fileId, kept for older clients'),
  fileVersionId: api.Uuid,
  artifactManifestId: api.Uuid,
  segmentId: z.string().describe('element inside the parse artifact; citation anchor'),
  docName: z.string(),
  title: z.string(),
  markdown: z.string(),
  score: z.number().describe('cover-density rank against the query; comparable within one response only'),
  sourceType: z.string(),
  coordinates: api.JsonObject.describe('PDF: pageNumber, xmin, ymin, xmax, ymax (0-1000), sourceType; spreadsheet: sheetIndex, sheetName, startRow, endRow, startCol, endCol, rangeA1'),
  tableMetadata: z.object({
    isTable: z.boolean(),
    headers: z.array(z.string()).optional(),
    rowLabels: z.array(z.string()).optional(),
    noteRefs: z.array(z.string()).optional(),
  }),
  noteRefs: z.array(z.string()),
  years: z.array(z.number().int()),
  quarters: z.array(z.string()),
  neighbors: z.object({ previousSegmentId: z.string().nullable(), nextSegmentId: z.string().nullable(), noteSegmentIds: z.array(z.string()) }),
});
export type SearchHit = z.infer<typeof SearchHit>;

export const SearchSnapshot = z.object({
  segment_count: z.number().int().describe('segments in the knowledge base index at the last change (rows of a file trashed or replaced a moment ago count until the index worker removes them; search never returns them)'),
  file_count: z.number().int(),
  indexed_at: api.Timestamp.nullable().describe('when the index of this knowledge base last changed'),
});

export const SearchResponse = z.object({
  knowledge_base_id: api.Uuid,
  index_version: z.string().describe('goes up with every change to the knowledge base index'),
  status: z.enum(['ready', 'empty']),
  snapshot: SearchSnapshot,
  hits: z.array(SearchHit),
});
export type SearchResponse = z.infer<typeof SearchResponse>;
