// File-path extraction jobs (POST /v1/files/{fileId}/extract and /v1/files/extract/bulk) through
// the HTTP API (libs/sdk) with the real parse and workflow workers: stages and events, the
// result_json artifact in an extract manifest, ajv validation, grounding citations, scope,
// idempotency and retries, cancel, bulk with parse-first, and unreadable artifacts.
import type { FakeOpenAiServer } from '@docfleet/models/test-servers';
import { ModelRegistry, readModelConfig } from '@docfleet/models';
import type { DocfleetClient } from '@docfleet/sdk';
import { waitUntil } from '@docfleet/testing';
import {
  corpus,
  creditInvariants,
  startWorkflowFixture,
  withGatewayModels,
  type WorkflowFixture,
  type WorkflowStack,
} from './stack';

const INVOICE = corpus('f_forms_invoices/invoice2data/AzureInterior.pdf');
const OTHER = corpus('f_forms_invoices/invoice2data/QualityHosting.pdf');

const SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Invoice',
  type: 'object',
  properties: {
    'Invoice Number': { type: 'string', description: 'the invoice number' },
    date: { type: 'string', format: 'date' },
    total_amount: { type: 'number', description: 'total amount due' },
    currency: { type: 'string' },
  },
  required: ['Invoice Number', 'total_amount'],
  additionalProperties: false,
};

let s: WorkflowStack;
let fake: FakeOpenAiServer;
let c: DocfleetClient;
let orgId: string;
let kbId: string;
let fileId: string;

let fx: WorkflowFixture;
beforeAll(async () => {
  fx = await startWorkflowFixture({ kbName: 'File extraction', file: INVOICE });
  ({ s, fake, c, orgId, kbId, fileId } = fx);
});
afterAll(() => fx.close());

const balance = async () => (await c.billing.credits()).credits.balance_credits;
const artifact = async (manifestId: string) => (await c.artifacts.get(manifestId, 'result_json')) as any;

