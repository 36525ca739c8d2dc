// Search scored in the process over an in-memory copy of a knowledge base's postings (issue 22.5).
//
// textSearchSql reads every posting of the query's terms from PostgreSQL and aggregates them in SQL:
// a claim of 8–12 words reads ~50,000 postings per search on 200,000 segments, tens to hundreds of
// milliseconds. Here the same postings (term → segments and term frequencies, each segment's length
// and file, each term's document frequency) sit in typed arrays, copied from one REPEATABLE READ
// snapshot tagged with the knowledge base's index `version`, and a search scores them with the very
// formula of textSearchSql's exhaustive path (BM25, the file-context credit, its candidate rule).
// PostgreSQL still answers, in one statement (candidateSearchSql), everything that may change without
// a new index version: which candidates are visible (live file, current version), the filters, the
// table boost and rounding, the hits' JSON, the snapshot, and the index version. A result is used
// only if that version is the copy's: otherwise (and whenever a copy is missing, still loading, too
// big for the memory cap, or too few candidates survived) the caller runs the SQL statement as before.
import { Prisma, rawTransaction, queryRows, type Db } from '@docfleet/db';
import { queryLexemes, verifyAnalyser } from './lexemes';
import { queryText } from './query-terms';
import { hitJson, pgRound6, rankHits, type HitFragment, type RankedHit } from './memory-rank';
import {
  RANKING,
  candidateSearchSql,
  hitFragmentsSql,
  queryLexemesSql,
  type Ranking,
  type SearchRow,
  type SearchScope,
} from './search-sql';
import type { SearchRequest } from './search-request';
import { SharedStateStatements } from './shared-state';
import { hashSlots, PackedStrings, TermStore, type Term } from './memory-terms';

export interface MemorySearchOptions {
  /** Bytes all copies together may take (estimated before loading); 0 turns the in-memory path off. */
  maxBytes: number;
  /** Knowledge bases with fewer segments are searched in SQL only. */
  minSegments: number;
  /** After a knowledge base was found too big or too small, or its load failed: when to try again (default 60 s). */
  retryMs?: number;
  /** Postings per loading statement. */
  batchPostings?: number;
  ranking?: Ranking;
  /**
   * State statements (candidateStateSql) of one knowledge base sent at once; a search arriving when
   * that many are in flight shares the next one (shared-state.ts). Default 2; 0: each search its own.
   */
  stateInFlight?: number;
  /** Called when a load fails (the knowledge base stays on the SQL path until its version changes). */
  onError?: (kbId: string, err: unknown) => void;
  /** Called when the in-process query analyser is off (search_lexemes() differs) or could not be checked. */
  onAnalyserError?: (err: unknown) => void;
}

/** One knowledge base's copy, as of index `version`. Segments are numbered in `id` order. */
export interface KbCopy {
  kbId: string;
  orgId: string;
  version: string;
  /** BM25's N and average length, as the statement computes them from evidence_index_state. */
  n: number;
  avgdl: number;
  /** Segment ids, packed (memory-terms.ts): decoded only for those sent to PostgreSQL or returned. */
  segIds: PackedStrings;
  segFile: Int32Array;
  segDl: Float64Array;
  segTable: Uint8Array;
  /** Each segment's file version (an index into versionIds) and position in it. */
  segVersion: Int32Array;
  segOrdinal: Int32Array;
  versionIds: string[];
  /** Segments' unchanging parts of their hits, as far as searches have needed them (at most FRAGMENTS). */
  fragments: Map<number, HitFragment>;
  fileIds: string[];
  fileIndex: Map<string, number>;
  /** Terms and their postings in a few typed arrays (memory-terms.ts): few objects for the GC to walk. */
  terms: TermStore;
  postings: number;
  bytes: number;
  loadMs: number;
  /** Set once a search saw a newer version: the copy never answers again. */
  stale: boolean;
  /** What the scoring loop reads per segment and its scratch arrays, made at the first search. */
  scratch?: Scratch;
}

/**
 * scoreCandidates' working set for one copy and one k1, b (JavaScript runs one search at a time).
 * A block of BLOCK segments is scored in `local` (reused, so it stays in the cache) instead of in
 * an array as long as the copy; what it reads per segment is one pair in `segFk`.
 */
interface Scratch {
  k1: number;
  b: number;
  /** Per segment s: at 2s its file number, at 2s + 1 its length class (an index into kOf). */
  segFk: Int32Array;
  /** BM25's length part k1·(1 − b + b·dl/avgdl) of each distinct segment length. */
  kOf: Float64Array;
  /** Per segment of the block being scored: at 2l Σ idf·tfn, at 2l + 1 Σ idf. */
  local: Float64Array;
  /** The block's segments that are scored (1), and their local numbers in the order found. */
  cand: Uint8Array;
  found: Int32Array;
  fileIdf: Float64Array;
  fileSeen: Uint8Array;
  /** Each term's largest tf·(k1 + 1)/(tf + length part) over its postings (MaxScore's bound). */
  tfnMax: Map<number, number>;
  /** With filters: every scored segment that passes them, and its score. */
  touched?: Int32Array;
  scoreBuf?: Float64Array;
}

/** What the in-memory path decided for one search (for tests and the bench's counters). */
export type MemoryOutcome = 'memory' | 'no-copy' | 'loading' | 'stale' | 'short' | 'skipped';

