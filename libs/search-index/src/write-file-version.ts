// The indexer: replaces a file's segments in the search index with those of one parse manifest
// (its bundle's segments.json), in one transaction, so a search never sees half a document or two
// versions at once. The index worker's 'index.file-version' job runs it; tests and benchmarks seed
// the index with it too.
import { BUNDLE } from '@docfleet/contracts';
import { Prisma, clearPendingIndexJob, type Db, type Tx } from '@docfleet/db';
import type { SearchIndexDeps } from './deps';
import { applyIndexDelta } from './index-state';
import { jsonArrayElements, type StorageDriver } from '@docfleet/storage';
import { applyTermDelta, termCountsOf } from './search-stats';
import { SegmentsFile, clean, segmentRows, streamSegmentRows, type SegmentRow } from './segment-rows';

export type SkipReason =
  'file_not_found' | 'file_deleted' | 'version_not_current' | 'manifest_not_found' | 'manifest_not_newest';
export type IndexOutcome =
  { status: 'indexed'; segments: number; removed: number; ms: number } | { status: 'skipped'; reason: SkipReason };

export interface IndexFileVersionPayload {
  orgId: string;
  fileId: string;
  fileVersionId: string;
  manifestId: string;
  /** Its row in index_pending_updates (issue 13.6). */
  pendingId?: string;
}

const DEFAULT_BATCH_ROWS = 500;
/** Also cut a batch at this much JSON, so wide spreadsheet bands do not make one huge statement. */
const BATCH_CHARS = 4 * 1024 * 1024;

interface FileRow {
  id: string;
  knowledge_base_id: string;
  folder_id: string | null;
  current_version_id: string | null;
  deleted_at: Date | null;
  content_type: string;
  filename: string;
}

/**
 * The skip rules, checked before reading the bundle and again under the file's row lock: the file
 * exists and is live, the version is still current, and the manifest is the newest parse manifest
 * of that version (an older job arriving late must not overwrite a newer parse).
 */
async function check(
  db: Db | Tx,
  p: IndexFileVersionPayload,
  lock: boolean,
): Promise<{ file: FileRow; storagePrefix: string } | { skip: SkipReason }> {
  const files = await db.$queryRaw<FileRow[]>`
    SELECT id::text, knowledge_base_id::text, folder_id::text, current_version_id::text, deleted_at, content_type, filename
    FROM files WHERE id = ${p.fileId}::uuid AND org_id = ${p.orgId}::uuid
    ${lock ? Prisma.sql`FOR NO KEY UPDATE` : Prisma.empty}`;
  const file = files[0];
  if (!file) return { skip: 'file_not_found' };
  if (file.deleted_at) return { skip: 'file_deleted' };
  if (file.current_version_id !== p.fileVersionId) return { skip: 'version_not_current' };
  const manifests = await db.$queryRaw<{ id: string; storage_prefix: string }[]>`
    SELECT id::text, storage_prefix FROM artifact_manifests
    WHERE file_version_id = ${p.fileVersionId}::uuid AND file_id = ${p.fileId}::uuid AND org_id = ${p.orgId}::uuid AND artifact_type = 'parse'
    ORDER BY created_at DESC, id DESC LIMIT 1`;
  const newest = manifests[0];
  if (!newest) return { skip: 'manifest_not_found' };
  if (newest.id !== p.manifestId) return { skip: 'manifest_not_newest' };
  return { file, storagePrefix: newest.storage_prefix };
}

export function defaultSourceType(contentType: string): string {
  if (contentType === 'application/pdf') return 'pdf';
  if (contentType.startsWith('image/')) return 'image';
  return 'spreadsheet';
}

/** Reads and validates segments.json of a manifest; the rows to index, in document order. */
export async function readSegmentRows(
  storage: StorageDriver,
  storagePrefix: string,
  contentType: string,
): Promise<SegmentRow[]> {
  const raw = await storage.read(`${storagePrefix}/${BUNDLE.segments_json}`);
  const parsed = SegmentsFile.safeParse(JSON.parse(raw.toString('utf8')));
  if (!parsed.success)
    throw new Error(`segments.json under ${storagePrefix} is not a segment list: ${parsed.error.issues[0]?.message}`);
  return segmentRows(parsed.data, defaultSourceType(contentType));
}

