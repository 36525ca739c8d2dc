// Happy paths through the HTTP API (libs/sdk) with the real worker: a born-digital PDF, a scanned
// PNG, an xlsx and a csv from the corpus; artifacts, segments, events, the index entry; credits per
// page; idempotent dispatch; unchanged re-parses (`reused`) and one-page changes.
import { readFile } from 'node:fs/promises';
import type { DocfleetClient, Job } from '@docfleet/sdk';
import { BORN_DIGITAL_PG9, combine, NDA3, NDA5 } from './fixtures';
import { corpus, creditInvariants, startStack, type Stack } from './stack';

/**
 * The index job of a manifest, read once: it is queued inside the transaction that completes the
 * parse, so a job a client sees completed already has it (index-handoff.test.ts fails a worker there).
 */
const indexJobOf = (manifestId: string) => s.gw.deps.queues.queue('index').getJob(`index-${manifestId}`);

let s: Stack;
let c: DocfleetClient;
let orgId: string;
let key: string;
let kbId: string;
beforeAll(async () => {
  s = await startStack();
  ({ key, orgId } = await s.gw.createOrg({ credits: 100 }));
  c = s.client(key);
  kbId = (await c.knowledgeBases.create({ name: 'Parse flow' })).knowledge_base.id;
});
afterAll(() => s.close());

async function ledgerOf(jobId: string) {
  return s.gw.db.ledgerEntry.findMany({ where: { org_id: orgId, job_id: jobId }, orderBy: { created_at: 'asc' } });
}

async function waitWatching(fileId: string, jobId: string) {
  const seen: Array<{ status: string; stage: string | null; percent: number }> = [];
  const done = await c.waitForJob(fileId, jobId, {
    onProgress: (j: Job) => seen.push({ status: j.status, stage: j.stage, percent: j.percent }),
  });
  return { done, seen };
}