export interface MemoryAnswer {
  outcome: MemoryOutcome;
  /** The statement's rows when outcome is 'memory' (none: the knowledge base is not the caller's). */
  rows?: SearchRow[];
  /** Milliseconds: the query's lexemes (0 when remembered), scoring in the process, the candidates' statement. */
  lexMs?: number;
  scoreMs?: number;
  dbMs?: number;
}

// What a loaded copy retains (JS heap + array buffers after a full GC), measured on copies of known size
// (docs/benchmarks.md, "What an in-memory copy takes"): the typed arrays below and little else.
/** Packed uuid (36) and its offset (4), file and version numbers and position (12), length (8), table flag (1); scoring's segFk (8), and with filters touched + scoreBuf (12). */
const BYTES_PER_SEGMENT = 81;
/** Segment number (4) and tf (4 as Float32; 4 more for every posting if one tf is not exact there). */
const BYTES_PER_POSTING = 8;
/** Each term's distinct files: a file number each, at most one per posting and one per term and file. */
const BYTES_PER_TERM_FILE = 4;
/** start, hash, df (8), postings' and files' start and length: the store's per-term arrays, trimmed by finish(). */
const BYTES_PER_TERM = 32;
/** Hit fragments kept per copy, and the bytes counted for each (~2 × a ~500-character markdown, the ids, JSON). */
const FRAGMENTS = 10_000;
const BYTES_PER_FRAGMENT = 2048;

/** What the loader reads before loading a copy: its segments, postings, terms, the terms' UTF-8 bytes, its files. */
export interface CopySize {
  segments: number;
  postings: number;
  terms: number;
  termBytes: number;
  files: number;
}

/** Estimated bytes of a copy as loaded and searched, without the hit fragments searches keep later. */
export function estimateLoadedBytes(c: CopySize): number {
  return (
    c.postings * BYTES_PER_POSTING +
    Math.min(c.postings, c.terms * c.files) * BYTES_PER_TERM_FILE +
    c.segments * BYTES_PER_SEGMENT +
    c.terms * BYTES_PER_TERM +
    hashSlots(c.terms) * 4 + // the term store's hash table, Int32 slots
    c.termBytes
  );
}

/** Estimated bytes of a copy (what the memory cap counts): as loaded, and the hit fragments it may keep. */
export function estimateBytes(c: CopySize): number {
  return estimateLoadedBytes(c) + Math.min(FRAGMENTS, c.segments) * BYTES_PER_FRAGMENT;
}

export class MemorySearch {
  private readonly copies = new Map<string, KbCopy>(); // insertion order = least recently used first
  private readonly loading = new Map<string, Promise<void>>();
  /** Knowledge bases not to try loading again before this time (too big, too small, or the load failed). */
  private readonly retryAt = new Map<string, number>();
  private readonly lexemes = new Map<string, Array<{ term: string; w: number }>>();
  private readonly r: Ranking;
  /** The state statements of searches ranked in the process, shared by searches that arrive together. */
  private readonly state: SharedStateStatements;
  /** Searches whose best few candidates did not prove their hits, so the full set was sent. */
  widened = 0;
  /** Postings that MaxScore left unscored (scoreCandidates' `skipped`), over all searches. */
  skippedPostings = 0;
  /** Query texts analysed in the process, and by search_lexemes() (declined, or not yet verified). */
  readonly lexemeSource = { process: 0, statement: 0 };
  /** Whether the in-process analyser matches this database's search_lexemes() (checked once). */
  private analyser?: boolean;
  private analyserCheck?: Promise<void>;
  /** How many searches took each way (for tests and the bench). */
  readonly stats: Record<MemoryOutcome, number> = {
    memory: 0,
    'no-copy': 0,
    loading: 0,
    stale: 0,
    short: 0,
    skipped: 0,
  };

  constructor(
    private readonly db: Db,
    private readonly opts: MemorySearchOptions,
  ) {
    this.r = opts.ranking ?? RANKING;
    this.state = new SharedStateStatements(db, opts.stateInFlight === 0 ? Infinity : (opts.stateInFlight ?? 2));
  }

  /** State statements sent, and searches they answered (searches − sent: answered by a shared one). */
  get stateStatements(): { sent: number; searches: number } {
    return this.state.counts;
  }

  get enabled(): boolean {
    return this.opts.maxBytes > 0;
  }

  /** Bytes held by all copies. */
  bytes(): number {
    let n = 0;
    for (const c of this.copies.values()) n += c.bytes;
    return n;
  }

  copyOf(kbId: string): KbCopy | undefined {
    return this.copies.get(kbId);
  }

  /**
   * Answers a text search from the copy when it is current, else says why not (the caller then runs
   * the SQL statement) and starts loading a copy in the background where one is missing or behind.
   */
  async search(sc: SearchScope, req: SearchRequest): Promise<MemoryAnswer> {
    const a = await this.answer(sc, req);
    this.stats[a.outcome]++;
    return a;
  }

