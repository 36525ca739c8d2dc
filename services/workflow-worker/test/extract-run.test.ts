// POST /v1/extract/runs and the Operation resource through the HTTP API (libs/sdk) with the real
// parse and workflow workers: the queued-operation response rule, per-attempt charging and
// refunds, cancel, validation order, model errors, and the extraction output's shape.
import type { FakeOpenAiServer } from '@docfleet/models/test-servers';
import type { DocfleetClient } from '@docfleet/sdk';
import { runOperation } from '../src/jobs/operation-run.handler';
import {
  brokeOrgWithParsedFile,
  corpus,
  creditInvariants,
  startWorkflowFixture,
  type WorkflowFixture,
  type WorkflowStack,
  withGatewayModels,
} from './stack';

const INVOICE = corpus('f_forms_invoices/invoice2data/AzureInterior.pdf');
const FIELDS = {
  title: 'Invoice',
  fields: [
    { name: 'Invoice Number', type: 'string', description: 'the invoice number' },
    { name: 'date', type: 'date' },
    { name: 'total amount', type: 'number', required: true },
    { name: 'currency', type: 'money' },
  ],
};

let s: WorkflowStack;
let fake: FakeOpenAiServer;
let c: DocfleetClient;
let orgId: string;
let fileId: string;
let kbId: string;

let fx: WorkflowFixture;
beforeAll(async () => {
  fx = await startWorkflowFixture({ kbName: 'Extraction', file: INVOICE });
  ({ s, fake, c, orgId, kbId, fileId } = fx);
});
afterAll(() => fx.close());

const balance = async () => (await c.billing.credits()).credits.balance_credits;
const ledger = (operationId: string) =>
  s.gw.db.ledgerEntry.findMany({ where: { org_id: orgId, operation_id: operationId }, orderBy: { created_at: 'asc' } });

