import type { Db } from '@docfleet/db';
import type { StorageDriver } from '@docfleet/storage';

/** What writing the search index needs: the database and the storage that holds the parse bundles. */
export interface SearchIndexDeps {
  db: Db;
  storage: StorageDriver;
  /** Rows per INSERT statement (one jsonb parameter each). */
  batchRows?: number;
  /** Interactive transaction time limit; a 20k-segment workbook takes seconds. */
  txTimeoutMs?: number;
}