  private async answer(sc: SearchScope, req: SearchRequest): Promise<MemoryAnswer> {
    if (!this.enabled || !req.query.trim()) return { outcome: 'skipped' };
    const copy = this.copies.get(sc.kbId);
    // A copy of another organisation's knowledge base never answers: the statement says "not found".
    if (copy && copy.orgId !== sc.orgId) return { outcome: 'no-copy' };
    if (!copy || copy.stale) {
      if (this.loading.has(sc.kbId)) return { outcome: 'loading' };
      if ((this.retryAt.get(`${sc.kbId}/${sc.orgId}`) ?? 0) > Date.now()) return { outcome: 'skipped' };
      void this.refresh(sc.kbId, sc.orgId);
      return { outcome: copy ? 'stale' : 'no-copy' };
    }
    // Least recently used last out.
    this.copies.delete(sc.kbId);
    this.copies.set(sc.kbId, copy);
    const t0 = performance.now();
    const lex = await this.lexemesOf(req.query);
    const t1 = performance.now();
    const cand = scoreCandidates(copy, lex, req, this.r);
    this.skippedPostings += cand.skipped;
    const t2 = performance.now();
    const ms = () => ({ lexMs: t1 - t0, scoreMs: t2 - t1, dbMs: performance.now() - t2 });
    const f = {
      fileIds: req.fileIds,
      folderId: req.folderId,
      years: req.years,
      sourceType: req.sourceType,
      tableOnly: req.tableOnly,
    };
    // The copy knows each segment's file, version, position and table flag: the rest of the ranking is
    // done here, after one small statement for what can change without a new index version (the
    // files' state, the snapshot). Filters by year or source type still go to PostgreSQL with the candidates.
    const inProcess = !req.years?.length && !req.sourceType;
    for (const t of cand.tiers) {
      const rows = inProcess
        ? await this.rankInProcess(sc, copy, t, req)
        : await queryRows<SearchRow>(
            this.db,
            candidateSearchSql(sc, f, t.ids, t.scores, req.limit, req.groupByFile, this.r),
            { prepared: true },
          );
      const first = rows?.[0];
      if (rows && (!first || !first.folder_ok)) return { outcome: 'memory', rows, ...ms() };
      if (!first || String(first.version ?? 0) !== copy.version) {
        // Versions only go up: the copy is behind for good. Load the new one; SQL answers meanwhile.
        copy.stale = true;
        if (!this.loading.has(sc.kbId)) void this.refresh(sc.kbId, sc.orgId);
        return { outcome: 'stale' };
      }
      const n = first.hit_count ?? 0;
      if (t.excludedMax === -Infinity) {
        // The full set: too few candidates were visible or passed the filters, and there are more
        // scored segments: SQL ranks them all.
        if (n < req.limit && cand.more) return { outcome: 'short' };
        return { outcome: 'memory', rows, ...ms() };
      }
      if (n >= req.limit && Number(first.last_score) > t.excludedMax + 1e-6)
        return { outcome: 'memory', rows, ...ms() };
      this.widened++;
    }
    throw new Error('unreachable: the last tier decides');
  }

  /**
   * candidateSearchSql's row for tier `t`, computed here: candidateStateSql gives the snapshot, the
   * folder check and the live state of the candidates' files; visibility (live file, current version),
   * the filters, the boost, rounding and order follow rankedSql; the hits' JSON is each segment's
   * fragment (fetched once, hitFragmentsSql) with its file's current name and its score. Undefined
   * when the index changed meanwhile (the copy is behind).
   */
  private async rankInProcess(
    sc: SearchScope,
    c: KbCopy,
    t: Tier,
    req: SearchRequest,
  ): Promise<SearchRow[] | undefined> {
    const fileNos = new Set<number>();
    for (const s of t.segs) fileNos.add(c.segFile[s]);
    // The live state of the files (maybe of other searches' files too), read after this search started.
    const { row: st, files } = await this.state.stateOf(
      sc,
      req.folderId,
      [...fileNos].map((fi) => c.fileIds[fi]),
    );
    if (!st) return [];
    if (String(st.version ?? 0) !== c.version) return undefined;
    const folder = req.folderId?.toLowerCase();
    const fileOk = req.fileIds ? new Set(req.fileIds.map((id) => id.toLowerCase())) : undefined;
    const visible: RankedHit[] = [];
    for (let i = 0; st.folder_ok && i < t.segs.length; i++) {
      const s = t.segs[i];
      const fileId = c.fileIds[c.segFile[s]];
      const file = files.get(fileId);
      if (!file || file[1] !== c.versionIds[c.segVersion[s]]) continue;
      if (folder !== undefined && file[2] !== folder) continue;
      if (fileOk && !fileOk.has(fileId)) continue;
      if (req.tableOnly && !c.segTable[s]) continue;
      const score = pgRound6(t.scores[i] * (c.segTable[s] ? this.r.tableBoost : 1));
      visible.push({ seg: s, fileId, ordinal: c.segOrdinal[s], score });
    }
    const hits = rankHits(visible, req.limit, req.groupByFile);
    // Taken out first: another search may drop some from the cache while this one waits.
    const frags = hits.map((h) => c.fragments.get(h.seg));
    const missing = new Map<string, number>();
    hits.forEach((h, i) => frags[i] ?? missing.set(c.segIds.at(h.seg), i));
    if (missing.size) {
      const rows = await queryRows<{ id: string; head: string; body: string; tail: string }>(
        this.db,
        hitFragmentsSql(sc, [...missing.keys()]),
        { prepared: true },
      );
      for (const r of rows) {
        const i = missing.get(r.id);
        if (i === undefined) continue;
        frags[i] = [r.head, r.body, r.tail];
        c.fragments.set(hits[i].seg, frags[i]);
      }
      // A row gone since the state was read: the index changed.
      if (frags.some((x) => !x)) return undefined;
      for (const k of c.fragments.keys()) {
        if (c.fragments.size <= FRAGMENTS) break;
        c.fragments.delete(k);
      }
    }
    const json = hits.map((h, i) => hitJson(frags[i] as HitFragment, files.get(h.fileId)![3], h.score));
    return [
      {
        early_exit: null,
        kb_id: st.kb_id,
        folder_ok: st.folder_ok,
        version: st.version as unknown as bigint,
        segment_count: st.segment_count,
        file_count: st.file_count,
        indexed_at: st.indexed_at,
        pending: st.pending,
        hit_count: hits.length,
        last_score: hits.length ? hits[hits.length - 1].score : null,
        hits: `[${json.join(', ')}]`,
      },
    ];
  }

