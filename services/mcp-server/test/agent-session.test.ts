// A realistic agent session through the tool server against a running fleet (gateway, parse,
// index and workflow workers): create a knowledge base, upload a corpus invoice by absolute path,
// parse it, poll the job, read its artifacts, search, then (once the workflow endpoints exist)
// extract, split, download a record and check what it all cost. Everything goes through the MCP
// SDK's Client exactly as an agent host would call it.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { INVOICE_PDF, startFleet, waitUntil, type Fleet } from '@docfleet/testing';
import { connect, part, textOf, type McpSession } from './mcp-client';

let fleet: Fleet;
let mcp: McpSession;
let key: string;
let pdf: string;
let kbId: string;
let fileId: string;
/** Calls a read-only tool until `done` holds, like an agent polling (short interval: a test). */
function pollTool<T>(name: string, args: Record<string, unknown>, done: (v: T) => boolean, ms = 90_000): Promise<T> {
  let last: T | undefined;
  return waitUntil(
    `${name} ${JSON.stringify(args)} to reach the expected state`,
    async () => {
      last = await mcp.json<T>(name, args);
      return done(last) ? { v: last } : false;
    },
    { timeoutMs: ms, intervalMs: 400, detail: () => `last: ${JSON.stringify(last).slice(0, 800)}\n${fleet.logs()}` },
  ).then(({ v }) => v);
}
const TERMINAL = ['completed', 'failed', 'cancelled'];

beforeAll(async () => {
  fleet = await startFleet();
  ({ key } = await fleet.createOrg({ credits: 40 }));
  mcp = await connect({ SERVICE_API_KEY: key, SERVICE_BASE_URL: fleet.url, SERVICE_MCP_ALLOW_DESTRUCTIVE: 'true' });
  pdf = await fleet.corpusCopy(INVOICE_PDF);
}, 120_000);
afterAll(async () => {
  await mcp?.close();
  if (mcp) expect(mcp.stderr()).not.toContain(key);
  await fleet?.close();
});