/**
 * The rows of segments.json read element by element (a 10,000-page document's segments are never
 * in memory at once): the same rows as readSegmentRows.
 */
export async function* streamSegmentRowsOf(
  storage: StorageDriver,
  storagePrefix: string,
  contentType: string,
): AsyncGenerator<SegmentRow> {
  const elements = jsonArrayElements(storage.readStream(`${storagePrefix}/${BUNDLE.segments_json}`));
  try {
    yield* streamSegmentRows(elements, defaultSourceType(contentType));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code) throw err; // storage (ENOENT, EIO): as it is
    throw new Error(`segments.json under ${storagePrefix} is not a segment list: ${(err as Error).message}`);
  }
}

/**
 * The size rule of one INSERT statement, owned here for both batches() and streamBatches(): at most
 * `maxRows` rows and about BATCH_CHARS characters, never an empty batch.
 */
class RowBatcher {
  private batch: SegmentRow[] = [];
  private chars = 0;
  constructor(private readonly maxRows: number) {}

  /** Adds a row; returns the batch it closed, when the row did not fit in it. */
  add(r: SegmentRow): SegmentRow[] | undefined {
    const size = r.markdown.length + r.labels.length + r.title.length + 400;
    let full: SegmentRow[] | undefined;
    if (this.batch.length && (this.batch.length >= this.maxRows || this.chars + size > BATCH_CHARS)) {
      full = this.batch;
      this.batch = [];
      this.chars = 0;
    }
    this.batch.push(r);
    this.chars += size;
    return full;
  }

  /** The last, partly filled batch (if any row is left). */
  rest(): SegmentRow[] | undefined {
    return this.batch.length ? this.batch : undefined;
  }
}

/** batches() over a stream of rows. */
export async function* streamBatches(rows: AsyncIterable<SegmentRow>, maxRows: number): AsyncGenerator<SegmentRow[]> {
  const b = new RowBatcher(maxRows);
  for await (const r of rows) {
    const full = b.add(r);
    if (full) yield full;
  }
  const rest = b.rest();
  if (rest) yield rest;
}

export function* batches(rows: SegmentRow[], maxRows: number): Generator<SegmentRow[]> {
  const b = new RowBatcher(maxRows);
  for (const r of rows) {
    const full = b.add(r);
    if (full) yield full;
  }
  const rest = b.rest();
  if (rest) yield rest;
}

export interface RowOwner {
  orgId: string;
  kbId: string;
  folderId: string | null;
  fileId: string;
  fileVersionId: string;
  manifestId: string;
  filename: string;
}