describe('born-digital PDF', () => {
  let fileId: string;
  let job: Job;
  let manifestId: string;

  it('dispatches with a reservation, parses page by page and charges each page once', async () => {
    fileId = (await c.files.upload(corpus('a_born_digital/docling/code_and_formula.pdf'), { knowledgeBaseId: kbId }))
      .file.id;
    const r = await c.files.parse(fileId);
    expect(r).toMatchObject({
      idempotent: false,
      usage: { unit: 'pages', estimated_units: 2, reserved_credits: 2, debited_credits: 0 },
      credit_reservation: { amount_credits: 2, status: 'reserved' },
    });
    expect(r.job).toMatchObject({
      status: 'queued',
      raw_status: 'queued',
      kind: 'parse',
      percent: 0,
      completed_pages: 0,
    });
    expect(r.idempotency_key).toMatch(/^parse:[0-9a-f-]{36}:[0-9a-f]{16}$/);
    expect(r.retry_of_job_id).toBeUndefined();

    const { done, seen } = await waitWatching(fileId, r.job.job_id);
    job = done;
    expect(done).toMatchObject({
      status: 'completed',
      raw_status: 'completed',
      stage: 'completed',
      percent: 100,
      total_pages: 2,
      completed_pages: 2,
      error: null,
    });
    expect(done.started_at).toEqual(expect.any(String));
    expect(done.completed_at).toEqual(expect.any(String));
    expect(done.result).toMatchObject({
      page_count: 2,
      changed_pages: [1, 2],
      unchanged_pages: [],
      backend: 'text',
      credits_charged: 2,
    });
    manifestId = (done.result as { artifact_manifest_id: string }).artifact_manifest_id;
    // Percent never goes down and a running job reads as `running`.
    const percents = seen.map((x) => x.percent);
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    expect(seen.every((x) => ['queued', 'running', 'completed'].includes(x.status))).toBe(true);

    const ledger = await ledgerOf(done.job_id);
    expect(ledger.map((e) => [e.kind, e.amount_credits, e.idempotency_key])).toEqual([
      ['debit', -1, `parse:${done.job_id}:page:1`],
      ['debit', -1, `parse:${done.job_id}:page:2`],
    ]);
    const res = await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: done.job_id } });
    expect(res).toMatchObject({ status: 'committed', amount_credits: 2, debited_credits: 2 });
    expect((await c.files.get(fileId)).file.current_version.page_count).toBe(2);
    // The index worker's job is queued for the new manifest.
    const indexJob = await indexJobOf(manifestId);
    expect(indexJob?.name).toBe('index.file-version');
    expect(indexJob?.data).toMatchObject({
      orgId,
      fileId,
      fileVersionId: (done as Job & { file_version_id: string }).file_version_id,
      manifestId,
    });
  });

  it('records stage events oldest first', async () => {
    const { events } = await c.files.jobEvents(fileId, job.job_id);
    const types = events.map((e) => [e.event_type, e.stage]);
    expect(types).toEqual([
      ['job.queued', null],
      ['job.started', null],
      ['parse.page_diff.started', 'page-diff'],
      ['parse.started', 'parse'],
      ['job.completed', 'completed'],
    ]);
    const { jobs } = await c.files.jobs(fileId);
    expect(jobs.map((j) => j.job_id)).toEqual([job.job_id]);
  });

  it('serves the bundle: manifests, markdown, grounding, page images, segments and the index entry', async () => {
    const { artifacts } = await c.files.artefacts(fileId);
    expect(artifacts).toHaveLength(1);
    expect(artifacts[0]).toMatchObject({
      id: manifestId,
      file_id: fileId,
      job_id: job.job_id,
      artifact_type: 'parse',
      manifest: { page_count: 2, changed_pages: [1, 2], unchanged_pages: [] },
      links: {
        result_md: `/v1/artifacts/${manifestId}/result_md`,
        grounding_json: `/v1/artifacts/${manifestId}/grounding_json`,
        pages: `/v1/artifacts/${manifestId}/pages`,
        imgs: null,
        workbook_json: null,
        tables_json: null,
        result_json: null,
      },
    });
    const md = await s.gw.req('GET', `/v1/artifacts/${manifestId}/result_md`, { key });
    expect(md.status).toBe(200);
    expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
    expect(md.body).toContain('JavaScript Code Example');
    const g = await c.artifacts.get(manifestId, 'grounding_json');
    expect(g.document).toMatchObject({ filename: 'code_and_formula.pdf', page_count: 2 });
    expect(g.pages.map((p) => p.page_number)).toEqual([1, 2]);
    expect(g.pages[0]!.elements[0]).toEqual(
      expect.objectContaining({
        id: expect.any(String),
        bbox: expect.any(Object),
        pixel_bbox: expect.any(Array),
        content: expect.any(String),
      }),
    );
    const listing = await c.artifacts.get(manifestId, 'pages');
    expect(listing.entries).toEqual([
      { name: 'page_0001.png', kind: 'file', url: `/v1/artifacts/${manifestId}/pages?file=page_0001.png` },
      { name: 'page_0002.png', kind: 'file', url: `/v1/artifacts/${manifestId}/pages?file=page_0002.png` },
    ]);
    const png = await s.gw.req('GET', listing.entries[0]!.url, { key });
    expect(png.headers.get('content-type')).toBe('image/png');
    const raw = await fetch(s.gw.url + listing.entries[0]!.url, { headers: { 'x-api-key': key } });
    expect(
      Buffer.from(await raw.arrayBuffer())
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');

    const segments = await c.files.segments(fileId);
    expect(segments.length).toBeGreaterThan(3);
    expect(segments[0]).toMatchObject({
      docId: fileId,
      docName: 'code_and_formula.pdf',
      sourceType: 'pdf',
      pdfUrl: `/v1/artifacts/${manifestId}/pages?file=page_0001.png`,
    });
    for (const seg of segments) {
      const co = seg.coordinates as { xmin: number; ymin: number; xmax: number; ymax: number; pageNumber: number };
      expect(seg.markdown.length).toBeGreaterThan(0);
      expect([co.xmin, co.ymin, co.xmax, co.ymax].every((v) => Number.isInteger(v) && v >= 0 && v <= 1000)).toBe(true);
      expect(co.pageNumber).toBeGreaterThanOrEqual(1);
    }

    const index = await c.knowledgeBases.index(kbId);
    const entry = index.files.find((f) => f.file_id === fileId)!;
    expect(entry.page_count).toBe(2);
    expect(entry.latest_parse_job).toMatchObject({
      job_id: job.job_id,
      status: 'completed',
      stage: 'completed',
      percent: 100,
      error: null,
    });
    expect(entry.parse_artifacts).toMatchObject({
      manifest_id: manifestId,
      links: {
        result_md: `/v1/artifacts/${manifestId}/result_md`,
        pages: `/v1/artifacts/${manifestId}/pages`,
        imgs: null,
        workbook_json: null,
      },
    });
  });

  it('refuses child paths that climb, unknown keys and manifests of other organisations', async () => {
    for (const bad of ['..', '../result.md', 'a/b.png', 'a\\b.png', '..%2Fx']) {
      const r = await s.gw.req('GET', `/v1/artifacts/${manifestId}/pages?file=${encodeURIComponent(bad)}`, { key });
      expect({ bad, status: r.status, code: r.body.code }).toEqual({
        bad,
        status: 403,
        code: 'invalid_artefact_child_path',
      });
    }
    const missing = await s.gw.req('GET', `/v1/artifacts/${manifestId}/pages?file=page_0009.png`, { key });
    expect([missing.status, missing.body.code]).toEqual([404, 'artefact_not_found']);
    for (const k of ['imgs', 'workbook_json', 'result_json', 'segments_json', 'nope']) {
      const r = await s.gw.req('GET', `/v1/artifacts/${manifestId}/${k}`, { key });
      expect({ k, status: r.status, code: r.body.code }).toEqual({ k, status: 404, code: 'artefact_not_found' });
    }
    const unknown = await s.gw.req('GET', `/v1/artifacts/00000000-0000-4000-8000-000000000000/result_md`, { key });
    expect([unknown.status, unknown.body.code]).toEqual([404, 'artefact_manifest_not_found']);
    const other = await s.gw.createOrg({ credits: 1 });
    const foreign = await s.gw.req('GET', `/v1/artifacts/${manifestId}/result_md`, { key: other.key });
    expect([foreign.status, foreign.body.code]).toEqual([404, 'artefact_manifest_not_found']);
    const foreignJob = await s.gw.req('GET', `/v1/files/${fileId}/jobs/${job.job_id}`, { key: other.key });
    expect([foreignJob.status, foreignJob.body.code]).toEqual([404, 'file_not_found']);
    const unknownJob = await s.gw.req('GET', `/v1/files/${fileId}/jobs/00000000-0000-4000-8000-000000000000`, { key });
    expect([unknownJob.status, unknownJob.body.code]).toEqual([404, 'job_not_found']);
  });

  it('returns the same job for the same request, and reuses everything when nothing changed', async () => {
    const again = await c.files.parse(fileId);
    expect(again).toMatchObject({
      idempotent: true,
      job: { job_id: job.job_id, status: 'completed' },
      credit_reservation: { status: 'committed' },
    });
    const same = await c.files.parse(fileId, { options: { dpi: 150, backend: 'auto' } });
    expect(same.job.job_id).toBe(job.job_id); // defaults normalised: same key
    // Options are part of the key; timeout_seconds does not change the output, so pages are reused.
    const other = await c.files.parse(fileId, { options: { timeout_seconds: 60 } });
    expect(other.idempotent).toBe(false);
    const done = await c.waitForJob(fileId, other.job.job_id);
    expect(done).toMatchObject({
      status: 'completed',
      stage: 'reused',
      percent: 100,
      result: { credits_charged: 0, reused: true, changed_pages: [], unchanged_pages: [1, 2] },
    });
    expect(await ledgerOf(done.job_id)).toEqual([]);
    expect(await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: done.job_id } })).toMatchObject({
      status: 'released',
      debited_credits: 0,
    });
    const { events } = await c.files.jobEvents(fileId, done.job_id);
    expect(events.map((e) => e.event_type)).toContain('parse.reused');
    // An explicit key returns its job as is, terminal or not.
    const k1 = await c.files.parse(fileId, { idempotency_key: 'explicit-1', options: { timeout_seconds: 61 } });
    await c.waitForJob(fileId, k1.job.job_id);
    const k1again = await c.files.parse(fileId, { idempotency_key: 'explicit-1', options: { timeout_seconds: 61 } });
    expect(k1again).toMatchObject({
      idempotent: true,
      idempotency_key: 'explicit-1',
      job: { job_id: k1.job.job_id, status: 'completed' },
    });
  });
});

