// Extraction schema CRUD and POST /v1/extract/schemas/generate through the HTTP API (libs/sdk and
// raw session requests) with the real parse and workflow workers: normalisation, the derived
// jsonSchema, metadata merge, soft delete, access by attachment, and generation as a queued
// operation that saves its schema exactly once.
import { grantKbAccess } from '../../../libs/auth/src';
import type { DocfleetClient } from '@docfleet/sdk';
import { runOperation } from '../src/jobs/operation-run.handler';
import { corpus, creditInvariants, startWorkflowStack, type WorkflowStack } from './stack';

const INVOICE = corpus('f_forms_invoices/invoice2data/AzureInterior.pdf');

let s: WorkflowStack;
let c: DocfleetClient;
let orgId: string;
let key: string;
let kbId: string;
let fileId: string;

beforeAll(async () => {
  s = await startWorkflowStack({ modelEnv: { MODEL_DEFAULT: 'docfleet-local' } });
  const org = await s.gw.createOrg({ credits: 20 });
  orgId = org.orgId;
  key = org.key;
  c = s.client(org.key);
  kbId = (await c.knowledgeBases.create({ name: 'Schemas' })).knowledge_base.id;
  fileId = (await c.files.upload(INVOICE, { knowledgeBaseId: kbId })).file.id;
  await c.waitForJob(fileId, (await c.files.parse(fileId)).job.job_id);
});
afterAll(async () => {
  await s.close();
});

const balance = async () => (await c.billing.credits()).credits.balance_credits;
const RECORD_KEYS = [
  'id',
  'org_id',
  'knowledge_base_id',
  'file_id',
  'title',
  'description',
  'schema',
  'jsonSchema',
  'metadata',
  'created_by_user_id',
  'created_at',
  'updated_at',
].sort();

