// Split through the HTTP API (libs/sdk) with the real parse and workflow workers: rules suggestion
// and split runs as queued operations (windows, repair, cancel between windows, refunds, the
// split_model_unavailable failure), both providers' paths, and the page-range download.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '@docfleet/models/test-servers';
import type { DocfleetClient, SplitSession } from '@docfleet/sdk';
import { pdfPageSizes } from '@docfleet/workflows';
import { waitUntil } from '@docfleet/testing';
import { buildPlanPdf, splitPlans } from '../../../libs/models/eval/corpus-sets';
import {
  CORPUS,
  corpus,
  creditInvariants,
  remoteModelEnv,
  startWorkflowStack,
  withGatewayModels,
  type WorkflowStack,
} from './stack';

// split_nda_invoice_mix: 12 pages, two windows of the default size (1-10 and 9-12).
const TRUTH = [
  [1, 5],
  [6, 6],
  [7, 9],
  [10, 11],
  [12, 12],
];
const pagesOf = (req: { body: Record<string, unknown> }) =>
  [...JSON.stringify(req.body).matchAll(/=== page (\d+) ===/g)].map((m) => Number(m[1]));

let s: WorkflowStack;
let fake: FakeOpenAiServer;
let c: DocfleetClient;
let orgId: string;
let kbId: string;
let fileId: string;
let key: string;
let mixPdf: string;

beforeAll(async () => {
  // The remote model answers the truth for the pages it is shown, with defects the repair must fix:
  // the first record runs one page into the next (overlap), and one record is invalid.
  fake = await startFakeOpenAiServer({
    models: ['remote-small'],
    respond: (req) => {
      const pages = pagesOf(req);
      if (!JSON.stringify(req.body).includes('You split a PDF')) return {};
      const first = Math.min(...pages);
      const last = Math.max(...pages);
      const records = TRUTH.filter(([a, b]) => b! >= first && a! <= last).map(([a, b], i) => ({
        title: `Doc ${a}`,
        documentType: a === 6 || a! >= 10 ? 'invoice' : 'contract_nda',
        startPage: Math.max(a!, first),
        endPage: Math.min(b!, last) + (i === 0 && b! < last ? 1 : 0),
        confidence: 0.9,
        boundaryReason: 'remote boundary',
      }));
      return {
        json: {
          records: [
            ...records,
            { title: 'bad', documentType: 'x', startPage: 40, endPage: 2, confidence: 1, boundaryReason: '' },
          ],
          warnings: [],
        },
      };
    },
  });
  s = await startWorkflowStack({ modelEnv: remoteModelEnv(fake.url) });
  const org = await s.gw.createOrg({ credits: 100 });
  orgId = org.orgId;
  key = org.key;
  c = s.client(org.key);
  kbId = (await c.knowledgeBases.create({ name: 'Split' })).knowledge_base.id;
  const plan = (await splitPlans(CORPUS)).find((p) => p.name === 'split_nda_invoice_mix')!;
  mixPdf = await buildPlanPdf(CORPUS, plan);
  fileId = (await c.files.upload(mixPdf, { knowledgeBaseId: kbId, filename: 'mix.pdf' })).file.id;
  // The text layer: with the default `auto` backend a stamp on page 10 sends the whole file to OCR,
  // and docfleet-local then misses the boundary at page 10 (bench/eval/split-eval.ts measures both).
  await c.waitForJob(fileId, (await c.files.parse(fileId, { options: { backend: 'text' } })).job.job_id);
}, 180_000);
afterAll(async () => {
  await s.close();
  await fake.close();
});

const balance = async () => (await c.billing.credits()).credits.balance_credits;
const ledgerKeys = async (operationId: string) =>
  (
    await s.gw.db.ledgerEntry.findMany({
      where: { org_id: orgId, operation_id: operationId },
      orderBy: { created_at: 'asc' },
    })
  ).map((e) => `${e.kind} ${e.amount_credits} ${e.idempotency_key.replace(/^.*:attempt/, 'attempt')}`);
const grantViewer = (userId: string) =>
  s.gw.db.rbacGrant.upsert({
    where: {
      user_id_resource_type_resource_id: { user_id: userId, resource_type: 'knowledge_base', resource_id: kbId },
    },
    create: {
      org_id: orgId,
      user_id: userId,
      resource_type: 'knowledge_base',
      resource_id: kbId,
      access_level: 'viewer',
    },
    update: {},
  });