describe('re-parse after a content change', () => {
  it('charges only the changed page and reuses the others; identical content is `reused`', async () => {
    const v1 = await combine([{ file: NDA3, pages: [0, 1, 2] }]);
    const v2 = await combine([
      { file: NDA3, pages: [0] },
      { file: NDA5, pages: [0] },
      { file: NDA3, pages: [2] },
    ]);
    const up = await c.files.upload(v1, { knowledgeBaseId: kbId, filename: 'nda.pdf', autoParse: true });
    expect(up.parse_job).toMatchObject({ status: 'queued' });
    expect(up.parse_usage).toMatchObject({ unit: 'pages', estimated_units: 3 });
    expect(up.credit_reservation).toMatchObject({ amount_credits: 3, status: 'reserved' });
    const first = await c.waitForJob(up.file.id, up.parse_job!.job_id);
    expect(first).toMatchObject({ status: 'completed', result: { changed_pages: [1, 2, 3] } });

    const rep = await c.files.replaceContent(up.file.id, v2, { autoParse: true, filename: 'nda.pdf' });
    expect(rep.file.current_version.version_number).toBe(2);
    expect(rep.parse_job).toMatchObject({ status: 'queued' });
    const second = await c.waitForJob(up.file.id, rep.parse_job!.job_id);
    expect(second).toMatchObject({
      status: 'completed',
      stage: 'completed',
      result: { changed_pages: [2], unchanged_pages: [1, 3], credits_charged: 1 },
    });
    expect((await ledgerOf(second.job_id)).map((e) => e.idempotency_key)).toEqual([`parse:${second.job_id}:page:2`]);
    const m2 = (second.result as { artifact_manifest_id: string }).artifact_manifest_id;
    const md = await c.artifacts.get(m2, 'result_md');
    const md1 = await c.artifacts.get(
      (first.result as { artifact_manifest_id: string }).artifact_manifest_id,
      'result_md',
    );
    expect(md).not.toEqual(md1);
    expect((await c.artifacts.get(m2, 'pages')).entries.map((e) => e.name)).toEqual([
      'page_0001.png',
      'page_0002.png',
      'page_0003.png',
    ]);
    const g = await c.artifacts.get(m2, 'grounding_json');
    expect(g.pages.map((p) => p.page_number)).toEqual([1, 2, 3]);
    const rows = await s.gw.db.pageVersion.findMany({
      where: { file_version_id: rep.file.current_version.id },
      orderBy: { page_number: 'asc' },
    });
    expect(rows.map((r) => r.page_number)).toEqual([1, 2, 3]);

    // Same bytes again: a new version, nothing to parse, no credits; the index shows its manifest.
    const rep3 = await c.files.replaceContent(up.file.id, v2, { autoParse: true, filename: 'nda.pdf' });
    const third = await c.waitForJob(up.file.id, rep3.parse_job!.job_id);
    expect(third).toMatchObject({ status: 'completed', stage: 'reused', percent: 100, result: { credits_charged: 0 } });
    const m3 = (third.result as { artifact_manifest_id: string }).artifact_manifest_id;
    expect((await indexJobOf(m3))?.data).toMatchObject({
      manifestId: m3,
      fileVersionId: rep3.file.current_version.id,
    });
    expect(await c.artifacts.get(m3, 'result_md')).toEqual(md);
    const entry = (await c.knowledgeBases.index(kbId)).files.find((f) => f.file_id === up.file.id)!;
    expect(entry).toMatchObject({
      version_number: 3,
      page_count: 3,
      latest_parse_job: { job_id: third.job_id, stage: 'reused' },
      parse_artifacts: { manifest_id: m3 },
    });
    expect((await c.files.segments(up.file.id)).length).toBeGreaterThan(0);
  });
});