describe('POST /v1/files/{fileId}/extract', () => {
  let jobId: string;
  let doc: any;

  it('queues an extract job under the default key, runs the five stages and writes result_json in an extract manifest, free', async () => {
    const before = await balance();
    const r = await c.files.extract(fileId, { schema: SCHEMA });
    const file = (await c.files.get(fileId)).file;
    expect(r.idempotent).toBe(false);
    expect(r.idempotency_key).toMatch(new RegExp(`^extract:${file.current_version.id}:[0-9a-f]{16}:[0-9a-f]{16}$`));
    expect(r.job).toMatchObject({ kind: 'extract', status: 'queued', percent: 0 });
    jobId = r.job.job_id;
    const done = await c.waitForJob(fileId, jobId);
    expect(done).toMatchObject({
      status: 'completed',
      kind: 'extract',
      percent: 100,
      error: null,
      stage: 'write-artifacts',
    });
    const result = done.result as {
      extraction_result_id: string;
      artifact_manifest_id: string;
      validation_errors: unknown[];
    };
    expect(result).toEqual({
      extraction_result_id: expect.any(String),
      artifact_manifest_id: expect.any(String),
      validation_errors: [],
    });

    const events = (await c.files.jobEvents(fileId, jobId)).events;
    expect(events.map((e) => e.event_type)).toEqual([
      'job.queued',
      'job.started',
      'extract.load-parse',
      'extract.build-evidence',
      'extract.extract',
      'extract.validate',
      'extract.write-artifacts',
      'job.completed',
    ]);

    const manifests = (await c.files.artefacts(fileId)).artifacts;
    const m = manifests.find((x) => x.id === result.artifact_manifest_id)!;
    expect(m).toMatchObject({ artifact_type: 'extract', job_id: jobId, file_version_id: file.current_version.id });
    expect(m.links).toEqual({
      result_json: `/v1/artifacts/${m.id}/result_json`,
      result_md: null,
      grounding_json: null,
      workbook_json: null,
      tables_json: null,
      pages: null,
      imgs: null,
    });
    // Under the same knowledge-base root as the parse bundles.
    const row = await s.gw.db.artifactManifest.findUniqueOrThrow({ where: { id: m.id } });
    expect(row.storage_prefix.startsWith(`kb/${kbId}/files/${fileId}/artifacts/`)).toBe(true);

    doc = await artifact(m.id);
    expect(Object.keys(doc).sort()).toEqual(
      [
        'citations',
        'data',
        'evidence',
        'jsonResult',
        'metrics',
        'modelId',
        'resultTree',
        'schema',
        'schema_name',
        'validationErrors',
        'warnings',
      ].sort(),
    );
    expect(doc.schema).toEqual(SCHEMA);
    expect(doc.schema_name).toBe('Invoice');
    expect(doc.modelId).toBe('docfleet-local');
    expect(doc.jsonResult).toEqual(doc.data);
    // Keys as the caller's schema names them.
    expect(typeof doc.data['Invoice Number']).toBe('string');
    expect(typeof doc.data.total_amount).toBe('number');
    expect(doc.validationErrors).toEqual([]);
    expect(doc.metrics).toMatchObject({
      modelCalls: 1,
      timedOut: false,
      pageCount: 1,
      extractedFieldCount: Object.keys(doc.data).length,
      citationCount: doc.citations.length,
    });
    expect(doc.metrics.durationMs).toEqual(expect.any(Number));
    expect(doc.evidence.length).toBe(doc.metrics.selectedSegmentCount);
    // Every citation is resolved against the grounding.
    expect(doc.citations.length).toBeGreaterThan(0);
    for (const cite of doc.citations) {
      expect(cite).toMatchObject({
        path: expect.stringMatching(/^\//),
        segmentId: expect.any(String),
        pageNumber: 1,
        elementId: expect.any(String),
        bbox: { x1: expect.any(Number), y1: expect.any(Number), x2: expect.any(Number), y2: expect.any(Number) },
      });
    }
    const totalCite = doc.citations.find((x: any) => x.path === '/total_amount');
    expect(totalCite.quote).toBeTruthy();
    // Node confidence is the minimum across its citations; tree in schema order with normalised field ids.
    expect(doc.resultTree.map((n: any) => n.fieldId)).toEqual([
      'field-invoice_number',
      'field-date',
      'field-total_amount',
      'field-currency',
    ]);
    for (const n of doc.resultTree) {
      if (n.citations.length) expect(n.confidence).toBe(Math.min(...n.citations.map((x: any) => x.confidence)));
      if (n.value === null) expect(n.missingReason).toBe('not_in_evidence');
    }
    const dbResult = await s.gw.db.extractionResult.findUniqueOrThrow({ where: { id: result.extraction_result_id } });
    expect(dbResult).toMatchObject({ job_id: jobId, artifact_manifest_id: m.id, model_id: 'docfleet-local' });
    expect(await balance()).toBe(before);
  });

  it('shows latest_extract_job and extract_artifacts on the index entry', async () => {
    const entry = (await c.knowledgeBases.index(kbId)).files.find((f) => f.file_id === fileId)!;
    const job = (await c.files.job(fileId, jobId)).job;
    expect(entry.latest_extract_job).toMatchObject({
      job_id: jobId,
      status: 'completed',
      stage: 'write-artifacts',
      percent: 100,
      error: null,
    });
    const mid = (job.result as { artifact_manifest_id: string }).artifact_manifest_id;
    expect(entry.extract_artifacts).toMatchObject({
      manifest_id: mid,
      links: { result_json: `/v1/artifacts/${mid}/result_json` },
    });
  });

  it('replays the same request as the existing job with idempotent: true', async () => {
    const r = await c.files.extract(fileId, { schema: SCHEMA });
    expect(r).toMatchObject({ idempotent: true, job: { job_id: jobId, status: 'completed' } });
    // Another schema name is another result document: new work.
    const named = await c.files.extract(fileId, { schema: SCHEMA, schema_name: 'invoice-v2' });
    expect(named.idempotent).toBe(false);
    expect(named.job.job_id).not.toBe(jobId);
    await c.waitForJob(fileId, named.job.job_id);
    // An explicit key names one job, whatever the body.
    const k = await c.files.extract(fileId, { schema: SCHEMA, idempotency_key: 'fx-1' });
    expect(
      await c.files.extract(fileId, {
        schema: { type: 'object', properties: { other: { type: 'string' } } },
        idempotency_key: 'fx-1',
      }),
    ).toMatchObject({ idempotent: true, job: { job_id: k.job.job_id } });
    await c.waitForJob(fileId, k.job.job_id);
  });

  it('validates the result with ajv (Draft 2020-12): validationErrors, schema_validation_error and required_value_missing warnings, missingReason', async () => {
    const strict = {
      type: 'object',
      properties: {
        invoice_number: { type: 'string', maxLength: 2, description: 'the invoice number' },
        purchase_order_number: { type: 'string', description: 'Purchase order reference' },
        total_amount: { type: 'number' },
      },
      required: ['invoice_number', 'purchase_order_number', 'total_amount'],
    };
    const r = await c.files.extract(fileId, { schema: strict, schema_name: 'strict' });
    const done = await c.waitForJob(fileId, r.job.job_id);
    expect(done).toMatchObject({ status: 'completed', error: null });
    const res = done.result as {
      artifact_manifest_id: string;
      validation_errors: Array<{ path: string; message: string }>;
    };
    const d = await artifact(res.artifact_manifest_id);
    expect(d.validationErrors).toEqual(res.validation_errors);
    expect(d.validationErrors).toEqual(
      expect.arrayContaining([
        { path: '/invoice_number', message: expect.stringMatching(/must NOT have more than 2 characters/) },
        { path: '/purchase_order_number', message: expect.stringMatching(/must have required property/) },
      ]),
    );
    const codes = d.warnings.map((w: any) => `${w.code} ${w.path}`);
    expect(codes).toEqual(
      expect.arrayContaining([
        'schema_validation_error /invoice_number',
        'schema_validation_error /purchase_order_number',
        'required_value_missing /purchase_order_number',
      ]),
    );
    const po = d.resultTree.find((n: any) => n.fieldId === 'field-purchase_order_number');
    expect(po).toMatchObject({ value: null, type: null, missingReason: 'not_in_evidence', citations: [] });
    expect(d.data).not.toHaveProperty('purchase_order_number');
  });

  it('narrows the evidence with options.scope', async () => {
    const segs = await c.files.segments(fileId);
    const r = await c.files.extract(fileId, { schema: SCHEMA, options: { scope: { segment_ids: [segs[0]!.id] } } });
    const done = await c.waitForJob(fileId, r.job.job_id);
    const d = await artifact((done.result as { artifact_manifest_id: string }).artifact_manifest_id);
    expect(d.metrics.selectedSegmentCount).toBe(1);
    expect(d.metrics.segmentCount).toBe(segs.length);
    expect(d.evidence.map((e: any) => e.segmentId)).toEqual([segs[0]!.id]);
    for (const cite of d.citations) expect(cite.segmentId).toBe(segs[0]!.id);
    // A page scope is part of the default key; page 1 is everything here.
    const p1 = await c.files.extract(fileId, { schema: SCHEMA, options: { scope: { pages: [1] } } });
    expect(p1.idempotency_key).not.toBe(r.idempotency_key);
    const p1done = await c.waitForJob(fileId, p1.job.job_id);
    expect(
      (await artifact((p1done.result as { artifact_manifest_id: string }).artifact_manifest_id)).metrics
        .selectedSegmentCount,
    ).toBe(segs.length);
  });

  it('refuses before queueing: schema_is_required, invalid_schema, file_must_be_parsed_before_extraction, unknown options', async () => {
    await expect(c.files.extract(fileId, {} as never)).rejects.toMatchObject({
      status: 400,
      code: 'schema_is_required',
    });
    await expect(
      c.files.extract(fileId, { schema: { type: 'object', properties: { a: { type: 'nonsense' } } } }),
    ).rejects.toMatchObject({ status: 422, code: 'invalid_schema' });
    await expect(c.files.extract(fileId, { schema: { type: 'string' } })).rejects.toMatchObject({
      status: 422,
      code: 'invalid_schema',
    });
    await expect(c.files.extract(fileId, { schema: SCHEMA, options: { scope: { pages: [7] } } })).rejects.toMatchObject(
      { status: 409, code: 'file_must_be_parsed_before_extraction' },
    );
    await expect(c.files.extract(fileId, { schema: SCHEMA, options: { bogus: true } as never })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request_body',
    });
    const unparsed = (await c.files.upload(INVOICE, { knowledgeBaseId: kbId, filename: 'unparsed.pdf' })).file.id;
    await expect(c.files.extract(unparsed, { schema: SCHEMA })).rejects.toMatchObject({
      status: 409,
      code: 'file_must_be_parsed_before_extraction',
    });
    // A new version without its own parse does not count as parsed.
    await c.files.replaceContent(fileId, OTHER);
    await expect(c.files.extract(fileId, { schema: SCHEMA })).rejects.toMatchObject({
      status: 409,
      code: 'file_must_be_parsed_before_extraction',
    });
    await c.waitForJob(fileId, (await c.files.parse(fileId)).job.job_id);
  });

  it('fails a job whose parse artifacts are unreadable with a reason, retries under a new derived key, and the worker keeps working', async () => {
    const file = (await c.files.get(fileId)).file;
    const m = await s.gw.db.artifactManifest.findFirstOrThrow({
      where: { file_version_id: file.current_version.id, artifact_type: 'parse' },
      orderBy: { created_at: 'desc' },
    });
    const segKey = `${m.storage_prefix}/segments.json`;
    const good = await s.gw.deps.storage.read(segKey);
    const schema = { type: 'object', properties: { total_amount: { type: 'number' } } };
    // Dispatch validates the parse, so corrupt it between dispatch and the worker: stop the worker.
    await s.workflow!.close(0);
    const r = await c.files.extract(fileId, { schema });
    await s.gw.deps.storage.put(segKey, '{ not json');
    const w = s.startWorkflow();
    try {
      const failed = await c.waitForJob(fileId, r.job.job_id);
      expect(failed).toMatchObject({
        status: 'failed',
        error: expect.stringMatching(/^file_must_be_parsed_before_extraction: /),
      });
      const ev = (await c.files.jobEvents(fileId, r.job.job_id)).events.at(-1)!;
      expect(ev).toMatchObject({
        event_type: 'job.failed',
        stage: 'load-parse',
        payload: { traceback: expect.any(String) },
      });
      await s.gw.deps.storage.put(segKey, good);
      const again = await c.files.extract(fileId, { schema });
      expect(again).toMatchObject({
        idempotent: false,
        retry_of_job_id: r.job.job_id,
        idempotency_key: `${r.idempotency_key}:retry-1`,
      });
      expect(await c.waitForJob(fileId, again.job.job_id)).toMatchObject({ status: 'completed' });
    } finally {
      await w.close(0);
      s.workflow = s.startWorkflow();
    }
  });
});