const opId = (r: { body: unknown }) => (r.body as { operation_id: string }).operation_id;
const ranges = (session: SplitSession) => session.records.map((r) => [r.startPage, r.endPage]);

describe('split with docfleet-local', () => {
  let session: SplitSession;
  it('suggests rules as a queued operation (1 credit, phase rules)', async () => {
    const before = await balance();
    const r = await c.split.suggestRules({ file_id: fileId });
    expect(r).toEqual({ status: 202, body: { operation_id: expect.any(String), status: 'queued' } });
    const op = await c.waitForOperation<{ rules: Array<{ name: string }>; modelId: string }>(opId(r));
    expect(op).toMatchObject({
      operation_type: 'split_rules_suggest',
      status: 'completed',
      progress: { done: 1, total: 1, phase: 'rules' },
    });
    expect(Object.keys(op.output!).sort()).toEqual(['modelId', 'rules']);
    expect(op.output!.modelId).toBe('docfleet-local');
    expect(op.output!.rules.map((x) => x.name)).toContain('page_number_reset');
    expect(await balance()).toBe(before - 1);
    const again = await c.split.suggestRules({ file_id: fileId });
    expect(again).toEqual({ status: 200, body: op.output });
  });

  it('runs windows then the repair pass and completes with the documented split session, stored', async () => {
    const before = await balance();
    const r = await c.split.run({ file_id: fileId, rules: [] });
    expect(r.status).toBe(202);
    const op = await c.waitForOperation<SplitSession>(opId(r));
    expect(op).toMatchObject({
      operation_type: 'split_run',
      status: 'completed',
      error: null,
      progress: { done: 3, total: 3, phase: 'repair' },
    });
    session = op.output!;
    expect(Object.keys(session).sort()).toEqual([
      'createdAt',
      'modelId',
      'operation_id',
      'quality',
      'records',
      'rules',
      'sessionId',
      'sourceDocId',
      'sourceDocName',
      'sourcePageCount',
      'updatedAt',
      'warnings',
    ]);
    expect(session).toMatchObject({
      operation_id: opId(r),
      sourceDocId: fileId,
      sourceDocName: 'mix.pdf',
      sourcePageCount: 12,
      modelId: 'docfleet-local',
      rules: [],
    });
    expect(ranges(session)).toEqual(TRUTH);
    for (const rec of session.records) {
      expect(Object.keys(rec).sort()).toEqual([
        'boundaryReason',
        'confidence',
        'documentType',
        'endPage',
        'id',
        'metadata',
        'segmentIds',
        'startPage',
        'title',
        'warnings',
      ]);
      expect(rec.segmentIds.length).toBeGreaterThan(0);
    }
    expect(session.records.map((x) => x.documentType)).toEqual([
      'contract_nda',
      'invoice',
      'contract_nda',
      'invoice',
      'invoice',
    ]);
    // segmentIds are exactly the segments on the record's pages.
    const segs = await c.files.segments(fileId);
    const onPages = (a: number, b: number) =>
      segs
        .filter((x) => {
          const p = (x.coordinates as { pageNumber: number }).pageNumber;
          return p >= a && p <= b;
        })
        .map((x) => x.id)
        .sort();
    expect([...session.records[2]!.segmentIds].sort()).toEqual(onPages(7, 9));
    expect(session.quality).toEqual({
      coverage: 1,
      recordCount: 5,
      pageCount: 12,
      gapPages: [],
      overlapPages: [],
      duplicateRecordIds: [],
      invalidRecords: [],
      status: 'pass',
    });
    const row = await s.gw.db.splitSession.findUniqueOrThrow({ where: { operation_id: opId(r) } });
    expect(row).toMatchObject({ id: session.sessionId, file_id: fileId, session });
    expect(await balance()).toBe(before - 1);
    expect(await ledgerKeys(opId(r))).toEqual(['debit -1 attempt-1']);
  });

  it('replays a completed run for free; the default key follows rules and model, a fresh key is new work', async () => {
    const before = await balance();
    expect(await c.split.run({ file_id: fileId, rules: [] })).toEqual({ status: 200, body: session });
    expect(await c.split.run({ file_id: fileId } as never)).toEqual({ status: 200, body: session });
    expect(await balance()).toBe(before);
    const withRules = await c.split.run({
      file_id: fileId,
      rules: [{ name: 'every_page', description: 'Each page is a separate document.' }],
    });
    expect(withRules.status).toBe(202);
    const op = await c.waitForOperation<SplitSession>(opId(withRules));
    // The rule reaches the model (docfleet-local cuts at nearly every page; "Seite 1/2" still binds 10-11).
    expect(op.output!.records.length).toBeGreaterThan(TRUTH.length);
    expect(op.output!.rules).toEqual([{ name: 'every_page', description: 'Each page is a separate document.' }]);
    const fresh = await c.split.run({ file_id: fileId, rules: [], idempotency_key: 'fresh-1' });
    expect(fresh.status).toBe(202);
    expect(opId(fresh)).not.toBe(session.operation_id);
    await c.waitForOperation(opId(fresh));
    expect(await balance()).toBe(before - 2);
  });

  it('refuses before charging: unparsed file, unknown model, no default model, no workflow permission', async () => {
    const before = await balance();
    const unparsed = (await c.files.upload(mixPdf, { knowledgeBaseId: kbId, filename: 'unparsed.pdf' })).file.id;
    await expect(c.split.run({ file_id: unparsed, rules: [] })).rejects.toMatchObject({
      status: 409,
      code: 'file_must_be_parsed',
    });
    await expect(c.split.suggestRules({ file_id: unparsed })).rejects.toMatchObject({
      status: 409,
      code: 'file_must_be_parsed',
    });
    await expect(c.split.run({ file_id: fileId, rules: [], model_id: 'gpt-nonexistent' })).rejects.toMatchObject({
      status: 400,
      code: 'unsupported_model',
    });
    await withGatewayModels(s, { MODEL_DEFAULT: 'none' }, key, async (none) => {
      await expect(none.split.run({ file_id: fileId, rules: [], idempotency_key: 'no-default' })).rejects.toMatchObject(
        {
          status: 503,
          code: 'model_provider_unavailable',
        },
      );
    });
    const viewer = await s.gw.createSession(orgId, 'viewer');
    await grantViewer(viewer.userId);
    const v = await s.gw.req('POST', '/v1/split/runs', {
      headers: viewer.headers,
      body: { file_id: fileId, rules: [] },
    });
    expect(v).toMatchObject({ status: 403, body: { code: 'permission_required' } });
    expect(await balance()).toBe(before);
  });
});