describe('re-parse after a page inserted at the front', () => {
  // Issue 13.5: pages are matched by content hash, not position. The shifted pages are reused (not
  // parsed, not charged) and renumbered, so the bundle reads exactly like a fresh parse of the new version.
  it('parses and charges only the new page; the shifted pages read as in a fresh parse', async () => {
    const v1 = await combine([
      { file: BORN_DIGITAL_PG9, pages: [0] },
      { file: NDA3, pages: [0, 1] },
    ]);
    const v2 = await combine([
      { file: NDA5, pages: [0] },
      { file: BORN_DIGITAL_PG9, pages: [0] },
      { file: NDA3, pages: [0, 1] },
    ]);
    const up = await c.files.upload(v1, { knowledgeBaseId: kbId, filename: 'report.pdf', autoParse: true });
    const first = await c.waitForJob(up.file.id, up.parse_job!.job_id);
    expect(first).toMatchObject({ status: 'completed', result: { changed_pages: [1, 2, 3], credits_charged: 3 } });
    const m1 = (first.result as { artifact_manifest_id: string }).artifact_manifest_id;
    expect((await c.artifacts.get(m1, 'imgs')).entries.map((e) => e.name)).toContain('p0001_table_1.jpg');

    const rep = await c.files.replaceContent(up.file.id, v2, { autoParse: true, filename: 'report.pdf' });
    expect(rep.credit_reservation).toMatchObject({ status: 'reserved' });
    const second = await c.waitForJob(up.file.id, rep.parse_job!.job_id);
    expect(second).toMatchObject({
      status: 'completed',
      stage: 'completed',
      total_pages: 4,
      completed_pages: 4,
      result: { page_count: 4, changed_pages: [1], unchanged_pages: [2, 3, 4], credits_charged: 1, reused: false },
    });
    // One page debited, the reservation released: nothing else reached the ledger.
    expect((await ledgerOf(second.job_id)).filter((e) => e.kind === 'debit').map((e) => e.idempotency_key)).toEqual([
      `parse:${second.job_id}:page:1`,
    ]);
    expect(await s.gw.db.creditReservation.findUnique({ where: { job_id: second.job_id } })).toMatchObject({
      status: 'committed',
      debited_credits: 1,
    });

    // The same version parsed from scratch as another file (same name, another knowledge base): the reference bundle.
    const refKb = (await c.knowledgeBases.create({ name: 'Fresh parse' })).knowledge_base.id;
    const fresh = await c.files.upload(v2, { knowledgeBaseId: refKb, filename: 'report.pdf', autoParse: true });
    const ref = await c.waitForJob(fresh.file.id, fresh.parse_job!.job_id);
    expect(ref).toMatchObject({ status: 'completed', result: { changed_pages: [1, 2, 3, 4], credits_charged: 4 } });
    const m2 = (second.result as { artifact_manifest_id: string }).artifact_manifest_id;
    const mr = (ref.result as { artifact_manifest_id: string }).artifact_manifest_id;

    const [g2, gr] = [await c.artifacts.get(m2, 'grounding_json'), await c.artifacts.get(mr, 'grounding_json')];
    expect(g2.pages.map((p) => p.page_number)).toEqual([1, 2, 3, 4]);
    expect(g2.pages).toEqual(gr.pages);
    for (const p of g2.pages) for (const el of p.elements) expect(el.id.startsWith(`p${p.page_number}-`)).toBe(true);
    const table = g2.pages[1]!.elements.find((el) => el.type === 'table')!;
    expect(table.image).toBe('imgs/p0002_table_1.jpg');
    expect(await c.artifacts.get(m2, 'result_md')).toEqual(await c.artifacts.get(mr, 'result_md'));
    for (const dir of ['pages', 'imgs'] as const) {
      expect((await c.artifacts.get(m2, dir)).entries.map((e) => e.name)).toEqual(
        (await c.artifacts.get(mr, dir)).entries.map((e) => e.name),
      );
    }
    const norm = (segs: Awaited<ReturnType<typeof c.files.segments>>, fileId: string, m: string) =>
      JSON.parse(JSON.stringify(segs).split(fileId).join('FILE').split(m).join('MANIFEST'));
    expect(norm(await c.files.segments(up.file.id), up.file.id, m2)).toEqual(
      norm(await c.files.segments(fresh.file.id), fresh.file.id, mr),
    );
    // The moved page image is the one of the old page 1, under its new number.
    expect(await c.artifacts.get(m2, 'pages', { file: 'page_0002.png' })).toEqual(
      await c.artifacts.get(m1, 'pages', { file: 'page_0001.png' }),
    );
  }, 240_000);
});