describe('agent session: knowledge base, upload, parse, read, search', () => {
  it('creates a knowledge base and finds it; a second one of the same name is refused with the code', async () => {
    const { knowledge_base: kb } = await mcp.json('service_create_knowledge_base', {
      name: 'Supplier invoices',
      description: 'agent session',
    });
    kbId = kb.id;
    expect(kb).toMatchObject({ name: 'Supplier invoices', description: 'agent session' });
    const { knowledge_bases } = await mcp.json('service_list_knowledge_bases');
    expect(knowledge_bases.map((k: { id: string }) => k.id)).toContain(kbId);
    const dup = await mcp.error('service_create_knowledge_base', { name: 'SUPPLIER INVOICES' });
    expect(dup.split('\n')[0]).toMatch(/^POST \/v1\/knowledge-bases -> HTTP 409 duplicate_knowledge_base_name: /);
    expect(dup).toContain('service_list_knowledge_bases');
  });

  it('uploads a file by absolute path without parsing it; reading before the parse names the file', async () => {
    const up = await mcp.json('service_upload_file', { path: pdf, kb_id: kbId });
    fileId = up.file.id;
    expect(up.file).toMatchObject({ filename: 'AzureInterior.pdf', knowledge_base_id: kbId });
    expect(up.uploaded_bytes).toBe((await stat(pdf)).size);
    expect(up.file.current_version.byte_size).toBe(up.uploaded_bytes);
    expect(up.parse_job).toBeUndefined();

    const { files } = await mcp.json('service_list_files', { kb_id: kbId });
    expect(files.map((f: { id: string }) => f.id)).toEqual([fileId]);
    const index = await mcp.json('service_kb_index', { kb_id: kbId });
    expect(index.files[0]).toMatchObject({ file_id: fileId, latest_parse_job: null, parse_artifacts: null });

    const never = await mcp.error('service_read_artifact', { file_id: fileId, key: 'result_md' });
    expect(never).toContain(`file "AzureInterior.pdf" (${fileId}) has never been parsed`);
    expect(never).toContain('service_parse_file');
    expect(await mcp.error('service_get_segments', { file_id: fileId })).toMatch(
      new RegExp(`^GET /v1/files/${fileId}/segments -> HTTP 409 file_must_be_parsed`),
    );
  });

  it('parses, polls the job to completion, and is charged one credit for the one page', async () => {
    const before = (await mcp.json('service_credits')).credits;
    const r = await mcp.json('service_parse_file', { file_id: fileId });
    expect(r.job).toMatchObject({ status: 'queued', kind: 'parse' });
    expect(r.next).toMatch(/service_job_status/);
    const jobId = r.job.job_id;
    // Asking again while it runs returns the same job, not a second charge.
    expect((await mcp.json('service_parse_file', { file_id: fileId })).job.job_id).toBe(jobId);

    const { job } = await pollTool<{ job: { status: string } }>(
      'service_job_status',
      { file_id: fileId, job_id: jobId },
      (v) => TERMINAL.includes(v.job.status),
    );
    expect(job).toMatchObject({ status: 'completed', percent: 100, total_pages: 1, error: null });
    // A bulk parse of the unchanged file hands back the finished job instead of charging again.
    expect(
      (await mcp.json('service_parse_bulk', { file_ids: [fileId] })).jobs.map(
        (j: { job: { job_id: string } }) => j.job.job_id,
      ),
    ).toEqual([jobId]);
    const withEvents = await mcp.json('service_job_status', { file_id: fileId, job_id: jobId, include_events: true });
    expect(withEvents.events.map((e: { event_type: string }) => e.event_type)).toContain('parse.started');

    const index = await mcp.json('service_kb_index', { kb_id: kbId });
    expect(index.files[0].latest_parse_job).toMatchObject({ job_id: jobId, status: 'completed' });
    const after = await mcp.json('service_credits');
    expect(after.credits.total_used_credits - before.total_used_credits).toBe(1);
    expect(after.credits).toMatchObject({ balance_credits: before.balance_credits - 1, reserved_credits: 0 });
    expect(after.available_credits).toBe(after.credits.balance_credits);
  });

  it('reads the markdown and the other artifacts of the newest parse, and explains missing ones', async () => {
    const md = await mcp.call('service_read_artifact', { file_id: fileId, key: 'result_md' });
    expect(md.isError).toBeFalsy();
    const about = JSON.parse(part(md, 0));
    expect(about).toMatchObject({
      file_id: fileId,
      key: 'result_md',
      artifact_type: 'parse',
      truncated: false,
      manifest: { page_count: 1 },
    });
    const markdown = part(md, 1);
    expect(markdown).toContain('INV/2023/03/0008');
    expect(markdown).toMatch(/Beeswax/);

    const grounding = JSON.parse(
      part(await mcp.call('service_read_artifact', { file_id: fileId, key: 'grounding_json' }), 1),
    );
    expect(grounding.document).toMatchObject({ filename: 'AzureInterior.pdf', page_count: 1 });
    expect(grounding.pages[0].elements.length).toBeGreaterThan(3);
    const pages = JSON.parse(part(await mcp.call('service_read_artifact', { file_id: fileId, key: 'pages' }), 1));
    expect(pages.entries.map((e: { name: string }) => e.name)).toContain('page_0001.png');

    expect(await mcp.error('service_read_artifact', { file_id: fileId, key: 'workbook_json' })).toMatch(
      /the newest parse of file "AzureInterior\.pdf" .* has no workbook_json: only spreadsheets/,
    );
    expect(await mcp.error('service_read_artifact', { file_id: fileId, key: 'result_json' })).toMatch(
      /file "AzureInterior\.pdf" .* has never been extracted/,
    );
  });

  it('finds the invoice by search, with a citable segment that the segments tool also returns', async () => {
    const found = await pollTool<{ hits: Array<Record<string, any>> }>(
      'service_search',
      { kb_id: kbId, query: 'beeswax', limit: 5 },
      (v) => v.hits.length > 0,
      30_000,
    );
    const hit = found.hits[0];
    expect(hit).toMatchObject({
      file_id: fileId,
      doc_name: 'AzureInterior.pdf',
      page: 1,
      segment_id: expect.any(String),
    });
    expect(hit.markdown).toMatch(/beeswax/i);
    expect(
      (await mcp.json('service_search', { kb_id: kbId, query: 'beeswax', file_ids: [randomUUID()] })).hits,
    ).toEqual([]);

    const { segments, count } = await mcp.json('service_get_segments', { file_id: fileId });
    expect(count).toBe(segments.length);
    expect(segments.map((s: { id: string }) => s.id)).toContain(hit.segment_id);
    expect(segments[0].coordinates).toMatchObject({ pageNumber: 1 });
  });

  it('reports API failures with status, method, path, code and message', async () => {
    const jobId = randomUUID();
    const text = await mcp.error('service_job_status', { file_id: fileId, job_id: jobId });
    expect(text.split('\n')[0]).toMatch(
      new RegExp(`^GET /v1/files/${fileId}/jobs/${jobId} -> HTTP 404 job_not_found: .+`),
    );
    const info = JSON.parse(text.split('\n').at(-1)!).error;
    expect(info).toMatchObject({
      status: 404,
      method: 'GET',
      path: `/v1/files/${fileId}/jobs/${jobId}`,
      code: 'job_not_found',
      message: expect.any(String),
      request_id: expect.any(String),
    });
    expect(text).not.toContain(key);
  });

  it('trashes a file, permanently deletes it, and permanently deletes a knowledge base (gated tools)', async () => {
    const copy = path.join(path.dirname(pdf), 'copy.pdf');
    await (await import('node:fs/promises')).writeFile(copy, await readFile(pdf));
    const { file } = await mcp.json('service_upload_file', { path: copy, kb_id: kbId });
    const trashed = await mcp.json('service_delete_file', { file_id: file.id });
    expect(trashed.file.deleted_at).toEqual(expect.any(String));
    expect((await mcp.json('service_list_files', { kb_id: kbId })).files.map((f: { id: string }) => f.id)).toEqual([
      fileId,
    ]);
    expect(await mcp.json('service_permanent_delete_file', { file_id: file.id })).toMatchObject({
      deleted: true,
      permanent: true,
      file_id: file.id,
    });

    const scratch = (await mcp.json('service_create_knowledge_base', { name: 'scratch' })).knowledge_base;
    expect(await mcp.json('service_delete_knowledge_base', { kb_id: scratch.id })).toMatchObject({
      deleted: true,
      permanent: true,
      knowledge_base_id: scratch.id,
    });
    expect(
      (await mcp.json('service_list_knowledge_bases')).knowledge_bases.map((k: { id: string }) => k.id),
    ).not.toContain(scratch.id);
  });
});

