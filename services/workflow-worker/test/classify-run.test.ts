// Classify through the HTTP API (libs/sdk) with the real parse and workflow workers: synchronous
// requests that the workflow worker answers, the synchronous credit rule (one debit per
// idempotency key, never refunded, free retry and replay), both providers' paths, model errors.
import type { FakeOpenAiServer } from '@docfleet/models/test-servers';
import type { DocfleetClient } from '@docfleet/sdk';
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
const CLASSES = ['invoice', 'contract_nda', 'scientific_paper'];

let s: WorkflowStack;
let fake: FakeOpenAiServer;
let c: DocfleetClient;
let orgId: string;
let kbId: string;
let fileId: string;

let fx: WorkflowFixture;
beforeAll(async () => {
  fx = await startWorkflowFixture({
    kbName: 'Classify',
    file: INVOICE,
    respond: (req) => {
      const text = JSON.stringify(req.body);
      if (text.includes('You classify a document')) {
        return {
          json: {
            document: { class: 'INVOICE', confidence: 0.93, rationale: 'remote says invoice' },
            pages: [
              { page_number: 1, class: 'Invoice', confidence: 0.9 },
              { page_number: 7, class: 'invoice', confidence: 0.5 },
            ],
          },
        };
      }
      if (text.includes('You suggest document classes'))
        return {
          json: {
            classes: [
              { name: 'vendor_invoice', description: 'Bills from suppliers.' },
              { name: 'vendor_invoice', description: 'duplicate' },
            ],
          },
        };
      return {};
    },
  });
  ({ s, fake, c, orgId, kbId, fileId } = fx);
});
afterAll(() => fx.close());

const balance = async () => (await c.billing.credits()).credits.balance_credits;
const ledger = (operationId: string) =>
  s.gw.db.ledgerEntry.findMany({ where: { org_id: orgId, operation_id: operationId } });

describe('classify runs with docfleet-local', () => {
  let first: Awaited<ReturnType<DocfleetClient['classify']['run']>>;
  it('answers 200 with the document class, per-page classes and the credit it charged', async () => {
    const before = await balance();
    first = await c.classify.run({ file_id: fileId, classes: CLASSES });
    expect(Object.keys(first).sort()).toEqual(['credit', 'document', 'modelId', 'operation_id', 'pages']);
    expect(first.document).toMatchObject({
      class: 'invoice',
      confidence: expect.any(Number),
      rationale: expect.any(String),
    });
    expect(first.document.confidence).toBeGreaterThan(0.5);
    expect(first.pages).toEqual([{ page_number: 1, class: 'invoice', confidence: expect.any(Number) }]);
    expect(first.modelId).toBe('docfleet-local');
    expect(first.credit).toEqual({
      debited: true,
      credits: 1,
      idempotency_key: expect.stringMatching(/^classify_run:/),
      replayed: false,
    });
    expect(await balance()).toBe(before - 1);
    // Recorded as an operation, readable like any other; the result is stored.
    const op = await c.operations.get(first.operation_id);
    expect(op).toMatchObject({ operation_type: 'classify_run', status: 'completed', error: null });
    expect(op.output).toEqual({
      operation_id: first.operation_id,
      document: first.document,
      pages: first.pages,
      modelId: 'docfleet-local',
    });
    const stored = await s.gw.db.classificationResult.findMany({ where: { operation_id: first.operation_id } });
    expect(stored).toEqual([
      expect.objectContaining({ kind: 'run', file_id: fileId, classes: CLASSES, model_id: 'docfleet-local' }),
    ]);
    expect((await ledger(first.operation_id)).map((e) => [e.kind, e.amount_credits, e.idempotency_key])).toEqual([
      ['debit', -1, `op:classify_run:${first.credit.idempotency_key}`],
    ]);
  });

  it('replays a completed run from stored output for free (no model call); a fresh key is a new charge', async () => {
    const before = await balance();
    const again = await c.classify.run({ file_id: fileId, classes: CLASSES });
    expect(again).toEqual({ ...first, credit: { ...first.credit, debited: false, replayed: true } });
    expect(await s.gw.db.classificationResult.count({ where: { operation_id: first.operation_id } })).toBe(1);
    expect(await balance()).toBe(before);
    const fresh = await c.classify.run({ file_id: fileId, classes: CLASSES, idempotency_key: 'fresh-classify' });
    expect(fresh.operation_id).not.toBe(first.operation_id);
    expect(fresh.credit).toEqual({ debited: true, credits: 1, idempotency_key: 'fresh-classify', replayed: false });
    expect(await balance()).toBe(before - 1);
    // Different classes are different work under the default key.
    const other = await c.classify.run({ file_id: fileId, classes: ['receipt', 'invoice'], multi_label: true });
    expect(other.credit.debited).toBe(true);
    expect(['receipt', 'invoice']).toContain(other.document.class);
    expect(await balance()).toBe(before - 2);
  });

  it('suggests classes synchronously under the same credit rule', async () => {
    const before = await balance();
    const r = await c.classify.suggestClasses({ file_id: fileId, guidelines: 'finance documents' });
    expect(Object.keys(r).sort()).toEqual(['classes', 'credit', 'modelId', 'operation_id']);
    expect(r.classes.length).toBeGreaterThan(0);
    for (const k of r.classes) expect(k).toEqual({ name: expect.any(String), description: expect.any(String) });
    expect(r.credit).toMatchObject({ debited: true, credits: 1 });
    expect(await c.classify.suggestClasses({ file_id: fileId, guidelines: 'finance documents' })).toEqual({
      ...r,
      credit: { ...r.credit, debited: false, replayed: true },
    });
    expect(await balance()).toBe(before - 1);
    expect(await c.operations.get(r.operation_id)).toMatchObject({
      operation_type: 'classify_suggest',
      status: 'completed',
    });
    expect(await s.gw.db.classificationResult.count({ where: { operation_id: r.operation_id, kind: 'suggest' } })).toBe(
      1,
    );
  });

  it('refuses before charging: classes_required, unparsed file, unknown model, no default model', async () => {
    const before = await balance();
    await expect(c.classify.run({ file_id: fileId } as never)).rejects.toMatchObject({
      status: 400,
      code: 'classes_required',
    });
    await expect(c.classify.run({ file_id: fileId, classes: [] })).rejects.toMatchObject({
      status: 400,
      code: 'classes_required',
    });
    await expect(c.classify.run({ file_id: fileId, classes: ['  '] })).rejects.toMatchObject({ status: 400 });
    const unparsed = (await c.files.upload(INVOICE, { knowledgeBaseId: kbId, filename: 'unparsed.pdf' })).file.id;
    await expect(c.classify.run({ file_id: unparsed, classes: CLASSES })).rejects.toMatchObject({
      status: 409,
      code: 'file_must_be_parsed',
    });
    await expect(c.classify.suggestClasses({ file_id: unparsed })).rejects.toMatchObject({
      status: 409,
      code: 'file_must_be_parsed',
    });
    await expect(
      c.classify.run({ file_id: fileId, classes: CLASSES, model_id: 'gpt-nonexistent' }),
    ).rejects.toMatchObject({ status: 400, code: 'unsupported_model' });
    await withGatewayModels(s, { MODEL_DEFAULT: 'none' }, fx.key, async (none) => {
      await expect(
        none.classify.run({ file_id: fileId, classes: CLASSES, idempotency_key: 'none' }),
      ).rejects.toMatchObject({ status: 503, code: 'model_provider_unavailable' });
    });
    expect(await balance()).toBe(before);
    expect(await s.gw.db.operation.count({ where: { org_id: orgId, status: { not: 'completed' } } })).toBe(0);
  });
});

