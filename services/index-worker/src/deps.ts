import type { Logger } from '@docfleet/logger';
import type { SearchIndexDeps } from '@docfleet/search-index';

/** What the index jobs need, built once in main.ts (or by a test that runs the handlers in process). */
export interface IndexDeps extends SearchIndexDeps {
  logger: Logger;
}