  /** Loads (or reloads) a knowledge base's copy; resolves when done (errors are reported, not thrown). */
  refresh(kbId: string, orgId: string): Promise<void> {
    const running = this.loading.get(kbId);
    if (running) return running;
    const p = this.load(kbId, orgId)
      .catch((err) => {
        this.retryAt.set(`${kbId}/${orgId}`, Date.now() + (this.opts.retryMs ?? 60_000));
        this.opts.onError?.(kbId, err);
      })
      .finally(() => this.loading.delete(kbId));
    this.loading.set(kbId, p);
    return p;
  }

  private async lexemesOf(query: string): Promise<Array<{ term: string; w: number }>> {
    const qt = queryText(query);
    const key = `${qt.text}\u0000${qt.synonyms}`;
    let lex = this.lexemes.get(key);
    if (lex) {
      this.lexemes.delete(key);
    } else if ((lex = this.analyser ? queryLexemes(qt, this.r.synonymWeight) : undefined)) {
      this.lexemeSource.process++;
    } else {
      if (this.analyser === undefined) this.checkAnalyser();
      this.lexemeSource.statement++;
      const rows = await queryRows<{ term: string; w: number }>(this.db, queryLexemesSql(qt, this.r), {
        prepared: true,
      });
      lex = rows.map((x) => ({ term: x.term, w: Number(x.w) }));
    }
    this.lexemes.set(key, lex);
    if (this.lexemes.size > 10_000) this.lexemes.delete(this.lexemes.keys().next().value as string);
    return lex;
  }

  /** Compares the in-process analyser with the database's search_lexemes() once; until then SQL answers. */
  private checkAnalyser(): void {
    this.analyserCheck ??= verifyAnalyser(this.db).then(
      (ok) => {
        this.analyser = ok;
        if (!ok) this.opts.onAnalyserError?.(new Error('search_lexemes() differs from the in-process analyser'));
      },
      (err) => {
        this.analyserCheck = undefined; // tried again on a later search
        this.opts.onAnalyserError?.(err);
      },
    );
  }

  /** Resolves when the analyser check has run (tests). */
  async analyserReady(): Promise<boolean> {
    this.checkAnalyser();
    await this.analyserCheck;
    return this.analyser === true;
  }

