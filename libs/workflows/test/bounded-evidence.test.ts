// The one-call workflows' evidence over a 3,000-page stored bundle (issue 17.5): classify, class and
// split-rule suggestions read the first pages their prompt shows, edit proposals and schema
// generation the segments their prompt shows, streamed; neither file is read whole and the prompts
// are what the whole bundle gave (cut where they were cut). A small document's evidence is exactly
// loadParseBundle's, so its answers do not change.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Transform } from 'node:stream';
import { createOrganization } from '@docfleet/auth';
import { BUNDLE, type GroundingDocument } from '@docfleet/contracts';
import {
  buildClassifyRequest,
  pagesWithinBudget,
  renderPages,
  renderSegments,
  segmentPage,
  type Evidence,
} from '@docfleet/models';
import { createStorage, type StorageDriver } from '@docfleet/storage';
import { createTestDb, seedFile, type TestDb } from '@docfleet/testing';
import { evidenceOf, loadLeadingPages, loadParseBundle, loadSegmentsWithin, pageCountOf } from '../src';

const PAGES = 3000;
const PER_PAGE = 10;
const CHUNK = 64 * 1024;

let t: TestDb;
let dir: string;
let storage: StorageDriver;
let orgId: string;
const version: Record<'large' | 'small', string> = { large: '', small: '' };
/** Byte offset in the large segments.json where each page's segments end. */
const pageEnd: number[] = [];
let segBytes = 0;
/** Every stream opened: file name and bytes consumed. */
const streams: Array<{ name: string; bytes: number }> = [];
const reads: string[] = [];

async function bundle(fs: StorageDriver, name: string, pages: number, perPage: number): Promise<string> {
  const { fileId, versionId } = await seedFile(t.db, { orgId, kbName: name, filename: `${name}.pdf` });
  const prefix = `bundles/${versionId}`;
  await t.db.artifactManifest.create({
    data: {
      org_id: orgId,
      file_id: fileId,
      file_version_id: versionId,
      artifact_type: 'parse',
      storage_prefix: prefix,
    },
  });
  const parts: string[] = ['['];
  let bytes = 1;
  for (let p = 1; p <= pages; p++) {
    for (let k = 0; k < perPage; k++) {
      const seg = {
        id: `s${p}-${k}`,
        type: k === 0 ? 'title' : 'text',
        markdown: `${k === 0 ? 'Invoice' : 'Amount due'} page ${p} line ${k} ${'x'.repeat(200)}`,
        coordinates: { pageNumber: p, x: 0, y: k, width: 1, height: 1 },
      };
      const text = (p === 1 && k === 0 ? '' : ',') + JSON.stringify(seg);
      parts.push(text);
      bytes += Buffer.byteLength(text);
    }
    if (name === 'large') pageEnd[p] = bytes;
  }
  parts.push(']');
  if (name === 'large') segBytes = bytes + 1;
  await fs.put(`${prefix}/${BUNDLE.segments_json}`, parts.join(''));
  const grounding: GroundingDocument = {
    schema_version: '1.0',
    document: { filename: `${name}.pdf`, file_type: 'pdf', page_count: pages, processed_at: 'now', mode: 'text' },
    pages: Array.from({ length: pages }, (_, i) => ({
      page_number: i + 1,
      width: 612,
      height: 792,
      elements: [{ content: `Running header ${i + 1}` }, { content: `Page ${i + 1} of ${pages}` }],
    })) as unknown as GroundingDocument['pages'],
  };
  await fs.put(`${prefix}/${BUNDLE.grounding_json}`, JSON.stringify(grounding));
  return versionId;
}

beforeAll(async () => {
  t = await createTestDb();
  dir = await mkdtemp(path.join(os.tmpdir(), 'bounded-evidence-'));
  const fs = createStorage(dir);
  orgId = (await createOrganization(t.db, 'bounded')).id;
  version.large = await bundle(fs, 'large', PAGES, PER_PAGE);
  version.small = await bundle(fs, 'small', 4, 3);
  // The same storage, recording what is read whole and how far each stream is consumed.
  storage = Object.assign(Object.create(fs) as StorageDriver, {
    read: (key: string) => (reads.push(path.basename(key)), fs.read(key)),
    readStream: (key: string) => {
      const entry = { name: path.basename(key), bytes: 0 };
      streams.push(entry);
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          entry.bytes += chunk.length;
          done(null, chunk);
        },
      });
      const inner = fs.readStream(key);
      counter.on('close', () => inner.destroy());
      return inner.pipe(counter);
    },
  });
}, 60_000);
afterAll(async () => {
  await t.drop();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  streams.length = 0;
  reads.length = 0;
});

const pagesOf = (ev: Evidence) => [...new Set(ev.segments.map(segmentPage))];
const blocks = (prompt: string) => prompt.split(/\n\n(?==== page )/);