describe('schema CRUD', () => {
  let id: string;

  it('creates a schema with normalised fields and a derived jsonSchema (201, no credit)', async () => {
    const before = await balance();
    const r = await s.gw.req('POST', '/v1/extract/schemas', {
      key,
      body: {
        schema: {
          title: 'Invoice',
          description: 'Invoices we receive',
          fields: [
            { name: 'Invoice Number', type: 'string', required: true },
            {
              name: 'Line Items',
              type: 'table',
              children: [
                { name: 'Unit Price (EUR)', type: 'money' },
                { name: 'qty', type: 'number' },
              ],
            },
            { name: 'Paid?', type: 'boolean' },
            { name: 'Tags', type: 'array' },
          ],
        },
        metadata: { team: 'ap', owner: 'x' },
      },
    });
    expect(r.status).toBe(201);
    const rec = r.body.schema;
    expect(Object.keys(rec).sort()).toEqual(RECORD_KEYS);
    id = rec.id;
    expect(rec).toMatchObject({
      org_id: orgId,
      knowledge_base_id: null,
      file_id: null,
      title: 'Invoice',
      description: 'Invoices we receive',
      metadata: { team: 'ap', owner: 'x' },
      created_by_user_id: null,
    });
    expect(rec.schema.fields.map((f: any) => [f.name, f.id, f.type, f.required])).toEqual([
      ['invoice_number', 'field-invoice_number', 'string', true],
      ['line_items', 'field-line_items', 'table', false],
      ['paid_', 'field-paid_', 'boolean', false],
      ['tags', 'field-tags', 'array', false],
    ]);
    expect(rec.schema.fields[1].children.map((f: any) => [f.name, f.id, f.type])).toEqual([
      ['unit_price_eur_', 'field-line_items.unit_price_eur_', 'string'],
      ['qty', 'field-line_items.qty', 'number'],
    ]);
    expect(rec.jsonSchema).toMatchObject({
      type: 'object',
      required: ['invoice_number'],
      additionalProperties: false,
      properties: {
        invoice_number: { type: 'string' },
        line_items: { type: 'array', items: { type: 'object' } },
        paid_: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'object' } },
      },
    });
    expect(rec.jsonSchema.properties.line_items.items).toEqual({ type: 'object' });
    expect(await balance()).toBe(before);
    expect(await c.extract.getSchema(id)).toEqual({ schema: rec });
  });

  it('keeps a supplied jsonSchema, also across field edits; re-derives a derived one', async () => {
    const supplied = { type: 'object', properties: { total: { type: 'number', minimum: 0 } }, required: ['total'] };
    const own = (
      await c.extract.createSchema({
        schema: { title: 'Own', fields: [{ name: 'total', type: 'number' }] },
        jsonSchema: supplied,
      })
    ).schema;
    expect(own.jsonSchema).toEqual(supplied);
    const edited = (
      await c.extract.updateSchema(own.id, {
        schema: {
          fields: [
            { name: 'total', type: 'number' },
            { name: 'vat', type: 'number' },
          ],
        },
      })
    ).schema;
    expect(edited.jsonSchema).toEqual(supplied);
    const derived = (
      await c.extract.updateSchema(id, { schema: { title: 'Invoice', fields: [{ name: 'Due Date', type: 'date' }] } })
    ).schema;
    expect(derived.schema.fields.map((f) => f.name)).toEqual(['due_date']);
    expect(Object.keys(derived.jsonSchema.properties as object)).toEqual(['due_date']);
    await expect(
      c.extract.createSchema({ schema: { fields: [{ name: 'a', type: 'string' }] }, jsonSchema: { type: 'nonsense' } }),
    ).rejects.toMatchObject({ status: 422, code: 'invalid_schema' });
    await expect(c.extract.createSchema({ schema: { fields: [] } } as never)).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request_body',
    });
  });

  it('merges metadata on PATCH and updates title and description', async () => {
    const r = (
      await c.extract.updateSchema(id, {
        title: 'Invoice v2',
        description: 'changed',
        metadata: { owner: 'y', reviewed: true, team: null },
      })
    ).schema;
    expect(r.metadata).toEqual({ owner: 'y', reviewed: true });
    expect(r).toMatchObject({
      title: 'Invoice v2',
      description: 'changed',
      schema: { title: 'Invoice v2', description: 'changed' },
    });
    expect(new Date(r.updated_at).getTime()).toBeGreaterThanOrEqual(new Date(r.created_at).getTime());
  });

  it('attaches to a file (its knowledge base follows) or a knowledge base; lists newest first', async () => {
    const onFile = (
      await c.extract.createSchema({
        schema: { title: 'On file', fields: [{ name: 'a', type: 'string' }] },
        file_id: fileId,
      })
    ).schema;
    expect(onFile).toMatchObject({ file_id: fileId, knowledge_base_id: kbId });
    const onKb = (
      await c.extract.createSchema({
        schema: { title: 'On KB', fields: [{ name: 'a', type: 'string' }] },
        knowledge_base_id: kbId,
      })
    ).schema;
    expect(onKb).toMatchObject({ file_id: null, knowledge_base_id: kbId });
    await expect(
      c.extract.createSchema({
        schema: { fields: [{ name: 'a', type: 'string' }] },
        file_id: '00000000-0000-4000-8000-000000000000',
      }),
    ).rejects.toMatchObject({ status: 404, code: 'file_not_found' });
    const list = (await c.extract.listSchemas()).schemas;
    expect(list[0]!.id).toBe(onKb.id);
    expect(list.map((x) => x.id)).toEqual(expect.arrayContaining([id, onFile.id, onKb.id]));
  });

  it('follows attachment for session callers: grants decide what a member sees and reads; viewers cannot write', async () => {
    const unattached = (
      await c.extract.createSchema({ schema: { title: 'Shared', fields: [{ name: 'a', type: 'string' }] } })
    ).schema;
    const onKb = (
      await c.extract.createSchema({
        schema: { title: 'KB only', fields: [{ name: 'a', type: 'string' }] },
        knowledge_base_id: kbId,
      })
    ).schema;
    const member = await s.gw.createSession(orgId, 'member');
    const listed = (await s.gw.req('GET', '/v1/extract/schemas', { headers: member.headers })).body.schemas.map(
      (x: any) => x.id,
    );
    expect(listed).toContain(unattached.id);
    expect(listed).not.toContain(onKb.id);
    expect((await s.gw.req('GET', `/v1/extract/schemas/${onKb.id}`, { headers: member.headers })).body.code).toBe(
      'knowledge_base_access_denied',
    );
    expect((await s.gw.req('GET', `/v1/extract/schemas/${unattached.id}`, { headers: member.headers })).status).toBe(
      200,
    );
    await grantKbAccess(s.gw.db, { orgId, userId: member.userId, kbId, level: 'viewer' });
    expect((await s.gw.req('GET', `/v1/extract/schemas/${onKb.id}`, { headers: member.headers })).status).toBe(200);
    expect(
      (await s.gw.req('GET', '/v1/extract/schemas', { headers: member.headers })).body.schemas.map((x: any) => x.id),
    ).toContain(onKb.id);
    const viewer = await s.gw.createSession(orgId, 'viewer');
    const w = await s.gw.req('PATCH', `/v1/extract/schemas/${unattached.id}`, {
      headers: viewer.headers,
      body: { title: 'nope' },
    });
    expect([w.status, w.body.code]).toEqual([403, 'permission_required']);
    expect((await s.gw.req('GET', `/v1/extract/schemas/${unattached.id}`, { headers: viewer.headers })).status).toBe(
      200,
    );
  });

  it('soft-deletes: afterwards 404 schema_not_found everywhere, also for extraction runs; other organisations see nothing', async () => {
    const other = await s.gw.createOrg();
    await expect(s.client(other.key).extract.getSchema(id)).rejects.toMatchObject({
      status: 404,
      code: 'schema_not_found',
    });
    expect((await s.client(other.key).extract.listSchemas()).schemas).toEqual([]);
    expect(await c.extract.deleteSchema(id)).toEqual({ deleted: true, schema_id: id });
    await expect(c.extract.getSchema(id)).rejects.toMatchObject({ status: 404, code: 'schema_not_found' });
    await expect(c.extract.updateSchema(id, { title: 'x' })).rejects.toMatchObject({
      status: 404,
      code: 'schema_not_found',
    });
    await expect(c.extract.deleteSchema(id)).rejects.toMatchObject({ status: 404, code: 'schema_not_found' });
    await expect(c.extract.run({ file_id: fileId, schema_id: id })).rejects.toMatchObject({
      status: 404,
      code: 'schema_not_found',
    });
    expect((await c.extract.listSchemas()).schemas.map((x) => x.id)).not.toContain(id);
    expect(await s.gw.db.extractionSchema.count({ where: { id } })).toBe(1); // soft
  });
});