  private async load(kbId: string, orgId: string): Promise<void> {
    const t0 = performance.now();
    const copy = await rawTransaction(this.db, async (q) => {
      // One snapshot for the state, the segments, the document frequencies and the postings.
      await q(Prisma.sql`SET TRANSACTION ISOLATION LEVEL REPEATABLE READ`);
      const [st] = await q<{
        version: string;
        segment_count: number;
        file_count: number;
        total_length: number;
        terms: number;
        postings: number;
        term_bytes: number;
      }>(
        Prisma.sql`SELECT st.version::text AS version, st.segment_count, st.file_count, st.total_length, t.terms, t.postings, t.term_bytes
        FROM evidence_index_state st,
          LATERAL (SELECT count(*)::int AS terms, coalesce(sum(df), 0)::float8 AS postings,
            coalesce(sum(octet_length(term)), 0)::float8 AS term_bytes
            FROM search_terms WHERE knowledge_base_id = st.knowledge_base_id) t
        WHERE st.knowledge_base_id = ${kbId}::uuid AND st.org_id = ${orgId}::uuid`,
      );
      const est = st
        ? estimateBytes({
            segments: st.segment_count,
            postings: st.postings,
            terms: st.terms,
            termBytes: st.term_bytes,
            files: st.file_count,
          })
        : 0;
      // Not indexed yet, not this organisation's, too small or too big: SQL answers for a while.
      if (!st || st.segment_count < this.opts.minSegments || est > this.opts.maxBytes) {
        this.retryAt.set(`${kbId}/${orgId}`, Date.now() + (this.opts.retryMs ?? 60_000));
        return undefined;
      }
      this.makeRoom(est, kbId);
      const segRows = await q<{
        id: string;
        file_id: string;
        file_version_id: string;
        ordinal: number;
        dl: number;
        is_table: boolean;
      }>(
        Prisma.sql`SELECT id::text, file_id::text, file_version_id::text, ordinal, search_length AS dl, is_table
          FROM evidence_index_segments
          WHERE knowledge_base_id = ${kbId}::uuid AND org_id = ${orgId}::uuid ORDER BY id`,
      );
      const nSeg = segRows.length;
      const segIds = new Array<string>(nSeg);
      const segFile = new Int32Array(nSeg);
      const segDl = new Float64Array(nSeg);
      const segTable = new Uint8Array(nSeg);
      const segVersion = new Int32Array(nSeg);
      const segOrdinal = new Int32Array(nSeg);
      const versionIndex = new Map<string, number>();
      const versionIds: string[] = [];
      const fileIndex = new Map<string, number>();
      const fileIds: string[] = [];
      segRows.forEach((s, i) => {
        segIds[i] = s.id;
        segFile[i] = intern(fileIndex, fileIds, s.file_id);
        segVersion[i] = intern(versionIndex, versionIds, s.file_version_id);
        segOrdinal[i] = s.ordinal;
        segDl[i] = Number(s.dl);
        segTable[i] = s.is_table ? 1 : 0;
      });
      const dfRows = await q<{ term: string; df: number }>(
        Prisma.sql`SELECT term, df FROM search_terms WHERE knowledge_base_id = ${kbId}::uuid`,
      );
      const terms = new TermStore();
      for (const t of dfRows) terms.add(t.term, Number(t.df));
      // Segment numbers are assigned in PostgreSQL (the same `id` order), so a posting crosses the wire
      // as 4 + 8 bytes in one bytea per term rather than as a row with a uuid.
      await q(Prisma.sql`CREATE TEMP TABLE search_memory_segs ON COMMIT DROP AS
        SELECT id, (row_number() OVER (ORDER BY id) - 1)::int AS n FROM evidence_index_segments
        WHERE knowledge_base_id = ${kbId}::uuid AND org_id = ${orgId}::uuid`);
      await q(Prisma.sql`CREATE UNIQUE INDEX ON search_memory_segs (id)`);
      await q(Prisma.sql`ANALYZE search_memory_segs`);
      const batch = this.opts.batchPostings ?? 400_000;
      const names = dfRows.map((t) => t.term);
      let postings = 0;
      let termNo = 0;
      // Term frequencies are sums of field weights (1, 0.5) × counts: the store keeps them as Float32
      // when all are exact there (half the memory), one type for every term (a monomorphic loop).
      const fileSeen = new Int32Array(fileIds.length).fill(-1);
      for (let i = 0; i < names.length;) {
        const chunk: string[] = [];
        let size = 0;
        while (i < names.length && (size === 0 || size + Number(dfRows[i].df) <= batch)) {
          size += Number(dfRows[i].df);
          chunk.push(names[i++]);
        }
        const rows = await q<{ term: string; segs: Buffer; tfs: Buffer }>(
          Prisma.sql`SELECT p.term, string_agg(int4send(m.n), ''::bytea ORDER BY m.n) AS segs,
            string_agg(float8send(p.tf), ''::bytea ORDER BY m.n) AS tfs
          FROM search_postings p JOIN search_memory_segs m ON m.id = p.segment_row_id
          WHERE p.knowledge_base_id = ${kbId}::uuid AND p.term = ANY(${chunk}::text[])
          GROUP BY p.term`,
        );
        for (const row of rows) {
          const k = row.segs.length / 4;
          const segs = new Int32Array(k);
          const tf64 = new Float64Array(k);
          for (let j = 0; j < k; j++) {
            segs[j] = row.segs.readInt32BE(j * 4);
            const v = row.tfs.readDoubleBE(j * 8);
            tf64[j] = v;
          }
          // Distinct files of the term (segments are in id order, so files repeat out of order).
          const files: number[] = [];
          const mark = termNo++;
          for (let j = 0; j < k; j++) {
            const fi = segFile[segs[j]];
            if (fileSeen[fi] !== mark) {
              fileSeen[fi] = mark;
              files.push(fi);
            }
          }
          postings += k;
          let no = terms.find(row.term);
          if (no < 0) no = terms.add(row.term, 0);
          terms.setPostings(no, segs, tf64, files);
        }
      }
      terms.finish();
      const n = Math.max(st.segment_count, 1);
      const out: KbCopy = {
        kbId,
        orgId,
        version: st.version,
        n,
        avgdl: Math.max(Number(st.total_length) / Math.max(st.segment_count, 1), 1e-9),
        segIds: new PackedStrings(segIds),
        segFile,
        segDl,
        segTable,
        segVersion,
        segOrdinal,
        versionIds,
        fragments: new Map(),
        fileIds,
        fileIndex,
        terms,
        postings,
        bytes: est,
        loadMs: 0,
        stale: false,
      };
      return out;
    });
    if (!copy) {
      // A search naming another organisation's knowledge base never drops that organisation's copy.
      if (this.copies.get(kbId)?.orgId === orgId) this.copies.delete(kbId);
      return;
    }
    copy.loadMs = performance.now() - t0;
    this.copies.delete(kbId);
    this.copies.set(kbId, copy);
  }

  /** Drops least recently used copies until `bytes` more fit under the cap. */
  private makeRoom(bytes: number, except: string): void {
    let used = 0;
    for (const [id, c] of this.copies) if (id !== except) used += c.bytes;
    for (const [id, c] of this.copies) {
      if (used + bytes <= this.opts.maxBytes) break;
      if (id === except) continue;
      this.copies.delete(id);
      used -= c.bytes;
    }
    // The knowledge base's own older copy is replaced, not kept beside the new one.
    this.copies.delete(except);
  }
}

/** Candidates sent to the statement at once: unboosted scores, as textSearchSql's `sc.score`. */
export interface Tier {
  /** Segment numbers of the copy, and their ids. */
  segs: number[];
  ids: string[];
  scores: number[];
  /**
   * The highest boosted score among the candidates of the full set left out of this tier (-Infinity
   * for the full set). A tier's hits stand only when `limit` of them came back and the last one's
   * rounded score is above this + 1e-6: no candidate left out could then enter them, even after
   * rounding to six decimals, so they are the full set's hits.
   */
  excludedMax: number;
}

export interface Candidates {
  /** The best few first (most searches need no more), then the full set the statement would rank. */
  tiers: Tier[];
  /** More scored segments exist than the full set holds. */
  more: boolean;
  /** Segments scored. */
  scored: number;
  /** Postings not scored: their segments hold only terms that cannot bring them into the best (MaxScore). */
  skipped: number;
}

