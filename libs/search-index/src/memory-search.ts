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
  candidateStateSql,
  hitFragmentsSql,
  queryLexemesSql,
  type CandidateStateRow,
  type Ranking,
  type SearchRow,
  type SearchScope,
} from './search-sql';
import type { SearchRequest } from './search-request';

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
  /** Called when a load fails (the knowledge base stays on the SQL path until its version changes). */
  onError?: (kbId: string, err: unknown) => void;
  /** Called when the in-process query analyser is off (search_lexemes() differs) or could not be checked. */
  onAnalyserError?: (err: unknown) => void;
}

interface Term {
  df: number;
  /** Segment numbers (ascending) holding the term, and the term frequency in each. */
  segs: Int32Array;
  tfs: Float32Array | Float64Array;
  /** Distinct file numbers of those segments. */
  files: Int32Array;
}

/** One knowledge base's copy, as of index `version`. Segments are numbered in `id` order. */
export interface KbCopy {
  kbId: string;
  orgId: string;
  version: string;
  /** BM25's N and average length, as the statement computes them from evidence_index_state. */
  n: number;
  avgdl: number;
  segIds: string[];
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
  terms: Map<string, Term>;
  postings: number;
  bytes: number;
  loadMs: number;
  /** Set once a search saw a newer version: the copy never answers again. */
  stale: boolean;
  /** Scratch arrays of one search (JavaScript runs one search at a time). */
  /** Per segment: Σ idf·tfn and Σ idf of one search, and BM25's length part k1·(1 − b + b·dl/avgdl). */
  acc: Float64Array;
  fileIdf: Float64Array;
  fileSeen: Uint8Array;
  touched: Int32Array;
  scoreBuf: Float64Array;
  /** The k1 and b the length parts in `acc` were computed with. */
  norm?: { k1: number; b: number };
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

// Measured: 200,000 segments, 125,490 terms and 10.0 million postings raised a gateway's resident
// memory by 254 MiB right after loading (this estimate: 186 MiB; the rest is the load's garbage).
const BYTES_PER_SEGMENT = 136; // uuid string, file and version numbers, position, length, length part, table flag, scratch arrays
/** Hit fragments kept per copy, and the bytes counted for each (~2 × a ~500-character markdown, the ids, JSON). */
const FRAGMENTS = 10_000;
const BYTES_PER_FRAGMENT = 2048;
const BYTES_PER_TERM = 400; // the Map entry, the term string, its object and three typed arrays

/** Estimated bytes of a copy: postings (segment number + tf, and a file number at most), segments, terms. */
export function estimateBytes(segments: number, postings: number, terms: number): number {
  return (
    postings * 12 +
    segments * BYTES_PER_SEGMENT +
    terms * BYTES_PER_TERM +
    Math.min(FRAGMENTS, segments) * BYTES_PER_FRAGMENT
  );
}

export class MemorySearch {
  private readonly copies = new Map<string, KbCopy>(); // insertion order = least recently used first
  private readonly loading = new Map<string, Promise<void>>();
  /** Knowledge bases not to try loading again before this time (too big, too small, or the load failed). */
  private readonly retryAt = new Map<string, number>();
  private readonly lexemes = new Map<string, Array<{ term: string; w: number }>>();
  private readonly r: Ranking;
  /** Searches whose best few candidates did not prove their hits, so the full set was sent. */
  widened = 0;
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
    const [st] = await queryRows<CandidateStateRow>(
      this.db,
      candidateStateSql(
        sc,
        req.folderId,
        [...fileNos].map((fi) => c.fileIds[fi]),
      ),
      { prepared: true },
    );
    if (!st) return [];
    if (String(st.version ?? 0) !== c.version) return undefined;
    // [id, current version id, folder id, filename] of the live ones.
    const files = new Map<string, [string, string | null, string | null, string]>();
    for (const f of JSON.parse(st.files ?? '[]') as Array<[string, string | null, string | null, string]>)
      files.set(f[0], f);
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
    hits.forEach((h, i) => frags[i] ?? missing.set(c.segIds[h.seg], i));
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
        total_length: number;
        terms: number;
        postings: number;
      }>(
        Prisma.sql`SELECT st.version::text AS version, st.segment_count, st.total_length,
          (SELECT count(*) FROM search_terms t WHERE t.knowledge_base_id = st.knowledge_base_id)::int AS terms,
          (SELECT coalesce(sum(df), 0) FROM search_terms t WHERE t.knowledge_base_id = st.knowledge_base_id)::float8 AS postings
        FROM evidence_index_state st WHERE st.knowledge_base_id = ${kbId}::uuid AND st.org_id = ${orgId}::uuid`,
      );
      const est = st ? estimateBytes(st.segment_count, st.postings, st.terms) : 0;
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
        let fi = fileIndex.get(s.file_id);
        if (fi === undefined) {
          fi = fileIds.length;
          fileIds.push(s.file_id);
          fileIndex.set(s.file_id, fi);
        }
        segFile[i] = fi;
        let vi = versionIndex.get(s.file_version_id);
        if (vi === undefined) {
          vi = versionIds.length;
          versionIds.push(s.file_version_id);
          versionIndex.set(s.file_version_id, vi);
        }
        segVersion[i] = vi;
        segOrdinal[i] = s.ordinal;
        segDl[i] = Number(s.dl);
        segTable[i] = s.is_table ? 1 : 0;
      });
      const dfRows = await q<{ term: string; df: number }>(
        Prisma.sql`SELECT term, df FROM search_terms WHERE knowledge_base_id = ${kbId}::uuid`,
      );
      const terms = new Map<string, Term>();
      const empty = { segs: new Int32Array(0), tfs: new Float64Array(0), files: new Int32Array(0) };
      for (const t of dfRows) terms.set(t.term, { df: Number(t.df), ...empty });
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
      // Term frequencies are sums of field weights (1, 0.5) × counts: Float32 holds them exactly, at
      // half the memory. One type for every term keeps the scoring loop monomorphic.
      let allExact32 = true;
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
            if (Math.fround(v) !== v) allExact32 = false;
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
          const t = terms.get(row.term) ?? { df: 0, ...empty };
          terms.set(row.term, {
            df: t.df,
            segs,
            tfs: tf64,
            files: Int32Array.from(files),
          });
        }
      }
      if (allExact32) for (const t of terms.values()) t.tfs = Float32Array.from(t.tfs);
      const n = Math.max(st.segment_count, 1);
      const out: KbCopy = {
        kbId,
        orgId,
        version: st.version,
        n,
        avgdl: Math.max(Number(st.total_length) / Math.max(st.segment_count, 1), 1e-9),
        segIds,
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
        acc: new Float64Array(3 * nSeg),
        fileIdf: new Float64Array(fileIds.length),
        fileSeen: new Uint8Array(fileIds.length),
        touched: new Int32Array(nSeg),
        scoreBuf: new Float64Array(nSeg),
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
}

