// options.scope of a file extraction job: which parts of the parse feed the evidence.
import type { api, Segment } from '@docfleet/contracts';
import { segmentPage } from '@docfleet/models';

/** Pages (1-based; spreadsheet segments count as page 1), segment ids, tables only: the request's own shape. */
export type ExtractScope = api.ExtractScope;

const isTable = (s: Segment) =>
  !!(
    s.cells?.length ||
    (s.tableMetadata as { isTable?: boolean } | undefined)?.isTable ||
    /^\s*\|.*\|\s*$/m.test(s.markdown)
  );

/** The segments a scope selects, in reading order. No scope (or an empty one) selects all. */
export function applyScope(segments: Segment[], scope: ExtractScope | undefined): Segment[] {
  if (!scope) return segments;
  const pages = scope.pages?.length ? new Set(scope.pages) : undefined;
  const ids = scope.segment_ids?.length ? new Set(scope.segment_ids) : undefined;
  return segments.filter(
    (s) => (!pages || pages.has(segmentPage(s))) && (!ids || ids.has(s.id)) && (!scope.tables_only || isTable(s)),
  );
}

/** A human description of a scope for error messages and events. */
export function describeScope(scope: ExtractScope | undefined): string {
  if (!scope) return 'the whole parse';
  const parts: string[] = [];
  if (scope.pages?.length) parts.push(`pages ${scope.pages.join(', ')}`);
  if (scope.segment_ids?.length) parts.push(`${scope.segment_ids.length} segment id(s)`);
  if (scope.tables_only) parts.push('tables only');
  return parts.length ? parts.join('; ') : 'the whole parse';
}