/**
 * The candidates textSearchSql's exhaustive path would rank, from the copy: the query's terms with
 * IDF (common ones dropped when rarer ones exist), every posting of them scored as
 *   Σ idf·tf·(k1 + 1)/(tf + k1·(1 − b + b·dl/avgdl)) + fileContext·(file's Σ idf − segment's Σ idf),
 * then without filters the `prefetch` best by (score, id), the statement's `pre`; with filters the
 * `prefetch` best by boosted score among the segments that pass the filters the copy knows (files,
 * tables), widened to every segment within rounding distance of the last one, so that the statement's
 * order (rounded score, file, position) over them is a prefix of its order over all.
 *
 * Without filters the best `prefetch` are kept as the blocks are scored, and MaxScore skips work
 * that cannot change them: a segment's score is fileContext·(its file's Σ idf) plus, for each query
 * term it holds, idf·(tfn − fileContext), at most idf·(the term's largest tfn − fileContext). Once
 * `prefetch` segments are kept, the terms with the smallest such bounds whose sum, with the largest
 * file credit, stays below the last kept score are non-essential for the next block: a segment
 * holding only those cannot enter, so their postings only add to segments an essential term holds.
 * Every segment scored gets all its terms in query order, so the scores are the exhaustive ones to
 * the bit; the segments skipped score below the last kept one, so the best are the same.
 */