describe('agent session: extraction, split, download and what it cost', () => {
  const INVOICE_SCHEMA = {
    type: 'object',
    properties: { invoice_number: { type: 'string' }, total: { type: 'number' } },
    required: ['invoice_number'],
  };
  let creditsBefore: { total_used_credits: number };
  let charged = 0;
  const op = (id: string) =>
    pollTool<{ status: string; output: any; error: string | null }>(
      'service_operation_status',
      { operation_id: id },
      (v) => TERMINAL.includes(v.status),
      180_000,
    );

  beforeAll(async () => {
    expect(fileId).toEqual(expect.any(String)); // the first part of the session parsed the invoice
    creditsBefore = (await mcp.json('service_credits')).credits;
  });

  it('extracts with a JSON Schema as a file job and reads result_json with citations', async () => {
    const r = await mcp.json('service_extract', { file_id: fileId, schema: INVOICE_SCHEMA });
    expect(r.job).toMatchObject({ kind: 'extract' });
    const { job } = await pollTool<{ job: { status: string; error: string | null } }>(
      'service_job_status',
      { file_id: fileId, job_id: r.job.job_id },
      (v) => TERMINAL.includes(v.job.status),
    );
    expect(job).toMatchObject({ status: 'completed', error: null });
    const res = await mcp.call('service_read_artifact', { file_id: fileId, key: 'result_json' });
    expect(JSON.parse(part(res, 0))).toMatchObject({ artifact_type: 'extract', key: 'result_json' });
    const doc = JSON.parse(part(res, 1));
    expect(Object.keys(doc.jsonResult)).toEqual(expect.arrayContaining(['invoice_number']));
    expect(Array.isArray(doc.citations)).toBe(true);
  });

  it('runs a field-list extraction as an operation and polls it to its output', async () => {
    const r = await mcp.json('service_extract_run', {
      file_id: fileId,
      schema: {
        title: 'Invoice',
        fields: [
          { name: 'Invoice Number', type: 'string', description: 'the invoice number' },
          { name: 'total', type: 'number' },
        ],
      },
    });
    charged++;
    expect(r).toMatchObject({ operation_id: expect.any(String), status: 'queued' });
    const done = await op(r.operation_id);
    expect(done).toMatchObject({ status: 'completed', error: null });
    expect(Object.keys(done.output.jsonResult).sort()).toEqual(['invoice_number', 'total']);
  });

  it('generates a schema, lists it, and extracts in bulk with it', async () => {
    const gen = await mcp.json('service_generate_schema', { file_id: fileId, title: 'Generated invoice schema' });
    charged++;
    const out = (await op(gen.operation_id)).output;
    expect(out).toMatchObject({ schema_id: expect.any(String), jsonSchema: { type: 'object' } });
    const { schemas } = await mcp.json('service_list_schemas');
    expect(schemas.map((x: { id: string }) => x.id)).toContain(out.schema_id);

    const bulk = await mcp.json('service_extract_bulk', { file_ids: [fileId], schema_id: out.schema_id });
    expect(bulk.jobs).toHaveLength(1);
    const { job } = await pollTool<{ job: { status: string } }>(
      'service_job_status',
      { file_id: fileId, job_id: bulk.jobs[0].job.job_id },
      (v) => TERMINAL.includes(v.job.status),
    );
    expect(job.status).toBe('completed');
    expect(await mcp.error('service_extract_bulk', { file_ids: [fileId], schema_id: randomUUID() })).toMatch(
      /^GET \/v1\/extract\/schemas\/[0-9a-f-]+ -> HTTP 404 schema_not_found/,
    );
  });

  it('suggests classes and classifies the document', async () => {
    const suggested = await mcp.json('service_suggest_classes', {
      file_id: fileId,
      guidelines: 'kinds of business documents',
    });
    charged++;
    expect(suggested.classes.length).toBeGreaterThan(0);
    const r = await mcp.json('service_classify', { file_id: fileId, classes: ['invoice', 'contract', 'letter'] });
    charged++;
    expect(['invoice', 'contract', 'letter']).toContain(r.document.class);
    expect(r.pages.map((p: { page_number: number }) => p.page_number)).toEqual([1]);
  });

  it('splits with suggested rules, then with rules, and downloads a record as a PDF', async () => {
    const suggest = await mcp.json('service_split', { file_id: fileId, suggest_rules: true });
    charged++;
    expect(suggest.mode).toBe('rules_suggest');
    const rules = (await op(suggest.operation_id)).output.rules;
    expect(rules.length).toBeGreaterThan(0);

    const run = await mcp.json('service_split', { file_id: fileId, rules });
    charged++;
    expect(run.mode).toBe('split_run');
    const session = (await op(run.operation_id)).output;
    expect(session.records.length).toBeGreaterThan(0);
    const rec = session.records[0];

    const outDir = path.join(fleet.tmp, 'records');
    const saved = await mcp.json('service_split_download', {
      file_id: fileId,
      start_page: rec.startPage,
      end_page: rec.endPage,
      title: rec.title || 'record',
      out_dir: outDir,
    });
    expect(path.dirname(saved.path)).toBe(outDir);
    const bytes = await readFile(saved.path);
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(saved.bytes).toBe(bytes.length);
    // A second download of the same record never overwrites the first.
    const again = await mcp.json('service_split_download', {
      file_id: fileId,
      start_page: rec.startPage,
      end_page: rec.endPage,
      title: rec.title || 'record',
      out_dir: outDir,
    });
    expect(again.path).not.toBe(saved.path);
  });

  it('charged exactly one credit per model workflow run and nothing for the file extraction or downloads', async () => {
    const after = (await mcp.json('service_credits')).credits;
    expect(after.total_used_credits - creditsBefore.total_used_credits).toBe(charged);
    expect(textOf(await mcp.call('service_credits'))).not.toContain(key);
  });
});