describe('POST /v1/extract/schemas/generate', () => {
  let opId: string;
  let out: any;

  it('queues a charged operation that derives and saves a schema attached to the file; an unknown reasoning_level falls back to medium', async () => {
    const before = await balance();
    const r = await c.extract.generateSchema({
      file_id: fileId,
      title: 'Supplier invoice',
      reasoning_level: 'extreme' as never,
    });
    expect(r).toEqual({ status: 202, body: { operation_id: expect.any(String), status: 'queued' } });
    opId = (r.body as { operation_id: string }).operation_id;
    expect(await balance()).toBe(before - 1);
    const op = await c.waitForOperation<any>(opId);
    expect(op).toMatchObject({ operation_type: 'schema_generate', status: 'completed', error: null });
    out = op.output;
    expect(Object.keys(out).sort()).toEqual(
      [
        'documentType',
        'jsonSchema',
        'metrics',
        'modelId',
        'operation_id',
        'schemaRationale',
        'schema',
        'schema_id',
      ].sort(),
    );
    expect(out).toMatchObject({
      operation_id: opId,
      modelId: 'docfleet-local',
      documentType: expect.any(String),
      schemaRationale: expect.any(String),
    });
    expect(Object.keys(out.metrics).sort()).toEqual(['contextChars', 'modelCalls', 'pageCount', 'segmentCount']);
    expect(out.metrics).toMatchObject({ modelCalls: 1, pageCount: 1 });
    expect(out.metrics.segmentCount).toBe((await c.files.segments(fileId)).length);
    expect(out.schema.title).toBe('Supplier invoice');
    expect(out.schema.fields.length).toBeGreaterThan(0);
    for (const f of out.schema.fields) expect(f.id).toBe(`field-${f.name}`);
    const saved = (await c.extract.getSchema(out.schema_id)).schema;
    expect(saved).toMatchObject({
      id: out.schema_id,
      file_id: fileId,
      knowledge_base_id: kbId,
      title: 'Supplier invoice',
      schema: out.schema,
      jsonSchema: out.jsonSchema,
      metadata: { source: 'schema_generate', operation_id: opId },
    });
    expect((await s.gw.db.operation.findUniqueOrThrow({ where: { id: opId } })).request).toMatchObject({
      reasoning_level: 'medium',
    });
    // The generated schema drives an extraction run.
    const run = await c.extract.run({ file_id: fileId, schema_id: out.schema_id });
    expect(run.status).toBe(202);
    expect((await c.waitForOperation((run.body as { operation_id: string }).operation_id)).status).toBe('completed');
  });

  it('replays a completed generation with 200 and the output inline, free; the schema is saved once', async () => {
    const before = await balance();
    const r = await c.extract.generateSchema({
      file_id: fileId,
      title: 'Supplier invoice',
      reasoning_level: 'extreme' as never,
    });
    expect(r).toEqual({ status: 200, body: out });
    expect(await balance()).toBe(before);
    expect(
      await s.gw.db.extractionSchema.count({
        where: { org_id: orgId, metadata: { path: ['operation_id'], equals: opId } },
      }),
    ).toBe(1);
  });

  it('saves idempotently when an attempt runs again after a crash', async () => {
    // As if the worker died after saving and before writing the terminal status.
    await s.gw.db.operation.update({
      where: { id: opId },
      data: { status: 'in_progress', output: undefined, completed_at: null },
    });
    const outcome = await runOperation(
      s.workflowDeps,
      { operationId: opId, orgId, attempt: 1 },
      new AbortController().signal,
    );
    expect(outcome).toBe('completed');
    expect((await c.operations.get<any>(opId)).output.schema_id).toBe(out.schema_id);
    expect(
      await s.gw.db.extractionSchema.count({
        where: { org_id: orgId, metadata: { path: ['operation_id'], equals: opId } },
      }),
    ).toBe(1);
  });

  it('uses segment_ids and the title in the default key; refuses unparsed files and unknown models before charging', async () => {
    const segs = await c.files.segments(fileId);
    const narrow = await c.extract.generateSchema({
      file_id: fileId,
      title: 'Supplier invoice',
      segment_ids: [segs[0]!.id, segs[1]!.id],
    });
    expect(narrow.status).toBe(202);
    const done = await c.waitForOperation<any>((narrow.body as { operation_id: string }).operation_id);
    expect(done.status === 'completed' ? done.output.metrics.segmentCount : done.error).toBe(2);
    const before = await balance();
    const unparsed = (await c.files.upload(INVOICE, { knowledgeBaseId: kbId, filename: 'unparsed.pdf' })).file.id;
    await expect(c.extract.generateSchema({ file_id: unparsed })).rejects.toMatchObject({
      status: 409,
      code: 'file_must_be_parsed',
    });
    await expect(c.extract.generateSchema({ file_id: fileId, model_id: 'gpt-nonexistent' })).rejects.toMatchObject({
      status: 400,
      code: 'unsupported_model',
    });
    await expect(c.extract.generateSchema({ file_id: fileId, segment_ids: ['nope'] })).rejects.toMatchObject({
      status: 409,
      code: 'file_must_be_parsed',
    });
    expect(await balance()).toBe(before);
    const inv = await creditInvariants(s.gw, orgId);
    expect(inv.balance).toBe(inv.ledgerSum);
  });
});