export function scoreCandidates(
  c: KbCopy,
  lex: Array<{ term: string; w: number }>,
  req: Pick<SearchRequest, 'limit' | 'fileIds' | 'folderId' | 'years' | 'sourceType' | 'tableOnly'>,
  r: Ranking = RANKING,
): Candidates {
  const { n } = c;
  // qa: the query's terms known to the knowledge base, with IDF; qt: the rare ones if any.
  const qa: Array<{ t: Term; idf: number; rare: boolean }> = [];
  for (const { term, w } of lex) {
    const t = c.terms.get(term);
    if (!t || !(w > 0)) continue;
    qa.push({ t, idf: w * Math.log(1 + (n - t.df + 0.5) / (t.df + 0.5)), rare: t.df <= r.commonShare * n });
  }
  const anyRare = qa.some((x) => x.rare);
  const qt = qa.filter((x) => x.rare || !anyRare);
  const x = scratchOf(c, r);
  const { segFk, kOf, local, cand, found, fileIdf, fileSeen } = x;
  const fc = r.fileContext;
  const k1p1 = r.k1 + 1;
  // Each file's Σ idf of the query terms it holds (the file-context credit).
  const files: number[] = [];
  for (const { t, idf } of qt) {
    for (let j = 0; j < t.files.length; j++) {
      const f = t.files[j];
      if (!fileSeen[f]) {
        fileSeen[f] = 1;
        files.push(f);
      }
      fileIdf[f] += idf;
    }
  }
  let creditMax = 0;
  for (const f of files) creditMax = Math.max(creditMax, fc * fileIdf[f]);
  const hasFilters = Boolean(req.fileIds || req.folderId || req.years?.length || req.sourceType || req.tableOnly);
  const fileOk = req.fileIds
    ? new Set(req.fileIds.map((id) => c.fileIndex.get(id.toLowerCase())).filter((v) => v !== undefined))
    : undefined;
  const prefetch = Math.max(r.prefetch, 4 * req.limit);
  const nq = qt.length;
  const idfs = Float64Array.from(qt, (q) => q.idf);
  // Without filters: the best `prefetch` so far by (score, segment), a heap whose root is the worst.
  const hv = new Float64Array(prefetch);
  const hs = new Int32Array(prefetch);
  let hn = 0;
  // MaxScore: the terms by their bound, smallest first, and which are non-essential in this block.
  const bound = qt.map((q) => Math.max(0, q.idf * (tfnMaxOf(x, c, q.t, r) - fc)));
  const byBound = hasFilters ? [] : Array.from(qt.keys()).sort((a, b) => bound[a] - bound[b]);
  const nonEss = new Uint8Array(nq);
  // With filters: every scored segment that passes them, compacted to the front of touched/scoreBuf.
  const touched = hasFilters ? (x.touched ??= new Int32Array(c.segIds.length)) : undefined;
  const scoreBuf = hasFilters ? (x.scoreBuf ??= new Float64Array(c.segIds.length)) : undefined;
  let scored = 0;
  let nk = 0;
  // Postings of non-essential terms whose segment no essential term holds (those segments are not scored).
  let skipped = 0;
  const at = new Int32Array(nq);
  for (let start = 0; start < c.segIds.length; start += BLOCK) {
    const end = start + BLOCK;
    let nne = 0;
    if (hn === prefetch) {
      const theta = hv[0];
      let sum = creditMax;
      for (const q of byBound) {
        const v = sum + bound[q];
        // The margin covers the rounding of the scores and of these bounds.
        if (!(v < theta - 1e-9 * (1 + Math.abs(theta) + v))) break;
        sum = v;
        nonEss[q] = 1;
        nne++;
      }
    }
    let nf = 0;
    if (nne > 0) {
      // The segments an essential term holds, then every term's part of them in query order.
      for (let q = 0; q < nq; q++) {
        if (nonEss[q]) continue;
        const segs = qt[q].t.segs;
        for (let j = at[q]; j < segs.length; j++) {
          const l = segs[j] - start;
          if (l >= BLOCK) break;
          if (cand[l] === 0) {
            cand[l] = 1;
            found[nf++] = l;
          }
        }
      }
    }
    for (let q = 0; q < nq; q++) {
      const { segs, tfs } = qt[q].t;
      const idf = idfs[q];
      let j = at[q];
      if (nne === 0) {
        for (; j < segs.length; j++) {
          const s = segs[j];
          if (s >= end) break;
          const l = s - start;
          const tf = tfs[j];
          if (cand[l] === 0) {
            cand[l] = 1;
            found[nf++] = l;
          }
          local[2 * l] += (idf * tf * k1p1) / (tf + kOf[segFk[2 * s + 1]]);
          local[2 * l + 1] += idf;
        }
      } else if (nonEss[q]) {
        for (; j < segs.length; j++) {
          const s = segs[j];
          if (s >= end) break;
          const l = s - start;
          if (cand[l] === 0) {
            skipped++;
            continue;
          }
          const tf = tfs[j];
          local[2 * l] += (idf * tf * k1p1) / (tf + kOf[segFk[2 * s + 1]]);
          local[2 * l + 1] += idf;
        }
      } else {
        for (; j < segs.length; j++) {
          const s = segs[j];
          if (s >= end) break;
          const l = s - start;
          const tf = tfs[j];
          local[2 * l] += (idf * tf * k1p1) / (tf + kOf[segFk[2 * s + 1]]);
          local[2 * l + 1] += idf;
        }
      }
      at[q] = j;
    }
    if (nne > 0) nonEss.fill(0);
    scored += nf;
    for (let i = 0; i < nf; i++) {
      const l = found[i];
      const s = start + l;
      const f = segFk[2 * s];
      const v = local[2 * l] + fc * (fileIdf[f] - local[2 * l + 1]);
      local[2 * l] = 0;
      local[2 * l + 1] = 0;
      cand[l] = 0;
      if (touched && scoreBuf) {
        if (fileOk && !fileOk.has(f)) continue;
        if (req.tableOnly && !c.segTable[s]) continue;
        touched[nk] = s;
        scoreBuf[nk++] = v;
        continue;
      }
      nk++;
      if (hn < prefetch) {
        // Sift up: a parent ranks below its children.
        let k = hn++;
        while (k > 0) {
          const p = (k - 1) >> 1;
          if (!(hv[p] > v || (hv[p] === v && hs[p] < s))) break;
          hv[k] = hv[p];
          hs[k] = hs[p];
          k = p;
        }
        hv[k] = v;
        hs[k] = s;
        continue;
      }
      if (v < hv[0] || (v === hv[0] && s > hs[0])) continue;
      let p = 0;
      for (;;) {
        const a = 2 * p + 1;
        if (a >= prefetch) break;
        const m = a + 1 < prefetch && (hv[a] > hv[a + 1] || (hv[a] === hv[a + 1] && hs[a] < hs[a + 1])) ? a + 1 : a;
        if (!(hv[m] < v || (hv[m] === v && hs[m] > s))) break;
        hv[p] = hv[m];
        hs[p] = hs[m];
        p = m;
      }
      hv[p] = v;
      hs[p] = s;
    }
  }
  for (const f of files) {
    fileIdf[f] = 0;
    fileSeen[f] = 0;
  }
  const segOf = touched ?? hs;
  const scoreOf = scoreBuf ?? hv;
  const boost = (s: number) => (c.segTable[s] ? r.tableBoost : 1);
  // Order: without filters (score, id) as the statement's `pre`; with filters the boosted score.
  const chosen = bestOf(
    segOf,
    scoreOf,
    touched ? nk : hn,
    prefetch,
    touched ? (i) => scoreOf[i] * boost(segOf[i]) : undefined,
  );
  if (touched && chosen.length === prefetch && nk > prefetch) {
    const last = scoreOf[chosen[prefetch - 1]] * boost(segOf[chosen[prefetch - 1]]);
    const inBest = new Set(chosen);
    const near: number[] = [];
    for (let i = 0; i < nk; i++) if (!inBest.has(i) && scoreOf[i] * boost(segOf[i]) >= last - 2e-6) near.push(i);
    // In rank order too (the statement orders them itself; this keeps the result independent of the loop's order).
    chosen.push(
      ...topK(
        near,
        near.length,
        (i) => scoreOf[i] * boost(segOf[i]),
        (i) => segOf[i],
      ),
    );
  }
  const tier = (xs: number[], excludedMax: number): Tier => ({
    segs: xs.map((i) => segOf[i]),
    ids: xs.map((i) => c.segIds.at(segOf[i])),
    scores: xs.map((i) => scoreOf[i]),
    excludedMax,
  });
  const tiers = [tier(chosen, -Infinity)];
  // First the best few by boosted score: checking 100 segments' visibility and filters costs
  // PostgreSQL more than the `limit` or so that most searches return.
  const few = 2 * req.limit + 10;
  if (chosen.length > few) {
    const boosted = (i: number) => scoreOf[i] * boost(segOf[i]);
    const order = topK(chosen, few + 1, boosted, (i) => segOf[i]);
    tiers.unshift(tier(order.slice(0, few), boosted(order[few])));
  }
  // A skipped posting's segment is one more than the kept ones (they were `prefetch` already).
  return { tiers, more: nk > chosen.length || skipped > 0, scored, skipped };
}

/** Segments per block of the scoring loop: `local` is 16 bytes a segment, 16 KiB a block (the L1 cache). */
const BLOCK = 1024;

