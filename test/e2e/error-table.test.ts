// The interface's error table, walked row by row against the real fleet (`pnpm start`): for each row one
// request made in that row's situation, answered with that row's status and code (issue 13.1). The
// table is the repository's own docs/errors.md (its rows whose Source is `spec`, the interface's
// contract), so a row added there without a case here fails the test.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { createTestDb, waitUntil, type TestDb } from '@docfleet/testing';
import { root, startFleet, type Fleet } from './fleet-process';

const ERRORS_DOC = path.join(root, 'docs/errors.md');

/** `| status | code | meaning | spec |` rows of docs/errors.md's "## HTTP errors" table. */
function specRows(): Array<{ status: number; code: string }> {
  const text = readFileSync(ERRORS_DOC, 'utf8');
  const start = text.indexOf('\n## HTTP errors\n');
  const section = text.slice(start, text.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((l) => /^\|\s*\d{3}\s*\|/.test(l))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    )
    .filter((cells) => cells[cells.length - 1] === 'spec')
    .map(([status, code]) => ({ status: Number(status), code: code! }));
}

let t: TestDb;
let dataDir: string;
let fleet: Fleet | undefined;
beforeAll(async () => {
  t = await createTestDb();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-errtable-'));
});
afterAll(async () => {
  fleet?.kill();
  await t.drop();
  await rm(dataDir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  code?: string;
}
type Case = () => Promise<Answer>;

describe('the error table of docs/errors.md', () => {
  it('answers every row with its status and code, one request each', async () => {
    const rows = specRows();
    expect(rows.length).toBeGreaterThan(20);
    // MODEL_DEFAULT=none: no default model is configured (the row for 503 model_provider_unavailable).
    fleet = await startFleet({
      DATABASE_URL: t.url,
      DATA_DIR: dataDir,
      MODEL_DEFAULT: 'none',
      RATE_LIMIT_POINTS: '100000',
    });
    const f = fleet;
    const env = { ...process.env, DATABASE_URL: t.url };
    const cli = (args: string[], input?: string) =>
      JSON.parse(
        execFileSync('pnpm', ['--silent', 'docfleet', 'admin', ...args, '--json'], {
          cwd: root,
          env,
          input,
          encoding: 'utf8',
        }),
      );

    async function call(
      method: string,
      p: string,
      o: { key?: string; body?: unknown; headers?: Record<string, string>; form?: FormData } = {},
    ): Promise<Answer & { body: any }> {
      const headers: Record<string, string> = { ...(o.key ? { 'x-api-key': o.key } : {}), ...o.headers };
      let body: string | FormData | undefined = o.form;
      if (o.body !== undefined) {
        body = JSON.stringify(o.body);
        headers['content-type'] = 'application/json';
      }
      const r = await fetch(f.baseUrl + p, { method, headers, body });
      const text = await r.text();
      let parsed: any = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: r.status, code: parsed?.code, body: parsed };
    }
    const pdf = async (text: string) => {
      const doc = await PDFDocument.create();
      const font = await doc.embedFont(StandardFonts.Helvetica);
      doc.addPage([300, 200]).drawText(text, { x: 20, y: 100, size: 14, font });
      return doc.save();
    };
    async function upload(key: string, kb: string, name: string) {
      const form = new FormData();
      form.append('knowledge_base_id', kb);
      form.append('file', new Blob([await pdf(`document ${name}`)], { type: 'application/pdf' }), name);
      const r = await call('POST', '/v1/files', { key, form });
      if (r.status !== 201) throw new Error(`upload: ${JSON.stringify(r.body)}`);
      return r.body.file.id as string;
    }
    async function newKb(key: string, name = `kb-${randomUUID().slice(0, 8)}`) {
      return (await call('POST', '/v1/knowledge-bases', { key, body: { name } })).body.knowledge_base.id as string;
    }

    // Fixtures: an organisation with credits, a parsed file and an unparsed one, a broke organisation,
    // one over its monthly quota, and a viewer session.
    const rich = cli(['create-org', '--name', 'rich', '--credits', '100']);
    const key: string = rich.api_key;
    const kb = await newKb(key, 'Contracts');
    const parsed = await upload(key, kb, 'parsed.pdf');
    const unparsed = await upload(key, kb, 'unparsed.pdf');
    const job = (await call('POST', `/v1/files/${parsed}/parse`, { key, body: {} })).body.job.job_id as string;
    let status = '';
    await waitUntil(
      `the fixture parse (job ${job}) to complete`,
      async () => {
        status = (await call('GET', `/v1/files/${parsed}/jobs/${job}`, { key })).body.job.status;
        if (status === 'failed') throw new Error(`the fixture parse failed\n${f.out()}`);
        return status === 'completed';
      },
      { timeoutMs: 120_000, intervalMs: 200, detail: () => `job ${status}\n${f.out()}` },
    );
    const manifest = (await call('GET', `/v1/files/${parsed}/artefacts`, { key })).body;
    const manifestId: string = manifest.artifacts[0].id;
    const broke = cli(['create-org', '--name', 'broke']);
    const brokeFile = await upload(broke.api_key, await newKb(broke.api_key), 'broke.pdf');
    const capped = cli(['create-org', '--name', 'capped', '--credits', '100', '--monthly-quota', '0']);
    const cappedFile = await upload(capped.api_key, await newKb(capped.api_key), 'capped.pdf');
    const email = `viewer-${randomUUID().slice(0, 8)}@example.test`;
    cli(
      ['create-user', '--org', rich.org_id, '--email', email, '--role', 'viewer', '--password-stdin'],
      'correct horse battery staple\n',
    );
    const login = await call('POST', '/v1/auth/login', { body: { email, password: 'correct horse battery staple' } });
    const viewer = { authorization: `Bearer ${login.body.token}`, 'x-service-org-id': rich.org_id };
    const fields = { fields: [{ name: 'total', type: 'number' }] };
    const nowhere = randomUUID();

    const cases: Record<string, Case> = {
      confirmation_required: () => call('DELETE', `/v1/knowledge-bases/${kb}`, { key }),
      invalid_request_body: () =>
        call('POST', `/v1/knowledge-bases/${kb}/search`, { key, body: { query: 42, limit: 'many' } }),
      file_id_is_required: () => call('POST', '/v1/extract/runs', { key, body: { schema: fields } }),
      schema_is_required: () => call('POST', `/v1/files/${parsed}/extract`, { key, body: {} }),
      unsupported_model: () =>
        call('POST', '/v1/extract/runs', { key, body: { file_id: parsed, schema: fields, model_id: 'no-such-model' } }),
      invalid_api_key: () => call('GET', '/v1/knowledge-bases', { key: 'dfk_not_a_real_key' }),
      insufficient_credits: () => call('POST', `/v1/files/${brokeFile}/parse`, { key: broke.api_key, body: {} }),
      monthly_quota_exceeded: () => call('POST', `/v1/files/${cappedFile}/parse`, { key: capped.api_key, body: {} }),
      api_key_org_mismatch: () =>
        call('GET', '/v1/knowledge-bases', { key, headers: { 'x-service-org-id': broke.org_id } }),
      permission_required: () => call('POST', `/v1/files/${unparsed}/parse`, { headers: viewer, body: {} }),
      invalid_artefact_child_path: () =>
        call('GET', `/v1/artifacts/${manifestId}/pages?file=${encodeURIComponent('../../secrets')}`, { key }),
      file_not_found: () => call('GET', `/v1/files/${nowhere}`, { key }),
      job_not_found: () => call('GET', `/v1/files/${parsed}/jobs/${nowhere}`, { key }),
      operation_not_found: () => call('GET', `/v1/operations/${nowhere}`, { key }),
      schema_not_found: () => call('GET', `/v1/extract/schemas/${nowhere}`, { key }),
      artefact_manifest_not_found: () => call('GET', `/v1/artifacts/${nowhere}/markdown`, { key }),
      artefact_not_found: () => call('GET', `/v1/artifacts/${manifestId}/no-such-artifact`, { key }),
      duplicate_knowledge_base_name: () => call('POST', '/v1/knowledge-bases', { key, body: { name: 'CONTRACTS' } }),
      duplicate_filename: async () => {
        const form = new FormData();
        form.append('knowledge_base_id', kb);
        form.append('file', new Blob([await pdf('again')], { type: 'application/pdf' }), 'parsed.pdf');
        return call('POST', '/v1/files', { key, form });
      },
      file_must_be_parsed: () =>
        call('POST', '/v1/classify/runs', { key, body: { file_id: unparsed, classes: ['invoice', 'letter'] } }),
      file_must_be_parsed_before_extraction: () =>
        call('POST', `/v1/files/${unparsed}/extract`, {
          key,
          body: { schema: { type: 'object', properties: { total: { type: 'number' } } } },
        }),
      invalid_schema: () => call('POST', '/v1/extract/runs', { key, body: { file_id: parsed } }),
      model_provider_unavailable: () =>
        call('POST', '/v1/extract/runs', { key, body: { file_id: parsed, schema: fields } }),
    };

    expect(rows.filter((r) => !cases[r.code]).map((r) => r.code)).toEqual([]); // every row has its case
    const got: string[] = [];
    const want: string[] = [];
    for (const row of rows) {
      const a = await cases[row.code]();
      got.push(`${row.code}: ${a.status} ${a.code}`);
      want.push(`${row.code}: ${row.status} ${row.code}`);
    }
    expect(got).toEqual(want);

    // Every workflow request names its missing file_id the same way, not as a malformed body.
    for (const p of [
      '/v1/classify/runs',
      '/v1/classify/classes/suggest',
      '/v1/edit/runs',
      '/v1/split/runs',
      '/v1/split/rules/suggest',
      '/v1/split/download',
    ]) {
      expect([p, (await call('POST', p, { key, body: {} })).code]).toEqual([p, 'file_id_is_required']);
    }
    // None of the refusals charged anything: the only debit is the fixture parse's page.
    expect((await call('GET', '/v1/billing/credits', { key })).body.credits.balance_credits).toBe(99);
    expect(f.out()).not.toMatch(/unhandled error/);
  }, 300_000);
});
