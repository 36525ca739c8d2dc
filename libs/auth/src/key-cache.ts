// An in-process cache of API key rows, keyed by the key's sha256 (never by the secret), so most
// requests authenticate without a database round trip. Entries live `ttlMs`: a key revoked
// elsewhere (the admin CLI, another gateway replica, a manual UPDATE) stops working here at the
// latest `ttlMs` after the revocation commits. A revocation through this process calls
// `evictKey` and takes effect on the next request. Expiry (`expires_at`) is checked on every
// request against the cached row, so it is exact.
import type { Db } from '@docfleet/db';

/** The columns authentication needs. */
export interface KeyRow {
  id: string;
  org_id: string;
  revoked_at: Date | null;
  expires_at: Date | null;
  last_used_at: Date | null;
}

interface Entry {
  row: KeyRow;
  /** ms timestamp after which the row must be read again */
  staleAt: number;
  /** ms timestamp of the last last_used_at this process wrote or read */
  lastUsedMs: number;
}

export interface ApiKeyCacheOptions {
  /** How long a row is trusted; 0 disables the cache (every request reads the database). */
  ttlMs: number;
  /** Rows kept at most; the oldest inserted goes first. */
  maxEntries?: number;
  now?: () => number;
}

export class ApiKeyCache {
  readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly byHash = new Map<string, Entry>();
  private readonly hashById = new Map<string, string>();
  private readonly inflight = new Map<string, Promise<KeyRow | null>>();
  /** Bumped by evictions so a lookup that started before one does not store its (older) row. */
  private generation = 0;

  constructor(o: ApiKeyCacheOptions) {
    this.ttlMs = Math.max(0, o.ttlMs);
    this.maxEntries = o.maxEntries ?? 10_000;
    this.now = o.now ?? Date.now;
  }

  get size(): number {
    return this.byHash.size;
  }

  /**
   * The key row for a hash: from the cache while fresh, else from `load` (concurrent misses for
   * one hash share one load). Unknown hashes are not cached, so a flood of wrong keys cannot
   * fill the cache.
   */
  async lookup(hash: string, load: () => Promise<KeyRow | null>): Promise<{ row: KeyRow; entry: Entry } | null> {
    const hit = this.byHash.get(hash);
    if (hit && hit.staleAt > this.now()) return { row: hit.row, entry: hit };
    if (this.ttlMs === 0) {
      const row = await load();
      return row ? { row, entry: { row, staleAt: 0, lastUsedMs: row.last_used_at?.getTime() ?? 0 } } : null;
    }
    let p = this.inflight.get(hash);
    if (!p) {
      const gen = this.generation;
      p = load().then(
        (row) => {
          this.inflight.delete(hash);
          if (row && gen === this.generation) this.store(hash, row);
          return row;
        },
        (err: unknown) => {
          this.inflight.delete(hash);
          throw err;
        },
      );
      this.inflight.set(hash, p);
    }
    const row = await p;
    if (!row) return null;
    const entry = this.byHash.get(hash) ?? { row, staleAt: 0, lastUsedMs: row.last_used_at?.getTime() ?? 0 };
    return { row, entry };
  }

  private store(hash: string, row: KeyRow) {
    const prev = this.byHash.get(hash);
    this.byHash.delete(hash);
    while (this.byHash.size >= this.maxEntries) {
      const oldest = this.byHash.keys().next().value as string;
      this.hashById.delete(this.byHash.get(oldest)!.row.id);
      this.byHash.delete(oldest);
    }
    const lastUsedMs = Math.max(prev?.lastUsedMs ?? 0, row.last_used_at?.getTime() ?? 0);
    this.byHash.set(hash, { row, staleAt: this.now() + this.ttlMs, lastUsedMs });
    this.hashById.set(row.id, hash);
  }

  /** Forget one key (after revoking it through this process): the next request reads the database. */
  evictKey(id: string): void {
    this.generation++;
    const hash = this.hashById.get(id);
    if (hash) this.byHash.delete(hash);
    this.hashById.delete(id);
  }

  clear(): void {
    this.generation++;
    this.byHash.clear();
    this.hashById.clear();
  }
}

/**
 * One cache per database client, i.e. per process in production (tests that run two gateways
 * with two clients get two caches, as two replicas would). The gateway makes it at start-up with
 * its configured TTL; callers that only evict pass no TTL and get the same cache.
 */
const caches = new WeakMap<Db, ApiKeyCache>();

export function apiKeyCacheFor(db: Db, ttlMs?: number): ApiKeyCache {
  let c = caches.get(db);
  if (!c || (ttlMs !== undefined && c.ttlMs !== ttlMs))
    caches.set(db, (c = new ApiKeyCache({ ttlMs: ttlMs ?? DEFAULT_API_KEY_CACHE_TTL_MS })));
  return c;
}

export const DEFAULT_API_KEY_CACHE_TTL_MS = 5_000;