/** The copy's scratch for ranking `r`, made (or its length parts recomputed) when missing or for other k1, b. */
function scratchOf(c: KbCopy, r: Ranking): Scratch {
  let x = c.scratch;
  if (x && x.k1 === r.k1 && x.b === r.b) return x;
  const nSeg = c.segIds.length;
  const lengths: number[] = [];
  let segFk = x?.segFk;
  if (!segFk) {
    segFk = new Int32Array(2 * nSeg);
    const cls = new Map<number, number>();
    for (let s = 0; s < nSeg; s++) {
      segFk[2 * s] = c.segFile[s];
      segFk[2 * s + 1] = intern(cls, lengths, c.segDl[s]);
    }
  } else {
    for (let s = 0; s < nSeg; s++) lengths[segFk[2 * s + 1]] = c.segDl[s];
  }
  const kOf = Float64Array.from(lengths, (dl) => r.k1 * (1 - r.b + (r.b * dl) / c.avgdl));
  x = {
    k1: r.k1,
    b: r.b,
    segFk,
    kOf,
    local: x?.local ?? new Float64Array(2 * BLOCK),
    cand: x?.cand ?? new Uint8Array(BLOCK),
    found: x?.found ?? new Int32Array(BLOCK),
    fileIdf: x?.fileIdf ?? new Float64Array(c.fileIds.length),
    fileSeen: x?.fileSeen ?? new Uint8Array(c.fileIds.length),
    tfnMax: new Map(),
    touched: x?.touched,
    scoreBuf: x?.scoreBuf,
  };
  c.scratch = x;
  return x;
}

/** A term's largest tf·(k1 + 1)/(tf + length part) over its postings, computed at its first search. */
function tfnMaxOf(x: Scratch, c: KbCopy, t: Term, r: Ranking): number {
  let m = x.tfnMax.get(t.no);
  if (m === undefined) {
    m = 0;
    const k1p1 = r.k1 + 1;
    for (let j = 0; j < t.segs.length; j++) {
      const tf = t.tfs[j];
      const v = (tf * k1p1) / (tf + x.kOf[x.segFk[2 * t.segs[j] + 1]]);
      if (v > m) m = v;
    }
    x.tfnMax.set(t.no, m);
  }
  return m;
}

/**
 * The (at most) k best of the first `nk` entries (indexes into `segs` and `scores`), best first: by
 * `key` when given, else by score, ties by the lower segment number. Without a key, a bounded
 * min-heap compared inline: most entries of a long list are refused by one comparison with its root.
 */
function bestOf(segs: Int32Array, scores: Float64Array, nk: number, k: number, key?: (i: number) => number): number[] {
  const all = () => Array.from({ length: nk }, (_, i) => i);
  if (key) return topK(all(), k, key, (i) => segs[i]);
  // a ranks above b: higher score, or equal and lower segment number (topK's order).
  const above = (a: number, b: number) => scores[a] > scores[b] || (scores[a] === scores[b] && segs[a] < segs[b]);
  const byRank = (a: number, b: number) => (above(a, b) ? -1 : above(b, a) ? 1 : 0);
  if (nk <= k) return all().sort(byRank);
  const heap = new Int32Array(k); // root: the worst of the best k so far
  for (let i = 0; i < k; i++) {
    heap[i] = i;
    for (let x = i; x > 0;) {
      const p = (x - 1) >> 1;
      if (!above(heap[p], heap[x])) break;
      const h = heap[p];
      heap[p] = heap[x];
      heap[x] = h;
      x = p;
    }
  }
  let rootScore = scores[heap[0]];
  for (let i = k; i < nk; i++) {
    const v = scores[i];
    if (v < rootScore || (v === rootScore && segs[i] > segs[heap[0]])) continue;
    heap[0] = i;
    for (let p = 0; ;) {
      const l = 2 * p + 1;
      let m = p;
      if (l < k && above(heap[m], heap[l])) m = l;
      if (l + 1 < k && above(heap[m], heap[l + 1])) m = l + 1;
      if (m === p) break;
      const h = heap[m];
      heap[m] = heap[p];
      heap[p] = h;
      p = m;
    }
    rootScore = scores[heap[0]];
  }
  return Array.from(heap).sort(byRank);
}

/** The k items of `xs` with the highest key (ties: lower `tie` first), best first. */
function topK(xs: number[], k: number, key: (x: number) => number, tie: (x: number) => number): number[] {
  // a before b when a ranks higher.
  const better = (a: number, b: number) => {
    const d = key(a) - key(b);
    return d > 0 || (d === 0 && tie(a) < tie(b));
  };
  if (xs.length <= k) return xs.slice().sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  // A min-heap of the best k so far (root: the worst of them).
  const heap: number[] = [];
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!better(heap[p], heap[i])) break;
      [heap[p], heap[i]] = [heap[i], heap[p]];
      i = p;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const rr = l + 1;
      let m = i;
      if (l < heap.length && better(heap[m], heap[l])) m = l;
      if (rr < heap.length && better(heap[m], heap[rr])) m = rr;
      if (m === i) break;
      [heap[m], heap[i]] = [heap[i], heap[m]];
      i = m;
    }
  };
  for (const x of xs) {
    if (heap.length < k) {
      heap.push(x);
      up(heap.length - 1);
    } else if (better(x, heap[0])) {
      heap[0] = x;
      down(0);
    }
  }
  return heap.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
}

/** The small-integer number of `key` in `list` (appended when new), looked up in `index`. */
function intern<K>(index: Map<K, number>, list: K[], key: K): number {
  let n = index.get(key);
  if (n === undefined) {
    n = list.length;
    list.push(key);
    index.set(key, n);
  }
  return n;
}
