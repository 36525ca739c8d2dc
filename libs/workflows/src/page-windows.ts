// A page-range reader over a stored parse bundle (issue 17.5): split's windows ask it for pages a..b
// in ascending, possibly overlapping ranges, and it streams segments.json and grounding.json's
// `pages` forward once, keeping only the pages of the range asked for. Peak memory is one window's
// segments and grounding pages (plus each segment's id and page, which the session's records
// list), not the document. Both files are written in page order (one run and the sharded assembly
// alike); an element that comes back to an earlier page is refused rather than silently dropped.
import { StringDecoder } from 'node:string_decoder';
import { BUNDLE, type GroundingDocument, type GroundingPage, type Segment } from '@docfleet/contracts';
import type { ArtifactManifest, Db, Tx } from '@docfleet/db';
import { pageTextsFromGrounding, segmentPage, type Evidence } from '@docfleet/models';
import { jsonArrayElements, type StorageDriver } from '@docfleet/storage';
import { newestParse, type LoadOptions } from './evidence';

/** Elements of a page-ordered stream, served by ascending page ranges. */
class PageCursor<T> {
  private buf: T[] = [];
  private done = false;
  private lastPage = 0;
  private readonly it: AsyncIterator<unknown>;
  constructor(
    source: AsyncIterable<unknown>,
    private readonly pageOf: (x: T) => number,
    private readonly what: string,
    private readonly seen?: (x: T, page: number) => void,
  ) {
    this.it = source[Symbol.asyncIterator]();
  }

  /** Elements on pages first..last; `first` must not go below the previous call's. */
  async take(first: number, last: number): Promise<T[]> {
    this.buf = this.buf.filter((x) => this.pageOf(x) >= first);
    while (!this.done && (this.buf.length === 0 || this.pageOf(this.buf[this.buf.length - 1]!) <= last)) {
      const n = await this.it.next();
      if (n.done) {
        this.done = true;
        break;
      }
      const x = n.value as T;
      const page = this.pageOf(x);
      if (page < this.lastPage)
        throw new Error(`${this.what} is not in page order (page ${page} after ${this.lastPage})`);
      this.lastPage = page;
      this.seen?.(x, page);
      if (page >= first) this.buf.push(x);
    }
    return this.buf.filter((x) => this.pageOf(x) <= last);
  }

  async close() {
    this.done = true;
    this.buf = [];
    await this.it.return?.();
  }
}

/**
 * schema_version and document of a grounding.json, read from its first bytes: both writers put
 * `pages` last, and `"pages":[` cannot occur unescaped inside a string before it.
 */