describe('a retried attempt', () => {
  it('reports the failed attempt with its message and traceback redacted (no paths, no stack frames), then completes', async () => {
    // The storage write of result_json fails once the way a file system does: its message names the
    // path, its stack the worker's source files. The attempt is retried (not a permanent failure).
    const storage = s.workflowDeps.storage;
    const realPut = storage.put;
    let failures = 0;
    storage.put = async function (this: unknown, key: string, ...rest: unknown[]) {
      if (key.endsWith('/result.json') && failures++ === 0) {
        throw Object.assign(new Error(`EACCES: permission denied, open '/srv/docfleet/data/${key}'`), {
          code: 'EACCES',
        });
      }
      return (realPut as (...a: unknown[]) => Promise<unknown>).call(storage, key, ...rest);
    } as typeof storage.put;
    try {
      const r = await c.files.extract(fileId, { schema: SCHEMA, idempotency_key: 'retried-attempt' });
      const done = await c.waitForJob(fileId, r.job.job_id);
      expect(done).toMatchObject({ status: 'completed', error: null });
      const { events } = await c.files.jobEvents(fileId, r.job.job_id);
      const retry = events.filter((e) => e.event_type === 'extract.attempt_failed');
      expect(retry).toHaveLength(1);
      expect(retry[0]).toMatchObject({
        stage: 'write-artifacts',
        message: "Attempt 1 failed (Extraction failed: EACCES: permission denied, open '<path>'); retrying.",
        payload: { attempt: 1, traceback: "Error [EACCES]: EACCES: permission denied, open '<path>'" },
      });
      for (const e of events) expect(JSON.stringify(e)).not.toMatch(/\/srv\/|\bat [\w.<>]+ \(|\.ts:\d+/);
    } finally {
      storage.put = realPut;
    }
  });
});

describe('cancel', () => {
  it('cancels a queued extract job at once; a worker started later leaves it cancelled', async () => {
    await s.workflow!.close(0);
    const r = await c.files.extract(fileId, { schema: SCHEMA, idempotency_key: 'cancel-queued' });
    const cancelled = (await c.files.cancelJob(fileId, r.job.job_id)).job;
    expect(cancelled).toMatchObject({ status: 'cancelled', cancel_requested_at: expect.any(String) });
    s.workflow = s.startWorkflow();
    await new Promise((res) => setTimeout(res, 500));
    expect((await c.files.job(fileId, r.job.job_id)).job.status).toBe('cancelled');
    expect(await s.gw.db.artifactManifest.count({ where: { job_id: r.job.job_id } })).toBe(0);
  });

  it('stops a running job at the next stage boundary: a cancel during the model call writes nothing', async () => {
    // The deployment default becomes a remote model that takes a while to answer.
    const keep = s.workflowDeps.models;
    const slow = new ModelRegistry(
      readModelConfig({
        OPENAI_BASE_URL: `${fake.url}/v1`,
        OPENAI_MODELS: 'remote-small',
        MODEL_DEFAULT: 'remote-small',
        MODEL_MAX_RETRIES: '0',
      }),
    );
    s.workflowDeps.models = slow;
    try {
      await withGatewayModels(s, { MODEL_DEFAULT: 'remote-small' }, fx.key, async (c) => {
        fake.enqueue({
          delayMs: 1500,
          reply: { json: { jsonResult: { total_amount: 1 }, citations: [], warnings: [] } },
        });
        const r = await c.files.extract(fileId, { schema: SCHEMA, idempotency_key: 'cancel-running' });
        let stage: string | null | undefined;
        await waitUntil(
          `extract job ${r.job.job_id} to reach its extract stage`,
          async () => (stage = (await c.files.job(fileId, r.job.job_id)).job.stage) === 'extract',
          { timeoutMs: 5000, detail: () => `stage ${stage}` },
        );
        const flagged = (await c.files.cancelJob(fileId, r.job.job_id)).job;
        expect(flagged).toMatchObject({ status: 'running', cancel_requested_at: expect.any(String) });
        const end = await c.waitForJob(fileId, r.job.job_id);
        expect(end).toMatchObject({ status: 'cancelled' });
        const types = (await c.files.jobEvents(fileId, r.job.job_id)).events.map((e) => e.event_type);
        expect(types).toContain('job.cancel_requested');
        expect(types.at(-1)).toBe('job.cancelled');
        expect(types).not.toContain('extract.validate');
        expect(await s.gw.db.artifactManifest.count({ where: { job_id: r.job.job_id } })).toBe(0);
        expect(await s.gw.db.extractionResult.count({ where: { job_id: r.job.job_id } })).toBe(0);
      });
    } finally {
      s.workflowDeps.models = keep;
    }
  });
});

describe('a remote model', () => {
  it('passes its citations through resolved against the grounding and adds grounding citations for uncited values', async () => {
    const keep = s.workflowDeps.models;
    const remote = new ModelRegistry(
      readModelConfig({
        OPENAI_BASE_URL: `${fake.url}/v1`,
        OPENAI_MODELS: 'remote-small',
        MODEL_DEFAULT: 'remote-small',
        MODEL_MAX_RETRIES: '0',
      }),
    );
    s.workflowDeps.models = remote;
    try {
      await withGatewayModels(s, { MODEL_DEFAULT: 'remote-small' }, fx.key, async (c) => {
        const segs = await c.files.segments(fileId);
        // A value the model cites, and one it returns without a citation that the grounding holds verbatim.
        // A text segment with a figure and a plain word (a figure's markdown names its image file).
        const wordOf = (md: string) => md.split(/\s+/).find((t) => /^[A-Za-z]{4,}$/.test(t));
        const seg = segs.find((x) => /\d/.test(x.markdown) && !x.markdown.startsWith('![') && wordOf(x.markdown))!;
        const word = wordOf(seg.markdown)!;
        fake.enqueue({
          reply: {
            json: {
              jsonResult: { invoice_number: 'X-1', date: null, total_amount: null, currency: word },
              citations: [
                {
                  path: '/invoice_number',
                  segmentId: seg.id,
                  pageNumber: 1,
                  quote: 'not in the text',
                  confidence: 0.9,
                },
              ],
              warnings: [{ code: 'low_contrast', message: 'hard to read' }],
            },
          },
        });
        const r = await c.files.extract(fileId, { schema: SCHEMA, idempotency_key: 'remote-1' });
        const done = await c.waitForJob(fileId, r.job.job_id);
        const d = await artifact((done.result as { artifact_manifest_id: string }).artifact_manifest_id);
        expect(d.modelId).toBe('remote-small');
        expect(d.data).toEqual({ 'Invoice Number': 'X-1', currency: word });
        const modelCite = d.citations.find((x: any) => x.path === '/Invoice Number');
        expect(modelCite).toMatchObject({
          segmentId: seg.id,
          confidence: 0.9,
          source: 'model',
          elementId: seg.elementIds![0],
          bbox: expect.any(Object),
        });
        const found = d.citations.find((x: any) => x.path === '/currency');
        expect(found).toMatchObject({ source: 'grounding', elementId: expect.any(String), bbox: expect.any(Object) });
        expect(found.quote.toLowerCase()).toContain(word.toLowerCase());
        expect(d.warnings).toEqual(
          expect.arrayContaining([
            { code: 'low_contrast', message: 'hard to read' },
            expect.objectContaining({ code: 'required_value_missing', path: '/total_amount' }),
          ]),
        );
        const currencyNode = d.resultTree.find((n: any) => n.fieldId === 'field-currency');
        expect(currencyNode.confidence).toBe(found.confidence);
      });
    } finally {
      s.workflowDeps.models = keep;
    }
  });
});

describe('POST /v1/files/extract/bulk', () => {
  it('parses unparsed files first (charged as parse), then extracts; keys are <key>:<file_id>; replays return the same jobs', async () => {
    const fresh = (await c.files.upload(OTHER, { knowledgeBaseId: kbId, filename: 'bulk-unparsed.pdf' })).file.id;
    const before = await balance();
    const r = await c.files.extractBulk({ file_ids: [fileId, fresh], schema: SCHEMA, idempotency_key: 'bulk-1' });
    expect(r.jobs.map((j) => j.idempotency_key)).toEqual([`bulk-1:${fileId}`, `bulk-1:${fresh}`]);
    expect(r.jobs[0]).not.toHaveProperty('parse_job');
    const parseJob = (r.jobs[1] as any).parse_job;
    expect(parseJob).toMatchObject({ kind: 'parse' });
    const [a, b] = await Promise.all([
      c.waitForJob(fileId, r.jobs[0]!.job.job_id),
      c.waitForJob(fresh, r.jobs[1]!.job.job_id),
    ]);
    expect(a.status).toBe('completed');
    expect(b.status).toBe('completed');
    expect((await c.files.job(fresh, parseJob.job_id)).job.status).toBe('completed');
    // The parse was charged per page; the extractions were not.
    const pages = (await c.files.get(fresh)).file.current_version.page_count!;
    expect(pages).toBe(2);
    expect(await balance()).toBe(before - pages);
    const types = (await c.files.jobEvents(fresh, r.jobs[1]!.job.job_id)).events.map((e) => e.event_type);
    expect(types[0]).toBe('job.queued');
    expect(types.at(-1)).toBe('job.completed');
    const again = await c.files.extractBulk({ file_ids: [fileId, fresh], schema: SCHEMA, idempotency_key: 'bulk-1' });
    expect(again.jobs.map((j) => [j.job.job_id, j.idempotent])).toEqual(r.jobs.map((j) => [j.job.job_id, true]));
    expect(await balance()).toBe(before - pages);
  });

  it('is not atomic: the first failure aborts and names the file, earlier jobs keep running', async () => {
    const missing = '00000000-0000-4000-8000-000000000000';
    const err = await c.files
      .extractBulk({ file_ids: [fileId, missing], schema: SCHEMA, idempotency_key: 'bulk-2' })
      .catch((e) => e);
    expect(err).toMatchObject({ status: 404, code: 'file_not_found' });
    const kept = await s.gw.db.job.findFirstOrThrow({
      where: { org_id: orgId, kind: 'extract', idempotency_key: `bulk-2:${fileId}` },
    });
    expect((await c.waitForJob(fileId, kept.id)).status).toBe('completed');
    await expect(c.files.extractBulk({ file_ids: [fileId] } as never)).rejects.toMatchObject({
      status: 400,
      code: 'schema_is_required',
    });
  });

  it('fails the extraction with a reason when the parse it waits for fails', async () => {
    const broken = (
      await c.files.upload(Buffer.from('%PDF-1.7\nthis is not really a pdf'), {
        knowledgeBaseId: kbId,
        filename: 'broken.pdf',
      })
    ).file.id;
    const r = await c.files.extractBulk({ file_ids: [broken], schema: SCHEMA });
    const parseJob = (r.jobs[0] as any).parse_job;
    expect((await c.waitForJob(broken, parseJob.job_id)).status).toBe('failed');
    const ex = await c.waitForJob(broken, r.jobs[0]!.job.job_id);
    expect(ex).toMatchObject({
      status: 'failed',
      error: expect.stringContaining(`(job ${parseJob.job_id}) ended failed`),
    });
  });

  it('keeps the ledger and the balance in agreement with no reservation left open', async () => {
    const inv = await creditInvariants(s.gw, orgId);
    expect(inv.balance).toBe(inv.ledgerSum);
    expect(inv.openReservations).toBe(0);
  });
});