describe('classify through a remote provider (OpenAI-compatible wire server)', () => {
  it('keeps the charge when the model call fails; a retry with the same key re-runs the model without a new charge', async () => {
    fake.enqueue({ status: 500, error: { message: 'classifier exploded' } });
    const before = await balance();
    const body = { file_id: fileId, classes: CLASSES, model_id: 'remote-small', idempotency_key: 'remote-1' };
    const err = await c.classify.run(body).then(
      () => {
        throw new Error('expected the run to fail');
      },
      (e: unknown) =>
        e as {
          status: number;
          code: string;
          message: string;
          details: { operation_id: string; credit: { debited: boolean } };
        },
    );
    expect(err).toMatchObject({
      status: 502,
      code: 'model_call_failed',
      message: expect.stringContaining('classifier exploded'),
    });
    expect(err.details).toMatchObject({
      operation_id: expect.any(String),
      credit: { debited: true, credits: 1, idempotency_key: 'remote-1' },
    });
    expect(await balance()).toBe(before - 1);
    expect(await c.operations.get(err.details.operation_id)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/^model_call_failed: .*classifier exploded/),
    });

    const calls = fake.requests.length;
    const ok = await c.classify.run(body);
    expect(fake.requests.length).toBe(calls + 1);
    expect(ok.operation_id).toBe(err.details.operation_id);
    expect(ok.credit).toEqual({ debited: false, credits: 1, idempotency_key: 'remote-1', replayed: false });
    // Class names are matched to the given ones; pages beyond the file are dropped.
    expect(ok.document).toEqual({ class: 'invoice', confidence: 0.93, rationale: 'remote says invoice' });
    expect(ok.pages).toEqual([{ page_number: 1, class: 'invoice', confidence: 0.9 }]);
    expect(ok.modelId).toBe('remote-small');
    expect(JSON.stringify(fake.requests.at(-1)!.body)).toContain('contract_nda');
    expect(await balance()).toBe(before - 1);
    expect((await ledger(ok.operation_id)).map((e) => [e.kind, e.amount_credits])).toEqual([['debit', -1]]);
    // And once completed, the same key replays without a model call.
    expect((await c.classify.run(body)).credit).toMatchObject({ debited: false, replayed: true });
    expect(fake.requests.length).toBe(calls + 1);
  });

  it('treats a class the caller did not offer as an invalid model output (charged, retryable)', async () => {
    fake.enqueue({ reply: { json: { document: { class: 'poem', confidence: 1, rationale: 'x' }, pages: [] } } });
    await expect(
      c.classify.run({ file_id: fileId, classes: CLASSES, model_id: 'remote-small', idempotency_key: 'remote-2' }),
    ).rejects.toMatchObject({
      status: 502,
      code: 'model_call_failed',
      message: expect.stringContaining('invalid_model_output'),
    });
  });

  it('suggests classes through the remote model (duplicates dropped)', async () => {
    const r = await c.classify.suggestClasses({ file_id: fileId, model_id: 'remote-small' });
    expect(r.classes).toEqual([{ name: 'vendor_invoice', description: 'Bills from suppliers.' }]);
    expect(r.modelId).toBe('remote-small');
  });

  it('declines without credits and leaves nothing behind', async () => {
    const { client: pc, orgId: poorOrg, fileId: f } = await brokeOrgWithParsedFile(s, INVOICE);
    await expect(pc.classify.run({ file_id: f, classes: CLASSES })).rejects.toMatchObject({
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
