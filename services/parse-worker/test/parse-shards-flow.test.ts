// Sharded parses in process (issue 17): a PDF longer than PARSE_SHARD_PAGES is split into
// page-range shards, and the bundle the last shard assembles is the bundle the unsharded flow
// writes (same result.md, grounding pages and segments); a re-parse reuses unchanged pages for free.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { longPdf, pageMark } from '@docfleet/testing';
import { creditInvariants, startStack, type Stack } from './stack';

let sharded: Stack;
let whole: Stack;
beforeAll(async () => {
  sharded = await startStack({}, { workerEnv: { PARSE_SHARD_PAGES: 8 } });
  whole = await startStack({}, { workerEnv: { PARSE_SHARD_PAGES: 1000 } });
});
afterAll(async () => {
  await sharded?.close();
  await whole?.close();
});

async function parse(s: Stack, key: string, kbId: string, name: string, data: Buffer) {
  const up = await s.gw.upload(key, { knowledge_base_id: kbId }, { name, data });
  const fileId = up.body.file.id as string;
  const r = await s.gw.req('POST', `/v1/files/${fileId}/parse`, {
    key,
    body: { options: { backend: 'text', dpi: 72 } },
  });
  expect(r.status).toBe(202);
  const jobId = r.body.job.job_id as string;
  const job = await s.client(key).waitForJob(fileId, jobId);
  return { fileId, jobId, job };
}

async function bundleOf(s: Stack, jobId: string) {
  const m = await s.gw.db.artifactManifest.findFirstOrThrow({ where: { job_id: jobId } });
  const root = s.gw.deps.storage.localPath(m.storage_prefix);
  const read = (n: string) => readFile(path.join(root, n), 'utf8');
  const grounding = JSON.parse(await read('grounding.json'));
  const segments = JSON.parse(await read('segments.json')) as Array<Record<string, unknown>>;
  return { m, root, md: await read('result.md'), grounding, segments };
}

/** The pages of `base`, with the pages in `swap` (0-based) taken from `alt`: both versions go through copyPages. */
async function spliced(base: Buffer, alt: Buffer, swap: number[]): Promise<Buffer> {
  const { PDFDocument } = await import('pdf-lib');
  const src = await PDFDocument.load(base);
  const other = await PDFDocument.load(alt);
  const out = await PDFDocument.create();
  for (let i = 0; i < src.getPageCount(); i++) {
    const [p] = await out.copyPages(swap.includes(i) ? other : src, [i]);
    out.addPage(p);
  }
  return Buffer.from(await out.save());
}