describe('extract run with docfleet-local', () => {
  let opId: string;
  it('answers 202 queued, charges 1 credit under :attempt-1, and completes with the documented output', async () => {
    const before = await balance();
    const r = await c.extract.run({ file_id: fileId, schema: FIELDS });
    expect(r.status).toBe(202);
    expect(r.body).toEqual({ operation_id: expect.any(String), status: 'queued' });
    opId = (r.body as { operation_id: string }).operation_id;
    expect(await balance()).toBe(before - 1);
    const op = await c.waitForOperation<any>(opId);
    expect(op).toMatchObject({
      operation_id: opId,
      operation_type: 'extract_run',
      status: 'completed',
      error: null,
      progress: { done: 1, total: 1, phase: 'extract' },
    });
    expect(op.completed_at).toEqual(expect.any(String));
    const out = op.output;
    expect(Object.keys(out).sort()).toEqual(
      [
        'citations',
        'jsonResult',
        'metrics',
        'modelId',
        'normalizedSchema',
        'operation_id',
        'resultTree',
        'schema',
        'warnings',
      ].sort(),
    );
    expect(out.modelId).toBe('docfleet-local');
    expect(out.schema).toEqual(FIELDS);
    expect(
      out.normalizedSchema.fields.map((f: { name: string; id: string; type: string }) => [f.name, f.id, f.type]),
    ).toEqual([
      ['invoice_number', 'field-invoice_number', 'string'],
      ['date', 'field-date', 'date'],
      ['total_amount', 'field-total_amount', 'number'],
      ['currency', 'field-currency', 'string'],
    ]);
    expect(out.resultTree.map((n: { fieldId: string }) => n.fieldId)).toEqual([
      'field-invoice_number',
      'field-date',
      'field-total_amount',
      'field-currency',
    ]);
    expect(out.metrics).toMatchObject({ modelCalls: 1, durationMs: 0, timedOut: false, pageCount: 1 });
    expect(out.metrics.selectedSegmentCount).toBe(out.metrics.segmentCount);
    expect(out.metrics.contextChars).toBeGreaterThan(0);
    // Values found in the invoice carry citations whose quote contains them.
    expect(out.jsonResult.total_amount).toEqual(expect.any(Number));
    const totalCite = out.citations.find((x: { path: string }) => x.path === '/total_amount');
    expect(totalCite).toMatchObject({ segmentId: expect.any(String), pageNumber: 1 });
    const totalNode = out.resultTree.find((n: { fieldId: string }) => n.fieldId === 'field-total_amount');
    expect(totalNode).toMatchObject({
      path: '/total_amount',
      type: 'number',
      value: out.jsonResult.total_amount,
      confidence: totalCite.confidence,
    });
    expect(out).not.toHaveProperty('credit');
    const entries = await ledger(opId);
    expect(entries.map((e) => [e.kind, e.amount_credits, e.idempotency_key])).toEqual([
      ['debit', -1, expect.stringMatching(/:attempt-1$/)],
    ]);
  });

  it('replays a completed run with 200 and the output inline, free', async () => {
    const before = await balance();
    const r = await c.extract.run({ file_id: fileId, schema: FIELDS });
    expect(r.status).toBe(200);
    expect((r.body as { operation_id: string }).operation_id).toBe(opId);
    expect(r.body).toEqual((await c.operations.get(opId)).output);
    expect(await balance()).toBe(before);
  });

  it('derives the default key from schema contents: a saved schema with the same fields replays the same run', async () => {
    const saved = await s.gw.db.extractionSchema.create({
      data: { org_id: orgId, title: 'Invoice', schema: FIELDS, json_schema: {} },
    });
    const r = await c.extract.run({ file_id: fileId, schema_id: saved.id });
    expect(r.status).toBe(200);
    // A narrower run (segment_ids) is different work.
    const segs = await c.files.segments(fileId);
    const one = await c.extract.run({ file_id: fileId, schema: FIELDS, segment_ids: [segs[0]!.id] });
    expect(one.status).toBe(202);
    const done = await c.waitForOperation<any>((one.body as { operation_id: string }).operation_id);
    expect(done.output.metrics.selectedSegmentCount).toBe(1);
  });

  it('refuses before charging: invalid_schema, file_must_be_parsed, unsupported_model, schema_not_found', async () => {
    const before = await balance();
    await expect(c.extract.run({ file_id: fileId } as never)).rejects.toMatchObject({
      status: 422,
      code: 'invalid_schema',
    });
    await expect(c.extract.run({ file_id: fileId, schema: FIELDS, segment_ids: ['nope'] })).rejects.toMatchObject({
      status: 409,
      code: 'file_must_be_parsed',
    });
    await expect(c.extract.run({ file_id: fileId, schema: FIELDS, model_id: 'gpt-nonexistent' })).rejects.toMatchObject(
      { status: 400, code: 'unsupported_model' },
    );
    await expect(
      c.extract.run({ file_id: fileId, schema_id: '00000000-0000-4000-8000-000000000000' }),
    ).rejects.toMatchObject({ status: 404, code: 'schema_not_found' });
    await expect(
      c.extract.run({ file_id: fileId, schema: FIELDS, reasoning_level: 'extreme' as never }),
    ).rejects.toMatchObject({ status: 400, code: 'invalid_request_body' });
    const unparsed = (await c.files.upload(INVOICE, { knowledgeBaseId: kbId, filename: 'unparsed.pdf' })).file.id;
    await expect(c.extract.run({ file_id: unparsed, schema: FIELDS })).rejects.toMatchObject({
      status: 409,
      code: 'file_must_be_parsed',
    });
    expect(await balance()).toBe(before);
    expect(await s.gw.db.operation.count({ where: { org_id: orgId, status: 'queued' } })).toBe(0);
  });

  it('answers 503 model_provider_unavailable when the deployment has no default model', async () => {
    await withGatewayModels(s, { MODEL_DEFAULT: 'none' }, fx.key, async (none) => {
      await expect(
        none.extract.run({ file_id: fileId, schema: FIELDS, idempotency_key: 'no-default' }),
      ).rejects.toMatchObject({ status: 503, code: 'model_provider_unavailable' });
    });
  });

  it("hides other organisations' operations and unknown ids behind 404 operation_not_found", async () => {
    const other = await s.gw.createOrg({ credits: 1 });
    await expect(s.client(other.key).operations.get(opId)).rejects.toMatchObject({
      status: 404,
      code: 'operation_not_found',
    });
    await expect(c.operations.get('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      status: 404,
      code: 'operation_not_found',
    });
    await expect(c.operations.cancel(opId)).resolves.toMatchObject({ status: 'completed' }); // terminal: unchanged
  });
});

describe('after the file is permanently deleted', () => {
  it('its operations answer 404 operation_not_found', async () => {
    const f = (await c.files.upload(INVOICE, { knowledgeBaseId: kbId, filename: 'to-delete.pdf' })).file.id;
    await c.waitForJob(f, (await c.files.parse(f)).job.job_id);
    const id = ((await c.extract.run({ file_id: f, schema: FIELDS })).body as { operation_id: string }).operation_id;
    expect(await c.waitForOperation(id)).toMatchObject({ status: 'completed' });
    await c.files.permanentDelete(f, { confirmPermanent: true });
    await expect(c.operations.get(id)).rejects.toMatchObject({ status: 404, code: 'operation_not_found' });
    await expect(c.operations.cancel(id)).rejects.toMatchObject({ status: 404, code: 'operation_not_found' });
  });
});