describe('scanned image, xlsx and csv', () => {
  it('OCRs a PNG (always the OCR backend), one credit', async () => {
    const { file } = await c.files.upload(corpus('c_scanned_images/tesseract.js/testocr.png'), {
      knowledgeBaseId: kbId,
    });
    const r = await c.files.parse(file.id, { options: { backend: 'text' } });
    const done = await c.waitForJob(file.id, r.job.job_id);
    expect(done).toMatchObject({ status: 'completed', total_pages: 1, result: { backend: 'ocr', credits_charged: 1 } });
    // The credit the result reports is the one the ledger holds (an image page was once never debited).
    expect((await ledgerOf(done.job_id)).map((e) => [e.kind, e.amount_credits, e.idempotency_key])).toEqual([
      ['debit', -1, `parse:${done.job_id}:page:1`],
    ]);
    expect(await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: done.job_id } })).toMatchObject({
      status: 'committed',
      debited_credits: 1,
    });
    const m = (done.result as { artifact_manifest_id: string }).artifact_manifest_id;
    const md = await c.artifacts.get(m, 'result_md');
    expect(md).toMatch(/quick brown dog/);
    expect((await c.artifacts.get(m, 'pages')).entries.map((e) => e.name)).toEqual(['page_0001.png']);
    expect((await c.files.segments(file.id))[0]).toMatchObject({ sourceType: 'image', coordinates: { pageNumber: 1 } });
  });

  it('parses an xlsx per sheet with workbook and tables artifacts', async () => {
    const { file } = await c.files.upload(corpus('d_spreadsheets/unstructured/stanley-cups.xlsx'), {
      knowledgeBaseId: kbId,
    });
    const r = await c.files.parse(file.id);
    expect(r.usage).toMatchObject({ unit: 'sheets', estimated_units: 2 });
    const { done, seen } = await waitWatching(file.id, r.job.job_id);
    expect(done).toMatchObject({
      status: 'completed',
      stage: 'completed',
      total_pages: 2,
      completed_pages: 2,
      result: { sheet_count: 2, credits_charged: 2 },
    });
    expect(
      seen.filter((x) => x.stage).every((x) => ['page-diff', 'parse-spreadsheet', 'completed'].includes(x.stage!)),
    ).toBe(true);
    const { events } = await c.files.jobEvents(file.id, done.job_id);
    expect(events.find((e) => e.event_type === 'parse.started')?.stage).toBe('parse-spreadsheet');
    expect((await ledgerOf(done.job_id)).map((e) => e.idempotency_key)).toEqual([
      `parse:${done.job_id}:sheet:1`,
      `parse:${done.job_id}:sheet:2`,
    ]);
    const [m] = (await c.files.artefacts(file.id)).artifacts;
    expect(m).toMatchObject({
      manifest: { unit: 'sheets', source_type: 'spreadsheet', segment_count: expect.any(Number) },
      links: {
        pages: null,
        imgs: null,
        workbook_json: `/v1/artifacts/${m!.id}/workbook_json`,
        tables_json: `/v1/artifacts/${m!.id}/tables_json`,
      },
    });
    expect((m!.manifest as { segment_count: number }).segment_count).toBeGreaterThan(0);
    const wb = await s.gw.req('GET', `/v1/artifacts/${m!.id}/workbook_json`, { key });
    expect(wb.headers.get('content-type')).toMatch(/^application\/json/);
    expect(wb.body.sheets.map((x: { name: string }) => x.name)).toHaveLength(2);
    expect(
      (await s.gw.req('GET', `/v1/artifacts/${m!.id}/tables_json`, { key })).body.tables.length,
    ).toBeGreaterThanOrEqual(2);
    const segs = await c.files.segments(file.id);
    expect(segs[0]).toMatchObject({
      sourceType: 'spreadsheet',
      coordinates: { sheetName: expect.any(String), rangeA1: expect.any(String) },
    });
    const again = await c.files.parse(file.id, { options: { timeout_seconds: 30 } });
    expect(await c.waitForJob(file.id, again.job.job_id)).toMatchObject({
      stage: 'reused',
      result: { credits_charged: 0 },
    });
  });

  it('parses a csv as one sheet', async () => {
    const data = await readFile(corpus('d_spreadsheets/docling/csv-comma.csv'));
    const up = await c.files.upload(data, { knowledgeBaseId: kbId, filename: 'csv-comma.csv', autoParse: true });
    expect(up.parse_usage).toMatchObject({ unit: 'sheets', estimated_units: 1 });
    const done = await c.waitForJob(up.file.id, up.parse_job!.job_id);
    expect(done).toMatchObject({ status: 'completed', result: { sheet_count: 1, credits_charged: 1 } });
    const m = (done.result as { artifact_manifest_id: string }).artifact_manifest_id;
    expect(await c.artifacts.get(m, 'result_md')).toContain('|');
  });

  it('keeps sum(ledger) equal to the balance with no reservation left open', async () => {
    const inv = await creditInvariants(s.gw, orgId);
    expect(inv.ledgerSum).toBe(inv.balance);
    expect(inv.openReservations).toBe(0);
  });
});