export async function groundingHead(storage: StorageDriver, key: string): Promise<Omit<GroundingDocument, 'pages'>> {
  const stream = storage.readStream(key);
  const decoder = new StringDecoder('utf8');
  let text = '';
  try {
    for await (const chunk of stream) {
      text += typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
      const m = /,\s*"pages"\s*:\s*\[/.exec(text);
      if (m) return JSON.parse(text.slice(0, m.index) + '}') as Omit<GroundingDocument, 'pages'>;
      if (text.length > 1 << 20) break;
    }
  } finally {
    stream.destroy();
  }
  throw new Error(`${BUNDLE.grounding_json} does not end with its pages`);
}

export interface PageWindowReader {
  manifest: ArtifactManifest;
  /** Pages of the parse (grounding's page count, else the last page a segment sits on). */
  pageCount: number;
  /** The evidence of pages first..last; ranges must ascend (they may overlap). */
  read(first: number, last: number): Promise<Evidence>;
  /** Ids of the segments read so far on pages start..end, in reading order. */
  segmentIdsIn(start: number, end: number): string[];
  close(): Promise<void>;
}

/**
 * Opens the newest parse of a version for reading by page ranges. The page count costs one streamed
 * pass (grounding pages when there are any, else segments) that keeps nothing but a counter.
 */
export async function openPageWindows(
  db: Db | Tx,
  storage: StorageDriver,
  opts: Pick<LoadOptions, 'orgId' | 'fileVersionId' | 'missingCode' | 'withGrounding'>,
): Promise<PageWindowReader> {
  const { manifest, missing, segKey, grKey } = await newestParse(db, opts);
  if (!(await storage.exists(segKey))) throw missing();
  const withGrounding = !!opts.withGrounding && (await storage.exists(grKey));

  let pageCount = 0;
  try {
    if (withGrounding) {
      for await (const p of jsonArrayElements(storage.readStream(grKey), { at: 'pages' }))
        pageCount = Math.max(pageCount, (p as GroundingPage).page_number);
    }
    if (!pageCount) {
      for await (const s of jsonArrayElements(storage.readStream(segKey)))
        pageCount = Math.max(pageCount, segmentPage(s as Segment));
    }
  } catch {
    throw missing();
  }

  const ids: Array<{ id: string; page: number }> = [];
  const segments = new PageCursor<Segment>(
    jsonArrayElements(storage.readStream(segKey)),
    segmentPage,
    BUNDLE.segments_json,
    (s, page) => ids.push({ id: s.id, page }),
  );
  const grounding = withGrounding
    ? new PageCursor<GroundingPage>(
        jsonArrayElements(storage.readStream(grKey), { at: 'pages' }),
        (p) => p.page_number,
        BUNDLE.grounding_json,
      )
    : null;
  // The grounding's head (schema version and document) is small; windows carry it with their pages.
  const head = withGrounding ? await groundingHead(storage, grKey) : null;

  return {
    manifest,
    pageCount,
    async read(first, last) {
      const segs = await segments.take(first, last);
      if (!grounding || !head) return { segments: segs };
      const g: GroundingDocument = { ...head, pages: await grounding.take(first, last) };
      return { segments: segs, grounding: g, pages: pageTextsFromGrounding(g) };
    },
    segmentIdsIn(start, end) {
      return ids.filter((x) => x.page >= start && x.page <= end).map((x) => x.id);
    },
    async close() {
      await segments.close();
      await grounding?.close();
    },
  };
}

export interface SelectedSegments {
  manifest: ArtifactManifest;
  /** Segments of the parse, all of them. */
  total: number;
  /** The segments asked for (all when no ids were given), in reading order. */
  segments: Segment[];
  pageCount: number;
}

/**
 * Extraction's evidence selection without the bundle: segments.json streamed, keeping only the
 * segments asked for, and grounding.json's pages counted as they stream by, so neither file is
 * held whole (without segment_ids every segment is kept: they are the model's input). Extraction's prompt is segments only; it needs no pages.
 */
export async function loadSelectedSegments(
  db: Db | Tx,
  storage: StorageDriver,
  opts: Pick<LoadOptions, 'orgId' | 'fileVersionId' | 'missingCode' | 'segmentIds'>,
): Promise<SelectedSegments> {
  const { manifest, missing, segKey, grKey } = await newestParse(db, opts);
  if (!(await storage.exists(segKey))) throw missing();
  const wanted = opts.segmentIds?.length ? new Set(opts.segmentIds) : null;
  const segments: Segment[] = [];
  let total = 0;
  let lastPage = 0;
  try {
    for await (const el of jsonArrayElements(storage.readStream(segKey))) {
      const s = el as Segment;
      total++;
      lastPage = Math.max(lastPage, segmentPage(s));
      if (!wanted || wanted.has(s.id)) segments.push(s);
    }
  } catch {
    throw missing();
  }
  // As pageCountOf: the grounding's pages (counted as they stream by, none kept), else the segments'.
  let groundingPages = 0;
  if (await storage.exists(grKey)) {
    try {
      for await (const _ of jsonArrayElements(storage.readStream(grKey), { at: 'pages' })) groundingPages++;
    } catch {
      groundingPages = 0;
    }
  }
  return { manifest, total, segments, pageCount: groundingPages || lastPage };
}