describe('split through a remote provider (OpenAI-compatible wire server)', () => {
  it('repairs overlaps, invalid records and the window edge: records come out whole, status review', async () => {
    const calls = fake.requests.length;
    const r = await c.split.run({
      file_id: fileId,
      rules: [{ name: 'page_number_reset', description: 'New document where page numbering restarts.' }],
      model_id: 'remote-small',
    });
    const op = await c.waitForOperation<SplitSession>(opId(r));
    expect(op.status).toBe('completed');
    const out = op.output!;
    expect(fake.requests.length - calls).toBe(2);
    expect(fake.requests.slice(calls).map(pagesOf)).toEqual([
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      [9, 10, 11, 12],
    ]);
    expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain('page_number_reset');
    expect(out.modelId).toBe('remote-small');
    expect(ranges(out)).toEqual(TRUTH);
    expect(out.records[3]).toMatchObject({
      startPage: 10,
      endPage: 11,
      title: 'Doc 10',
      documentType: 'invoice',
      boundaryReason: 'remote boundary',
    });
    expect(out.quality).toMatchObject({ coverage: 1, gapPages: [], overlapPages: [], status: 'review' });
    expect(out.quality.invalidRecords).toHaveLength(2);
    expect(out.warnings.map((w) => (w as { code: string }).code)).toEqual(
      expect.arrayContaining(['overlaps_repaired', 'invalid_records']),
    );
  });

  it("fails with split_model_unavailable and the first window's reason when every window fails, and refunds", async () => {
    fake.enqueue(
      { status: 500, error: { message: 'window one exploded' } },
      { status: 500, error: { message: 'window two exploded' } },
    );
    const before = await balance();
    const r = await c.split.run({ file_id: fileId, rules: [], model_id: 'remote-small', idempotency_key: 'all-fail' });
    const op = await c.waitForOperation(opId(r));
    expect(op).toMatchObject({ status: 'failed', output: null });
    expect(op.error).toMatch(/^split_model_unavailable: model_call_failed: .*window one exploded/);
    expect(await balance()).toBe(before);
    expect(await ledgerKeys(opId(r))).toEqual(['debit -1 attempt-1', 'reversal 1 attempt-1:refund']);
    // The same request is a fresh attempt, charged again; with one window failing it completes for review.
    fake.enqueue({ status: 500, error: { message: 'only window one' } });
    expect(
      await c.split.run({ file_id: fileId, rules: [], model_id: 'remote-small', idempotency_key: 'all-fail' }),
    ).toEqual({ status: 202, body: { operation_id: opId(r), status: 'queued' } });
    const done = await c.waitForOperation<SplitSession>(opId(r));
    expect(done.status).toBe('completed');
    expect(done.output!.quality.status).toBe('review');
    expect(done.output!.quality.coverage).toBe(1);
    expect(done.output!.warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'window_failed', message: expect.stringContaining('only window one') }),
      ]),
    );
    expect(done.output!.records[0]).toMatchObject({ startPage: 1, documentType: 'unknown', confidence: 0 });
    expect(await ledgerKeys(opId(r))).toEqual([
      'debit -1 attempt-1',
      'reversal 1 attempt-1:refund',
      'debit -1 attempt-2',
    ]);
  });

  it('honours a cancel between windows: no further model call, refunded', async () => {
    fake.enqueue({ delayMs: 1500 });
    const before = await balance();
    const calls = fake.requests.length;
    const r = await c.split.run({
      file_id: fileId,
      rules: [],
      model_id: 'remote-small',
      idempotency_key: 'cancel-between',
    });
    const id = opId(r);
    let status = '';
    await waitUntil(
      `split operation ${id} in progress`,
      async () => (status = (await c.operations.get(id)).status) === 'in_progress',
      { timeoutMs: 5000, detail: () => `status ${status}` },
    );
    await new Promise((res) => setTimeout(res, 300));
    expect(await c.operations.cancel(id)).toMatchObject({ status: 'in_progress' });
    const op = await c.waitForOperation(id);
    expect(op).toMatchObject({ status: 'cancelled', output: null, progress: { done: 1, total: 2, phase: 'windows' } });
    expect(fake.requests.length - calls).toBe(1);
    expect(await balance()).toBe(before);
  });
});

