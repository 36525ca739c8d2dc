// Split over a 3,000-page stored bundle (real PostgreSQL manifest row, filesystem storage) through
// the page-window reader the workflow worker uses (issue 17.5): each window's model call sees its
// pages only, segments.json and grounding.json are streamed forward (never read whole), and when a
// window runs no more of them has been read than its last page plus the streams' buffers.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { createOrganization } from '@docfleet/auth';
import { BUNDLE, type GroundingDocument, type Segment } from '@docfleet/contracts';
import type { GenerateJsonRequest, ResolvedModel } from '@docfleet/models';
import { createStorage, type StorageDriver } from '@docfleet/storage';
import { createTestDb, seedFile, type TestDb } from '@docfleet/testing';
import { loadSelectedSegments, openPageWindows, runSplit } from '../src';

const PAGES = 3000;
const PER_PAGE = 10;
const RECORD = 100; // the "truth": a new document every 100 pages
const CHUNK = 64 * 1024;

let t: TestDb;
let dir: string;
let storage: StorageDriver;
let orgId: string;
let versionId: string;
/** Byte offset in segments.json where each page's segments end. */
const pageEnd: number[] = [];
const reads: string[] = [];
const consumed = new Map<string, number>();
let segBytes = 0;

beforeAll(async () => {
  t = await createTestDb();
  dir = await mkdtemp(path.join(os.tmpdir(), 'page-windows-'));
  const fs = createStorage(dir);
  orgId = (await createOrganization(t.db, 'windows')).id;
  const seeded = await seedFile(t.db, { orgId, filename: 'long.pdf' });
  versionId = seeded.versionId;
  const prefix = `bundles/${versionId}`;
  await t.db.artifactManifest.create({
    data: {
      org_id: orgId,
      file_id: seeded.fileId,
      file_version_id: versionId,
      artifact_type: 'parse',
      storage_prefix: prefix,
    },
  });
  // segments.json as the sharded assembly writes it: page order, one element after another.
  const parts: string[] = ['['];
  let bytes = 1;
  for (let p = 1; p <= PAGES; p++) {
    for (let k = 0; k < PER_PAGE; k++) {
      const seg = {
        id: `s${p}-${k}`,
        type: k === 0 ? 'title' : 'text',
        markdown: `${k === 0 ? `Document ${Math.ceil(p / RECORD)}` : 'Body'} page ${p} line ${k} ${'x'.repeat(200)}`,
        coordinates: { pageNumber: p, x: 0, y: k, width: 1, height: 1 },
      };
      const text = (p === 1 && k === 0 ? '' : ',') + JSON.stringify(seg);
      parts.push(text);
      bytes += Buffer.byteLength(text);
    }
    pageEnd[p] = bytes;
  }
  parts.push(']');
  segBytes = bytes + 1;
  await fs.put(`${prefix}/${BUNDLE.segments_json}`, parts.join(''));
  const grounding: GroundingDocument = {
    schema_version: '1.0',
    document: { filename: 'long.pdf', file_type: 'pdf', page_count: PAGES, processed_at: 'now', mode: 'text' },
    pages: Array.from({ length: PAGES }, (_, i) => ({
      page_number: i + 1,
      width: 612,
      height: 792,
      elements: [{ content: `Document ${Math.ceil((i + 1) / RECORD)}, page ${i + 1}` }],
    })) as unknown as GroundingDocument['pages'],
  };
  await fs.put(`${prefix}/${BUNDLE.grounding_json}`, JSON.stringify(grounding));
  // The same storage, counting what is read whole and how far each stream has been consumed.
  storage = Object.assign(Object.create(fs) as StorageDriver, {
    read: (key: string) => (reads.push(key), fs.read(key)),
    readStream: (key: string) => {
      const name = path.basename(key);
      consumed.set(name, 0);
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          consumed.set(name, consumed.get(name)! + chunk.length);
          done(null, chunk);
        },
      });
      const inner = fs.readStream(key);
      counter.on('close', () => inner.destroy());
      return inner.pipe(counter);
    },
  });
});
afterAll(async () => {
  await t.drop();
  await rm(dir, { recursive: true, force: true });
});