/**
 * The candidates textSearchSql's exhaustive path would rank, from the copy: the query's terms with
 * IDF (common ones dropped when rarer ones exist), every posting of them scored as
 *   Σ idf·tf·(k1 + 1)/(tf + k1·(1 − b + b·dl/avgdl)) + fileContext·(file's Σ idf − segment's Σ idf),
 * then without filters the `prefetch` best by (score, id), the statement's `pre`; with filters the
 * `prefetch` best by boosted score among the segments that pass the filters the copy knows (files,
 * tables), widened to every segment within rounding distance of the last one, so that the statement's
 * order (rounded score, file, position) over them is a prefix of its order over all.
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
  const { acc, fileIdf, segFile, fileSeen, touched, scoreBuf } = c;
  const fc = r.fileContext;
  const k1p1 = r.k1 + 1;
  if (!c.norm || c.norm.k1 !== r.k1 || c.norm.b !== r.b) {
    for (let s = 0; s < c.segDl.length; s++) acc[3 * s + 2] = r.k1 * (1 - r.b + (r.b * c.segDl[s]) / c.avgdl);
    c.norm = { k1: r.k1, b: r.b };
  }
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
  const hasFilters = Boolean(req.fileIds || req.folderId || req.years?.length || req.sourceType || req.tableOnly);
  const fileOk = req.fileIds
    ? new Set(req.fileIds.map((id) => c.fileIndex.get(id.toLowerCase())).filter((x) => x !== undefined))
    : undefined;
  // acc holds, per segment s, at 3s: Σ idf·tfn, at 3s + 1: Σ idf (> 0 once the segment is touched,
  // every idf being positive), at 3s + 2: BM25's length part; one cache line per posting.
  // Block by block of segment numbers, each term's postings of the block in turn: a segment still
  // gets its terms in query order (the same sums), and a block's part of `acc` stays in the cache
  // until its segments are scored and their sums cleared, at the end of the block. The segments
  // that pass the filters are compacted to the front of `touched`, with their scores in scoreBuf.
  let nt = 0;
  let nk = 0;
  const at = new Int32Array(qt.length);
  for (let end = BLOCK; end - BLOCK < c.segIds.length; end += BLOCK) {
    const first = nt;
    for (let q = 0; q < qt.length; q++) {
      const { segs, tfs } = qt[q].t;
      const idf = qt[q].idf;
      let j = at[q];
      for (; j < segs.length; j++) {
        const s = segs[j];
        if (s >= end) break;
        const s3 = 3 * s;
        const tf = tfs[j];
        if (acc[s3 + 1] === 0) touched[nt++] = s;
        acc[s3] += (idf * tf * k1p1) / (tf + acc[s3 + 2]);
        acc[s3 + 1] += idf;
      }
      at[q] = j;
    }
    for (let i = first; i < nt; i++) {
      const s = touched[i];
      const s3 = 3 * s;
      const v = acc[s3] + fc * (fileIdf[segFile[s]] - acc[s3 + 1]);
      acc[s3] = 0;
      acc[s3 + 1] = 0;
      if (hasFilters) {
        if (fileOk && !fileOk.has(segFile[s])) continue;
        if (req.tableOnly && !c.segTable[s]) continue;
      }
      touched[nk] = s;
      scoreBuf[nk++] = v;
    }
  }
  for (const f of files) {
    fileIdf[f] = 0;
    fileSeen[f] = 0;
  }
  const boost = (s: number) => (c.segTable[s] ? r.tableBoost : 1);
  const prefetch = Math.max(r.prefetch, 4 * req.limit);
  // Order: without filters (score, id) as the statement's `pre`; with filters the boosted score.
  const chosen = bestOf(
    touched,
    scoreBuf,
    nk,
    prefetch,
    hasFilters ? (i) => scoreBuf[i] * boost(touched[i]) : undefined,
  );
  if (hasFilters && chosen.length === prefetch && nk > prefetch) {
    const last = scoreBuf[chosen[prefetch - 1]] * boost(touched[chosen[prefetch - 1]]);
    const inBest = new Set(chosen);
    const near: number[] = [];
    for (let i = 0; i < nk; i++) if (!inBest.has(i) && scoreBuf[i] * boost(touched[i]) >= last - 2e-6) near.push(i);
    // In rank order too (the statement orders them itself; this keeps the result independent of the loop's order).
    chosen.push(
      ...topK(
        near,
        near.length,
        (i) => scoreBuf[i] * boost(touched[i]),
        (i) => touched[i],
      ),
    );
  }
  const tier = (xs: number[], excludedMax: number): Tier => ({
    segs: xs.map((i) => touched[i]),
    ids: xs.map((i) => c.segIds[touched[i]]),
    scores: xs.map((i) => scoreBuf[i]),
    excludedMax,
  });
  const tiers = [tier(chosen, -Infinity)];
  // First the best few by boosted score: checking 100 segments' visibility and filters costs
  // PostgreSQL more than the `limit` or so that most searches return.
  const few = 2 * req.limit + 10;
  if (chosen.length > few) {
    const boosted = (i: number) => scoreBuf[i] * boost(touched[i]);
    const order = topK(chosen, few + 1, boosted, (i) => touched[i]);
    tiers.unshift(tier(order.slice(0, few), boosted(order[few])));
  }
  return { tiers, more: nk > chosen.length, scored: nt };
}

/** Segments per block of the scoring loop: 24 bytes each of `acc`, 384 KiB a block. */
const BLOCK = 16_384;

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