describe('a remote provider that fails', () => {
  it('fails the attempt with the reason and refunds it as a reversal under :attempt-1:refund; the same request is a fresh attempt charged under :attempt-2', async () => {
    fake.enqueue({ status: 500, error: { message: 'upstream exploded' } });
    const before = await balance();
    const r = await c.extract.run({ file_id: fileId, schema: FIELDS, model_id: 'remote-small' });
    expect(r.status).toBe(202);
    const id = (r.body as { operation_id: string }).operation_id;
    const failed = await c.waitForOperation(id);
    expect(failed).toMatchObject({
      status: 'failed',
      output: null,
      error: expect.stringMatching(/^model_call_failed: .*upstream exploded/),
    });
    expect(await balance()).toBe(before);
    expect(
      (await ledger(id)).map((e) => [e.kind, e.amount_credits, e.idempotency_key.replace(/^.*:attempt/, 'attempt')]),
    ).toEqual([
      ['debit', -1, 'attempt-1'],
      ['reversal', 1, 'attempt-1:refund'],
    ]);

    const again = await c.extract.run({ file_id: fileId, schema: FIELDS, model_id: 'remote-small' });
    expect(again).toEqual({ status: 202, body: { operation_id: id, status: 'queued' } });
    const done = await c.waitForOperation<any>(id);
    expect(done.status).toBe('completed');
    expect(done.output.modelId).toBe('remote-small');
    expect(await balance()).toBe(before - 1);
    expect((await ledger(id)).map((e) => e.idempotency_key.replace(/^.*:attempt/, 'attempt'))).toEqual([
      'attempt-1',
      'attempt-1:refund',
      'attempt-2',
    ]);
    // The remote model saw the evidence in its prompt.
    expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain('[segment ');
  });
});

describe('while no worker runs', () => {
  beforeAll(async () => {
    for (const w of [s.workflow!]) await w.close(0);
  });

  it('re-attaches identical requests (202, real status, one charge), also when they race', async () => {
    const before = await balance();
    const body = { file_id: fileId, schema: FIELDS, idempotency_key: 'race-1' };
    const all = await Promise.all(Array.from({ length: 6 }, () => c.extract.run(body)));
    const ids = new Set(all.map((r) => (r.body as { operation_id: string }).operation_id));
    expect(ids.size).toBe(1);
    expect(all.every((r) => r.status === 202 && (r.body as { status: string }).status === 'queued')).toBe(true);
    expect(await balance()).toBe(before - 1);
  });

  it('cancels a queued attempt at once with its refund; the same request then queues a fresh attempt', async () => {
    const body = { file_id: fileId, schema: FIELDS, idempotency_key: 'cancel-1' };
    const before = await balance();
    const id = ((await c.extract.run(body)).body as { operation_id: string }).operation_id;
    const cancelled = await c.operations.cancel(id);
    expect(cancelled).toMatchObject({ status: 'cancelled', output: null, error: expect.any(String) });
    expect(await balance()).toBe(before);
    const again = await c.extract.run(body);
    expect(again).toEqual({ status: 202, body: { operation_id: id, status: 'queued' } });
    expect(await balance()).toBe(before - 1);
    // A worker started later runs only the current attempt; the stale job of attempt 1 is dropped.
    const w = s.startWorkflow();
    expect(await c.waitForOperation(id)).toMatchObject({ status: 'completed' });
    expect((await ledger(id)).map((e) => e.idempotency_key.replace(/^.*:attempt/, 'attempt'))).toEqual([
      'attempt-1',
      'attempt-1:refund',
      'attempt-2',
    ]);
    expect(
      await c.waitForOperation(
        (
          (await c.extract.run({ file_id: fileId, schema: FIELDS, idempotency_key: 'race-1' })).body as {
            operation_id: string;
          }
        ).operation_id,
      ),
    ).toMatchObject({ status: 'completed' });
    await w.close(0);
  });

  it('flags a running attempt on cancel; the worker honours it at the checkpoint before the model call and refunds', async () => {
    const before = await balance();
    const id = (
      (await c.extract.run({ file_id: fileId, schema: FIELDS, idempotency_key: 'cancel-running' })).body as {
        operation_id: string;
      }
    ).operation_id;
    // As if a worker had taken the attempt and not yet reached the model call.
    await s.gw.db.operation.update({ where: { id }, data: { status: 'in_progress', started_at: new Date() } });
    expect(await c.operations.cancel(id)).toMatchObject({ status: 'in_progress' });
    const calls = fake.requests.length;
    const outcome = await runOperation(
      s.workflowDeps,
      { operationId: id, orgId, attempt: 1 },
      new AbortController().signal,
    );
    expect(outcome).toBe('cancelled');
    expect(await c.operations.get(id)).toMatchObject({ status: 'cancelled', output: null });
    expect(fake.requests.length).toBe(calls);
    expect(await balance()).toBe(before);
  });

  it('declines without credits and leaves nothing queued', async () => {
    // Parse needs credits too: exactly the page, then none left.
    const { client: pc, orgId: poorOrg, fileId: f } = await brokeOrgWithParsedFile(s, INVOICE);
    await expect(pc.extract.run({ file_id: f, schema: FIELDS })).rejects.toMatchObject({
      status: 402,
      code: 'insufficient_credits',
    });
    expect(await s.gw.db.operation.count({ where: { org_id: poorOrg } })).toBe(0);
  });

  it('keeps the ledger and the balance in agreement', async () => {
    const inv = await creditInvariants(s.gw, orgId);
    expect(inv.balance).toBe(inv.ledgerSum);
  });
});