describe('split download', () => {
  it('answers the page range as a PDF named after the title, free, with viewer access', async () => {
    const before = await balance();
    const bytes = await c.split.download({ file_id: fileId, startPage: 7, endPage: 9, title: 'NDA #2 / Acme "draft"' });
    const source = await pdfPageSizes(await readFile(mixPdf));
    expect(await pdfPageSizes(bytes)).toEqual(source.slice(6, 9));
    expect(source.slice(6, 9)).not.toEqual(source.slice(5, 8));
    const viewer = await s.gw.createSession(orgId, 'viewer');
    await grantViewer(viewer.userId);
    const res = await fetch(`${s.gw.url}/v1/split/download`, {
      method: 'POST',
      headers: { ...viewer.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ file_id: fileId, startPage: 6, endPage: 6, title: 'Invoice: Ünïcode/..\\name' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="Invoice_Unicode_.._name.pdf"; filename*=UTF-8''${encodeURIComponent('Invoice: Ünïcode/..\\name.pdf')}`,
    );
    expect(await pdfPageSizes(Buffer.from(await res.arrayBuffer()))).toEqual([source[5]]);
    expect(await balance()).toBe(before);
  });

  it("answers bad ranges and non-PDF sources with a clear 400 / 415, and hides other organisations' files", async () => {
    for (const [a, b] of [
      [0, 2],
      [5, 4],
      [11, 13],
    ]) {
      await expect(c.split.download({ file_id: fileId, startPage: a!, endPage: b!, title: 'x' })).rejects.toMatchObject(
        { status: 400, code: 'invalid_page_range', message: expect.stringMatching(/startPage/) },
      );
    }
    await expect(c.split.download({ file_id: fileId, startPage: 1.5, endPage: 2, title: 'x' })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request_body',
    });
    const csv = (
      await c.files.upload(corpus(path.join('d_spreadsheets', 'docling', 'csv-comma.csv')), { knowledgeBaseId: kbId })
    ).file.id;
    await expect(c.split.download({ file_id: csv, startPage: 1, endPage: 1, title: 'x' })).rejects.toMatchObject({
      status: 415,
      code: 'unsupported_file_type',
    });
    const other = await s.gw.createOrg({ credits: 1 });
    await expect(
      s.client(other.key).split.download({ file_id: fileId, startPage: 1, endPage: 1, title: 'x' }),
    ).rejects.toMatchObject({ status: 404, code: 'file_not_found' });
  });

  it('keeps the ledger and the balance in agreement', async () => {
    const inv = await creditInvariants(s.gw, orgId);
    expect(inv.balance).toBe(inv.ledgerSum);
  });
});
