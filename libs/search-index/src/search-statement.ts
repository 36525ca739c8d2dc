// The one statement a search runs: the gateway's POST …/search sends it, the search benchmarks run
// the same SQL directly.
import type { Prisma } from '@docfleet/db';
import { queryText } from './query-terms';
import { filterOnlySql, textSearchSql, type SearchScope } from './search-sql';
import type { SearchRequest } from './search-request';

/** The statement for one search of one knowledge base (a blank query filters only). */
export function searchStatement(sc: SearchScope, req: SearchRequest): Prisma.Sql {
  const filters = {
    fileIds: req.fileIds,
    folderId: req.folderId,
    years: req.years,
    sourceType: req.sourceType,
    tableOnly: req.tableOnly,
  };
  if (!req.query.trim()) return filterOnlySql(sc, filters, req.limit, req.groupByFile);
  // A query with no searchable word left ("the", "?!") matches nothing rather than everything.
  return textSearchSql(sc, queryText(req.query), filters, req.limit, req.groupByFile);
}