/** The words of a file name ("AzureInterior.pdf" → "Azure Interior"), so a question naming the document matches its segments. */
export function filenameWords(filename: string): string {
  return clean(filename)
    .replace(/\.[A-Za-z0-9]{1,5}$/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim();
}

/**
 * One multi-row INSERT: the batch travels as a single jsonb parameter and the weighted tsvector is
 * built in SQL: title A, table headers and row labels B, markdown C, and the file name's words D
 * (weak, but they make every segment of "the Azure Interior invoice" match "azure"). The same
 * statement writes the segments' BM25 postings (search_segment_terms(), the one analyser that
 * search also reads queries with) and their lengths.
 */
export async function insertRows(tx: Tx, o: RowOwner, rows: SegmentRow[]): Promise<number> {
  const fileWords = filenameWords(o.filename);
  const [r] = await tx.$queryRaw<{ n: number }[]>`
    WITH r AS MATERIALIZED (
      SELECT gen_random_uuid() AS rid, r.* FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS r(segment_id text, ordinal int, title text, labels text, markdown text, source_type text,
        coordinates jsonb, is_table boolean, table_metadata jsonb, note_refs text[], years int[], quarters text[], neighbors jsonb)
    ),
    t AS MATERIALIZED (
      SELECT r.rid, t.term, t.tf FROM r, LATERAL search_segment_terms(r.title, r.labels, r.markdown, ${fileWords}) t
    ),
    d AS MATERIALIZED (SELECT t.rid, sum(t.tf) AS dl FROM t GROUP BY t.rid),
    ins AS (
      INSERT INTO evidence_index_segments (id, org_id, knowledge_base_id, folder_id, file_id, file_version_id, artifact_manifest_id,
        segment_id, ordinal, title, markdown, source_type, coordinates, is_table, table_metadata, note_refs, years, quarters, neighbors, tsv, search_length)
      SELECT r.rid, ${o.orgId}::uuid, ${o.kbId}::uuid, ${o.folderId}::uuid, ${o.fileId}::uuid, ${o.fileVersionId}::uuid, ${o.manifestId}::uuid,
        r.segment_id, r.ordinal, r.title, r.markdown, r.source_type, r.coordinates, r.is_table, r.table_metadata, r.note_refs, r.years, r.quarters, r.neighbors,
        setweight(to_tsvector('english', r.title), 'A') || setweight(to_tsvector('english', r.labels), 'B') || setweight(to_tsvector('english', r.markdown), 'C')
          || setweight(to_tsvector('english', ${fileWords}), 'D'),
        coalesce(d.dl, 0)
      FROM r LEFT JOIN d ON d.rid = r.rid
      RETURNING 1
    ),
    post AS (
      INSERT INTO search_postings (segment_row_id, term, knowledge_base_id, file_id, tf, dl)
      SELECT t.rid, t.term, ${o.kbId}::uuid, ${o.fileId}::uuid, t.tf, d.dl FROM t JOIN d ON d.rid = t.rid
      RETURNING 1
    )
    SELECT (SELECT count(*) FROM ins)::int AS n, (SELECT count(*) FROM post)::int AS p`;
  return r?.n ?? 0;
}

export async function indexFileVersion(deps: SearchIndexDeps, p: IndexFileVersionPayload): Promise<IndexOutcome> {
  const t0 = Date.now();
  const pre = await check(deps.db, p, false);
  if ('skip' in pre) return { status: 'skipped', reason: pre.skip };
  // Segments stream from storage into batched INSERTs (bounded memory for any page count); the
  // transaction makes the replacement atomic, so a malformed file part-way leaves the old rows.
  return deps.db.$transaction(
    async (tx) => {
      const now = await check(tx, p, true);
      if ('skip' in now) return { status: 'skipped' as const, reason: now.skip };
      const { file } = now;
      const ofFile = Prisma.sql`s.file_id = ${p.fileId}::uuid`;
      const before = await termCountsOf(tx, ofFile);
      const removed = await tx.$executeRaw`DELETE FROM evidence_index_segments WHERE file_id = ${p.fileId}::uuid`;
      const owner: RowOwner = {
        orgId: p.orgId,
        kbId: file.knowledge_base_id,
        folderId: file.folder_id,
        fileId: p.fileId,
        fileVersionId: p.fileVersionId,
        manifestId: p.manifestId,
        filename: file.filename,
      };
      let inserted = 0;
      const rows = streamSegmentRowsOf(deps.storage, now.storagePrefix, file.content_type);
      for await (const batch of streamBatches(rows, deps.batchRows ?? DEFAULT_BATCH_ROWS))
        inserted += await insertRows(tx, owner, batch);
      const length = await applyTermDelta(tx, file.knowledge_base_id, await termCountsOf(tx, ofFile), before);
      await applyIndexDelta(
        tx,
        p.orgId,
        file.knowledge_base_id,
        { segments: inserted - removed, files: (inserted > 0 ? 1 : 0) - (removed > 0 ? 1 : 0), length },
        p.fileId,
      );
      // Applied: no longer pending, in the same commit as the rows (issue 13.6).
      await clearPendingIndexJob(tx, p.pendingId);
      return { status: 'indexed' as const, segments: inserted, removed, ms: Date.now() - t0 };
    },
    { timeout: deps.txTimeoutMs ?? 600_000, maxWait: 30_000 },
  );
}
