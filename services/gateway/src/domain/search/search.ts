// POST /v1/knowledge-bases/{kbId}/search: lexical full-text search over the evidence index.
// No model, no credits. Reads evidence_index_segments (written by services/index-worker) and the
// knowledge base's evidence_index_state row for index_version and snapshot, in one statement.
import { isRoot, requirePermission, type Principal } from '@docfleet/auth';
import type { api } from '@docfleet/contracts';
import { queryRows } from '@docfleet/db';
import { ApiError } from '@docfleet/errors';
import type { Deps } from '../../deps';
import { loadKb } from '../knowledge-bases/knowledge-bases';
import { MemorySearch, searchStatement, type SearchRequest, type SearchRow } from '@docfleet/search-index';

// One set of in-memory copies per database client (one per process; tests make several).
const memories = new WeakMap<Deps['db'], MemorySearch>();

/** The process's in-memory search over `deps.db` (SEARCH_MEMORY_MB; 0: off). */
export function memorySearchOf(deps: Pick<Deps, 'db' | 'env' | 'logger'>): MemorySearch {
  let m = memories.get(deps.db);
  if (!m) {
    m = new MemorySearch(deps.db, {
      maxBytes: (deps.env.SEARCH_MEMORY_MB ?? 0) * 1024 * 1024,
      minSegments: deps.env.SEARCH_MEMORY_MIN_SEGMENTS ?? 0,
      stateInFlight: deps.env.SEARCH_STATE_IN_FLIGHT,
      onError: (kbId, err) => deps.logger.warn({ kbId, err }, 'search: in-memory copy not loaded'),
      onAnalyserError: (err) => deps.logger.warn({ err }, 'search: queries analysed by search_lexemes() in SQL'),
    });
    memories.set(deps.db, m);
  }
  return m;
}

/** The search response, with `hits` as JSON text: PostgreSQL built it, nothing re-encodes it. */
export interface SearchResult extends Omit<api.SearchResponse, 'hits'> {
  hitsJson: string;
  /** Where the time went, for the Server-Timing header (not part of the body). */
  timing: { path: string; ms: Record<string, number> };
}

export async function searchKnowledgeBase(
  deps: Pick<Deps, 'db' | 'env' | 'logger'>,
  p: Principal,
  kbId: string,
  req: SearchRequest,
): Promise<SearchResult> {
  requirePermission(p, 'files.read');
  // People need a viewer grant, checked before anything is read. API keys are organisation-root:
  // the statement itself is scoped to their organisation and says whether the knowledge base exists.
  if (!isRoot(p)) await loadKb(deps.db, p, kbId, 'viewer');
  const sc = { kbId, orgId: p.orgId };
  // A text search is scored from the knowledge base's in-memory copy when that copy is at the index
  // version the statement reads; otherwise (no copy yet, behind, too few candidates) in SQL.
  const mem = await memorySearchOf(deps).search(sc, req);
  // Prepared: the statement's text varies only with our own numbers (limit, filters present), so each
  // connection plans each shape once instead of on every search (planning was 2–5 ms of it).
  const t0 = performance.now();
  const fromMemory = mem.outcome === 'memory' && mem.rows !== undefined;
  const rows = fromMemory
    ? (mem.rows as SearchRow[])
    : await queryRows<SearchRow>(deps.db, searchStatement(sc, req), { prepared: true });
  const timing: SearchResult['timing'] = fromMemory
    ? { path: 'memory', ms: { lexemes: mem.lexMs ?? 0, score: mem.scoreMs ?? 0, db: mem.dbMs ?? 0 } }
    : { path: `sql (${mem.outcome})`, ms: { db: performance.now() - t0, ...(mem.dbMs ? { memory: mem.dbMs } : {}) } };
  const first = rows[0];
  if (!first) throw new ApiError('knowledge_base_not_found', 'Knowledge base not found.');
  if (!first.folder_ok) throw new ApiError('folder_not_found', 'Folder not found in this knowledge base.');
  return {
    knowledge_base_id: first.kb_id,
    index_version: String(first.version ?? 0),
    status: (first.segment_count ?? 0) > 0 ? 'ready' : 'empty',
    snapshot: {
      segment_count: first.segment_count ?? 0,
      file_count: first.file_count ?? 0,
      indexed_at: first.indexed_at?.toISOString() ?? null,
      pending_updates: Number(first.pending ?? 0),
    },
    hitsJson: first.hits,
    timing,
  };
}

/** The response body: the envelope with the hits' JSON text spliced in. */
export function searchResponseJson(r: SearchResult): string {
  const { hitsJson, timing: _timing, ...envelope } = r;
  return `${JSON.stringify(envelope).slice(0, -1)},"hits":${hitsJson}}`;
}

/** The Server-Timing header of a search: the path taken and its parts in milliseconds. */
export function searchServerTiming(r: SearchResult): string {
  return [
    `path;desc="${r.timing.path}"`,
    ...Object.entries(r.timing.ms).map(([k, v]) => `${k};dur=${v.toFixed(3)}`),
  ].join(', ');
}
