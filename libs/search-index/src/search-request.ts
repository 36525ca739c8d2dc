// A validated search body (api.SearchBody, libs/contracts) turned into the one request the SQL
// builder reads: defaults applied, the limit capped, camelCase aliases folded into snake_case.
import { api } from '@docfleet/contracts';

export interface SearchRequest {
  query: string;
  limit: number;
  fileIds?: string[];
  folderId?: string;
  years?: number[];
  sourceType?: string;
  tableOnly: boolean;
  /** At most one hit per file (its best segment), files best first. */
  groupByFile: boolean;
}

export function normaliseSearchBody(b: api.SearchBody): SearchRequest {
  return {
    query: b.query ?? '',
    limit: Math.min(b.limit ?? api.SEARCH_DEFAULT_LIMIT, api.SEARCH_MAX_LIMIT),
    // An empty list restricts nothing (like an absent one), for clients that always send the field.
    fileIds: (b.file_ids ?? b.fileIds)?.length ? (b.file_ids ?? b.fileIds) : undefined,
    folderId: (b.folder_id !== undefined ? b.folder_id : b.folderId) ?? undefined,
    years: b.years,
    sourceType: (b.source_type ?? b.sourceType)?.trim() || undefined,
    tableOnly: b.table_only ?? b.tableOnly ?? false,
    groupByFile: (b.group_by ?? b.groupBy) === 'file',
  };
}