it('classify reads the first pages its prompt shows, streamed, and shows them as the whole bundle did', async () => {
  const n = pagesWithinBudget();
  expect(n).toBe(300);
  const lead = await loadLeadingPages(t.db, storage, { orgId, fileVersionId: version.large });
  expect(lead.pageCount).toBe(PAGES);
  expect(lead.evidence.pages!.map((p) => p.pageNumber)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
  expect(lead.evidence.grounding!.pages).toHaveLength(n);
  expect(pagesOf(lead.evidence)).toHaveLength(n);
  expect(lead.evidence.segments).toHaveLength(n * PER_PAGE);
  // segments.json is read up to page 300 plus the stream's buffers, never whole; nothing is read whole.
  const seg = streams.filter((s) => s.name === BUNDLE.segments_json);
  expect(seg).toHaveLength(1);
  expect(seg[0]!.bytes).toBeLessThanOrEqual(pageEnd[n]! + 4 * CHUNK);
  expect(seg[0]!.bytes).toBeLessThan(segBytes / 5);
  expect(reads).toEqual([]);

  // The prompt is the first 300 page blocks of the whole bundle's prompt (each page was cut to 400
  // characters then too), so it now fits the budget instead of running 3,000 pages over it.
  const whole = evidenceOf(
    await loadParseBundle(t.db, storage, { orgId, fileVersionId: version.large, withGrounding: true }),
  );
  const ask = (evidence: Evidence) => buildClassifyRequest({ evidence, classes: ['invoice'] }).prompt;
  expect(blocks(ask(lead.evidence))).toEqual(blocks(ask(whole)).slice(0, n));
  expect(renderPages(lead.evidence).length).toBeLessThanOrEqual(120_000 + n * 10);
});

it('edit and schema generation read the segments their prompt shows, and only count the rest', async () => {
  const got = await loadSegmentsWithin(t.db, storage, { orgId, fileVersionId: version.large, withGrounding: true });
  expect(got).toMatchObject({ segmentCount: PAGES * PER_PAGE, pageCount: PAGES, truncated: true });
  // Both files streamed (segments.json to its end, to count), neither read whole.
  expect(reads).toEqual([]);
  const whole = evidenceOf(
    await loadParseBundle(t.db, storage, { orgId, fileVersionId: version.large, withGrounding: true }),
  );
  // The same prompt text, cut at the same segment.
  expect(renderSegments(got.evidence)).toEqual(renderSegments(whole));
  expect(renderSegments(got.evidence).truncated).toBe(true);
  const kept = got.evidence.segments.length;
  expect(kept).toBeLessThan(600); // ~270 characters a segment in 120,000
  expect(got.evidence.segments.map((s) => s.id)).toEqual(whole.segments.slice(0, kept).map((s) => s.id));
  // Pages come along only as far as the last segment kept.
  const last = segmentPage(got.evidence.segments.at(-1)!);
  expect(got.evidence.grounding!.pages.map((p) => p.page_number)).toEqual(
    Array.from({ length: last }, (_, i) => i + 1),
  );
  expect(last).toBeLessThan(PAGES / 50);

  const picked = await loadSegmentsWithin(t.db, storage, {
    orgId,
    fileVersionId: version.large,
    segmentIds: ['s2999-3', 's17-0', 'nope'],
  });
  expect(picked.evidence.segments.map((s) => s.id)).toEqual(['s17-0', 's2999-3']);
  expect(picked).toMatchObject({ segmentCount: 2, pageCount: PAGES, truncated: false });
  expect(picked.evidence.grounding).toBeUndefined();
  await expect(
    loadSegmentsWithin(t.db, storage, { orgId, fileVersionId: version.large, segmentIds: ['nope'] }),
  ).rejects.toMatchObject({ code: 'file_must_be_parsed' });
});

it("gives a small document exactly loadParseBundle's evidence and counts", async () => {
  const opts = { orgId, fileVersionId: version.small };
  const b = await loadParseBundle(t.db, storage, { ...opts, withGrounding: true });
  const lead = await loadLeadingPages(t.db, storage, opts);
  expect(lead.evidence).toEqual(evidenceOf(b));
  expect(lead.pageCount).toBe(pageCountOf(b));
  const within = await loadSegmentsWithin(t.db, storage, { ...opts, withGrounding: true });
  expect(within.evidence).toEqual(evidenceOf(b));
  expect(within).toMatchObject({ segmentCount: b.segments.length, pageCount: pageCountOf(b), truncated: false });
  const ids = ['s3-1', 's1-0'];
  const bs = await loadParseBundle(t.db, storage, { ...opts, withGrounding: true, segmentIds: ids });
  const sel = await loadSegmentsWithin(t.db, storage, { ...opts, segmentIds: ids });
  expect(sel.evidence).toEqual({ segments: bs.segments });
  expect(sel).toMatchObject({ segmentCount: bs.segments.length, pageCount: pageCountOf(bs) });
});