it('a 40-page PDF in shards of 8: the same bundle as one job, every page charged once', async () => {
  const original = await longPdf(40);
  const changedPdf = await longPdf(40, { title: 'Changed' });
  const pdf = await spliced(original, changedPdf, []);
  const a = await sharded.gw.createOrg({ credits: 100 });
  const b = await whole.gw.createOrg({ credits: 100 });
  const kbA = (await sharded.gw.createKnowledgeBase(a.key, 'S')).id;
  const kbB = (await whole.gw.createKnowledgeBase(b.key, 'W')).id;
  const [x, y] = await Promise.all([
    parse(sharded, a.key, kbA, 'long.pdf', pdf),
    parse(whole, b.key, kbB, 'long.pdf', pdf),
  ]);
  expect(x.job.status).toBe('completed');
  expect(y.job.status).toBe('completed');
  expect(await sharded.gw.db.parseShard.count({ where: { job_id: x.jobId, status: 'done' } })).toBe(5);
  expect(await whole.gw.db.parseShard.count({ where: { job_id: y.jobId } })).toBe(0);
  const bx = await bundleOf(sharded, x.jobId);
  const by = await bundleOf(whole, y.jobId);
  expect(bx.md).toBe(by.md);
  for (let n = 1; n <= 40; n++) expect(bx.md.split(pageMark(n)).length - 1).toBe(1);
  expect(bx.grounding.pages).toEqual(by.grounding.pages);
  expect({ ...bx.grounding.document, processed_at: 0 }).toEqual({ ...by.grounding.document, processed_at: 0 });
  const strip = (segs: Array<Record<string, unknown>>, ids: string[]) =>
    JSON.parse(ids.reduce((t, id) => t.split(id).join('ID'), JSON.stringify(segs)));
  expect(strip(bx.segments, [bx.m.id, x.fileId])).toEqual(strip(by.segments, [by.m.id, y.fileId]));
  expect((bx.m.manifest as { segment_count: number }).segment_count).toBe(bx.segments.length);
  // The plan folder is gone; the page results stay (a re-parse reuses them).
  await expect(readFile(path.join(bx.root, '.shards', 'plan.json'))).rejects.toThrow();
  const keys = (await sharded.gw.db.ledgerEntry.findMany({ where: { job_id: x.jobId, kind: 'debit' } })).map(
    (e) => e.idempotency_key,
  );
  expect(keys.sort()).toEqual(Array.from({ length: 40 }, (_, i) => `parse:${x.jobId}:page:${i + 1}`).sort());
  expect(await creditInvariants(sharded.gw, a.orgId)).toEqual({ balance: 60, ledgerSum: 60, openReservations: 0 });
  expect(await sharded.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: x.jobId } })).toMatchObject({
    status: 'committed',
    debited_credits: 40,
  });
  const events = (
    await sharded.gw.req('GET', `/v1/files/${x.fileId}/jobs/${x.jobId}/events`, { key: a.key })
  ).body.events.map((e: { event_type: string }) => e.event_type);
  expect(events.filter((t: string) => t === 'job.completed')).toHaveLength(1);
  expect(events).toContain('parse.started');

  // A new version with pages 5 and 33 changed: only those are parsed and charged; the rest are copied.
  const c = sharded.client(a.key);
  await c.files.replaceContent(x.fileId, await spliced(original, changedPdf, [4, 32]), { filename: 'long.pdf' });
  const again = await sharded.gw.req('POST', `/v1/files/${x.fileId}/parse`, {
    key: a.key,
    body: { options: { backend: 'text', dpi: 72 } },
  });
  const second = await c.waitForJob(x.fileId, again.body.job.job_id);
  expect(second).toMatchObject({ status: 'completed', stage: 'completed', percent: 100 });
  expect(second.result).toMatchObject({ changed_pages: [5, 33], credits_charged: 2 });
  expect((second.result as { unchanged_pages: number[] }).unchanged_pages).toHaveLength(38);
  const keys2 = (await sharded.gw.db.ledgerEntry.findMany({ where: { job_id: second.job_id, kind: 'debit' } })).map(
    (e) => e.idempotency_key,
  );
  expect(keys2.sort()).toEqual([`parse:${second.job_id}:page:33`, `parse:${second.job_id}:page:5`]);
  const b2 = await bundleOf(sharded, second.job_id);
  expect(b2.grounding.pages.map((p: { page_number: number }) => p.page_number)).toEqual(
    Array.from({ length: 40 }, (_, i) => i + 1),
  );
  expect(b2.md).toContain('Changed 5');
  expect(b2.md).toContain('Section 6');
  expect(await creditInvariants(sharded.gw, a.orgId)).toEqual({ balance: 58, ledgerSum: 58, openReservations: 0 });
}, 180_000);

it('a word hyphenated across the break between two shards is joined past the running head, as in one job', async () => {
  const { PDFDocument, StandardFonts } = await import('pdf-lib');
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let n = 1; n <= 10; n++) {
    const page = doc.addPage([612, 792]);
    page.drawText('Quarterly report: the regions of the company', { x: 72, y: 752, size: 8, font });
    page.drawText(`${n}`, { x: 300, y: 40, size: 8, font });
    let y = 700;
    // Page 8 ends the first shard (8 pages) in the middle of "quarterly"; page 9 goes on with its end.
    if (n === 9)
      page.drawText('terly figures follow the outlook for each region.', { x: 72, y: (y -= 16), size: 11, font });
    for (let line = 0; line < 20; line++)
      page.drawText(`Page ${n} line ${line} lists the revenue costs and margins of each region`, {
        x: 72,
        y: (y -= 16),
        size: 11,
        font,
      });
    if (n === 8) page.drawText('The outlook is given in the quar-', { x: 72, y: (y -= 16), size: 11, font });
  }
  const pdf = Buffer.from(await doc.save());
  const a = await sharded.gw.createOrg({ credits: 100 });
  const b = await whole.gw.createOrg({ credits: 100 });
  const [x, y] = await Promise.all([
    parse(sharded, a.key, (await sharded.gw.createKnowledgeBase(a.key, 'S')).id, 'hy.pdf', pdf),
    parse(whole, b.key, (await whole.gw.createKnowledgeBase(b.key, 'W')).id, 'hy.pdf', pdf),
  ]);
  expect(await sharded.gw.db.parseShard.count({ where: { job_id: x.jobId, status: 'done' } })).toBe(2);
  const bx = await bundleOf(sharded, x.jobId);
  const by = await bundleOf(whole, y.jobId);
  expect(bx.md).toContain('The outlook is given in the quarterly\n\nfigures follow the outlook');
  expect(bx.md).toBe(by.md);
  expect(bx.grounding.pages).toEqual(by.grounding.pages);
  const strip = (segs: Array<Record<string, unknown>>, ids: string[]) =>
    JSON.parse(ids.reduce((t, id) => t.split(id).join('ID'), JSON.stringify(segs)));
  expect(strip(bx.segments, [bx.m.id, x.fileId])).toEqual(strip(by.segments, [by.m.id, y.fileId]));
  expect(JSON.stringify(bx.segments)).toContain('given in the quarterly');
}, 180_000);