it('runs split window by window, streaming the bundle forward instead of loading it', async () => {
  const calls: Array<{ pages: number[]; segPages: number[]; seen: number }> = [];
  let segPages: number[] = [];
  const model: ResolvedModel = {
    modelId: 'recording',
    provider: { id: 'recording', models: () => [], generateJson: () => Promise.reject(new Error('unused')) },
    async generateJson<T>(req: GenerateJsonRequest) {
      const pages = [...req.prompt.matchAll(/=== page (\d+) ===/g)].map((m) => Number(m[1]));
      calls.push({ pages, segPages, seen: consumed.get(BUNDLE.segments_json) ?? 0 });
      const first = Math.min(...pages);
      const last = Math.max(...pages);
      const records = [];
      for (let a = 1; a <= PAGES; a += RECORD) {
        const b = a + RECORD - 1;
        if (b < first || a > last) continue;
        records.push({
          title: `Document ${Math.ceil(a / RECORD)}`,
          documentType: 'report',
          startPage: Math.max(a, first),
          endPage: Math.min(b, last),
          confidence: 0.9,
          boundaryReason: 'title',
        });
      }
      return { output: { records, warnings: [] } as T, raw: '' } as never;
    },
  };
  const windows = await openPageWindows(t.db, storage, { orgId, fileVersionId: versionId, withGrounding: true });
  expect(windows.pageCount).toBe(PAGES);
  // What each window was handed, and how far segments.json had been read when it was.
  const read = windows.read.bind(windows);
  windows.read = async (first, last) => {
    const ev = await read(first, last);
    segPages = ev.segments.map((s) => (s.coordinates as { pageNumber: number }).pageNumber);
    return ev;
  };
  const session = await runSplit({
    windows,
    pageCount: windows.pageCount,
    rules: [],
    model,
    sessionId: 'sess',
    operationId: 'op',
    sourceDocId: 'doc',
    sourceDocName: 'long.pdf',
  }).finally(() => windows.close());

  // Windows of 10 pages sharing 2: 375 model calls, each over exactly its own pages.
  expect(calls).toHaveLength(Math.ceil((PAGES - 2) / 8));
  let maxAhead = 0;
  for (const [i, c] of calls.entries()) {
    const first = 1 + i * 8;
    const last = Math.min(PAGES, first + 9);
    const want = Array.from({ length: last - first + 1 }, (_, k) => first + k);
    expect(c.pages).toEqual(want);
    expect([...new Set(c.segPages)]).toEqual(want);
    // Read so far: up to this window's last page plus the streams' buffers, never the document.
    expect(c.seen).toBeLessThanOrEqual(pageEnd[last]! + 4 * CHUNK);
    maxAhead = Math.max(maxAhead, c.seen - pageEnd[last]!);
  }
  expect(calls[0]!.seen).toBeLessThan(segBytes / 20);
  expect(maxAhead).toBeLessThanOrEqual(4 * CHUNK);
  // Neither file was read whole.
  expect(reads).toEqual([]);

  expect(session.sourcePageCount).toBe(PAGES);
  expect(session.records.map((r) => [r.startPage, r.endPage])).toEqual(
    Array.from({ length: PAGES / RECORD }, (_, i) => [i * RECORD + 1, (i + 1) * RECORD]),
  );
  expect(session.records[1]!.segmentIds).toHaveLength(RECORD * PER_PAGE);
  expect(session.records[1]!.segmentIds[0]).toBe('s101-0');
  expect(session.records[1]!.segmentIds.at(-1)).toBe('s200-9');
});

it("selects extraction's segments from the stream without reading either file whole", async () => {
  reads.length = 0;
  const ids = ['s2999-3', 's17-0', 'not-there'];
  const sel = await loadSelectedSegments(t.db, storage, { orgId, fileVersionId: versionId, segmentIds: ids });
  expect(sel.segments.map((s) => s.id)).toEqual(['s17-0', 's2999-3']); // reading order
  expect(sel.total).toBe(PAGES * PER_PAGE);
  expect(sel.pageCount).toBe(PAGES);
  expect(consumed.get(BUNDLE.segments_json)).toBe(segBytes);
  expect(reads).toEqual([]);
});

it('refuses a segments.json that goes back to an earlier page instead of dropping segments', async () => {
  const other = await t.db.fileVersion.findUniqueOrThrow({ where: { id: versionId } });
  const m = await t.db.artifactManifest.findFirstOrThrow({ where: { file_version_id: other.id } });
  const backup = await storage.read(`${m.storage_prefix}/${BUNDLE.segments_json}`);
  const seg = (id: string, p: number): Segment =>
    ({ id, type: 'text', markdown: id, coordinates: { pageNumber: p } }) as unknown as Segment;
  await storage.put(
    `${m.storage_prefix}/${BUNDLE.segments_json}`,
    JSON.stringify([seg('a', 1), seg('b', 12), seg('c', 3)]),
  );
  try {
    const w = await openPageWindows(t.db, storage, { orgId, fileVersionId: versionId });
    await expect(w.read(1, 20)).rejects.toThrow(/not in page order \(page 3 after 12\)/);
    await w.close();
  } finally {
    await storage.put(`${m.storage_prefix}/${BUNDLE.segments_json}`, backup);
  }
});
