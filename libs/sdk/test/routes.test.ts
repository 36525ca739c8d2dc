// Request shapes of the endpoints whose gateway routes have not landed yet (parse jobs, artifacts,
// segments, search, extraction, operations, split, classify, edit), checked against the API reference with a
// recording fetch. The gateway tests in this folder exercise the routes that exist.
import { DocfleetClient } from '../src';
import { json, scriptedFetch, type Recorded } from './helpers';

const F = '11111111-1111-4111-8111-111111111111';
const J = '22222222-2222-4222-8222-222222222222';
const M = '44444444-4444-4444-8444-444444444444';
const KB = '55555555-5555-4555-8555-555555555555';
const OP = '33333333-3333-4333-8333-333333333333';

function recorder(respond: (r: Recorded) => Response = () => json(200, {})) {
  const s = scriptedFetch(respond);
  const client = new DocfleetClient({
    baseUrl: 'http://docfleet.test/api/',
    apiKey: 'dfk_routes_key',
    fetch: s.fetch,
    userAgent: 'sdk-tests/1',
  });
  return { client, calls: s.calls, last: () => s.calls[s.calls.length - 1] };
}
const target = (r: Recorded) => `${r.method} ${r.url.pathname}${r.url.search}`;

describe('request shapes', () => {
  it('sends the key, the user agent and JSON, under the base URL path', async () => {
    const { client, last } = recorder();
    await client.files.parse(F, { options: { dpi: 200, backend: 'auto' }, idempotency_key: 'k1' });
    const r = last();
    expect(target(r)).toBe(`POST /api/v1/files/${F}/parse`);
    expect(r.headers).toMatchObject({
      'x-api-key': 'dfk_routes_key',
      'user-agent': 'sdk-tests/1',
      'content-type': 'application/json',
      accept: 'application/json',
    });
    expect(r.headers.authorization).toBeUndefined();
    expect(r.body).toEqual({ options: { dpi: 200, backend: 'auto' }, idempotency_key: 'k1' });
  });

  it('sends a session as authorization: Bearer plus x-service-org-id', async () => {
    const s = scriptedFetch(() => json(200, { knowledge_bases: [] }));
    const client = new DocfleetClient({
      baseUrl: 'http://docfleet.test',
      bearerToken: 'dfs_tok',
      orgId: KB,
      fetch: s.fetch,
    });
    await client.knowledgeBases.list();
    expect(s.calls[0].headers).toMatchObject({ authorization: 'Bearer dfs_tok', 'x-service-org-id': KB });
    expect(s.calls[0].headers['x-api-key']).toBeUndefined();
  });

  it('encodes ids, so a crafted id cannot reach another route', async () => {
    const { client, last } = recorder();
    await client.files.get('../../v1/api-keys');
    expect(last().url.pathname).toBe('/api/v1/files/..%2F..%2Fv1%2Fapi-keys');
  });

  const cases: Array<[string, (c: DocfleetClient) => Promise<unknown>, string, unknown]> = [
    [
      'files.parseBulk',
      (c) => c.files.parseBulk({ file_ids: [F], idempotency_key: 'b' }),
      'POST /api/v1/files/parse/bulk',
      { file_ids: [F], idempotency_key: 'b' },
    ],
    ['files.jobs', (c) => c.files.jobs(F), `GET /api/v1/files/${F}/jobs`, null],
    ['files.job', (c) => c.files.job(F, J), `GET /api/v1/files/${F}/jobs/${J}`, null],
    ['files.jobEvents', (c) => c.files.jobEvents(F, J), `GET /api/v1/files/${F}/jobs/${J}/events`, null],
    ['files.cancelJob', (c) => c.files.cancelJob(F, J), `POST /api/v1/files/${F}/jobs/${J}/cancel`, null],
    ['files.clearFailedJobs', (c) => c.files.clearFailedJobs(F), `DELETE /api/v1/files/${F}/jobs/failed`, null],
    ['files.artefacts', (c) => c.files.artefacts(F), `GET /api/v1/files/${F}/artefacts`, null],
    ['files.segments', (c) => c.files.segments(F), `GET /api/v1/files/${F}/segments`, null],
    [
      'files.extract',
      (c) => c.files.extract(F, { schema: { type: 'object' }, schema_name: 'invoice' }),
      `POST /api/v1/files/${F}/extract`,
      { schema: { type: 'object' }, schema_name: 'invoice' },
    ],
    [
      'files.extractBulk',
      (c) => c.files.extractBulk({ file_ids: [F], schema: { type: 'object' } }),
      'POST /api/v1/files/extract/bulk',
      { file_ids: [F], schema: { type: 'object' } },
    ],
    [
      'search',
      (c) => c.search(KB, { query: 'total due', limit: 5, table_only: true }),
      `POST /api/v1/knowledge-bases/${KB}/search`,
      { query: 'total due', limit: 5, table_only: true },
    ],
    [
      'extract.createSchema',
      (c) => c.extract.createSchema({ schema: { title: 'Invoice', fields: [{ name: 'Total', type: 'number' }] } }),
      'POST /api/v1/extract/schemas',
      { schema: { title: 'Invoice', fields: [{ name: 'Total', type: 'number' }] } },
    ],
    ['extract.getSchema', (c) => c.extract.getSchema(M), `GET /api/v1/extract/schemas/${M}`, null],
    [
      'extract.updateSchema',
      (c) => c.extract.updateSchema(M, { title: 'T', metadata: { a: 1 } }),
      `PATCH /api/v1/extract/schemas/${M}`,
      { title: 'T', metadata: { a: 1 } },
    ],
    ['extract.deleteSchema', (c) => c.extract.deleteSchema(M), `DELETE /api/v1/extract/schemas/${M}`, null],
    ['operations.get', (c) => c.operations.get(OP), `GET /api/v1/operations/${OP}`, null],
    ['operations.cancel', (c) => c.operations.cancel(OP), `POST /api/v1/operations/${OP}/cancel`, null],
    [
      'classify.suggestClasses',
      (c) => c.classify.suggestClasses({ file_id: F, guidelines: 'finance' }),
      'POST /api/v1/classify/classes/suggest',
      { file_id: F, guidelines: 'finance' },
    ],
    [
      'classify.run',
      (c) => c.classify.run({ file_id: F, classes: ['invoice', 'nda'], multi_label: false, reasoning_level: 'low' }),
      'POST /api/v1/classify/runs',
      { file_id: F, classes: ['invoice', 'nda'], multi_label: false, reasoning_level: 'low' },
    ],
    [
      'edit.run',
      (c) => c.edit.run({ file_id: F, prompt: 'fix dates', rules: ['ISO 8601'] }),
      'POST /api/v1/edit/runs',
      { file_id: F, prompt: 'fix dates', rules: ['ISO 8601'] },
    ],
    ['edit.getProposal', (c) => c.edit.getProposal(J), `GET /api/v1/edit/proposals/${J}`, null],
  ];
  it.each(cases)('%s', async (_name, call, expected, body) => {
    const { client, last } = recorder();
    await call(client);
    expect(target(last())).toBe(expected);
    // Rows have a fixed arity (jest passes `done` to a shorter row); null means no body.
    if (body !== null) expect(last().body).toEqual(body);
    else expect(last().init.body).toBeUndefined();
  });
});

describe('queued workflows return { status, body }', () => {
  const queuedCases: Array<[string, (c: DocfleetClient) => Promise<{ status: number; body: unknown }>, string]> = [
    [
      'extract.run',
      (c) => c.extract.run({ file_id: F, schema_id: M, idempotency_key: 'i' }),
      'POST /api/v1/extract/runs',
    ],
    [
      'extract.generateSchema',
      (c) => c.extract.generateSchema({ file_id: F, title: 'Invoice' }),
      'POST /api/v1/extract/schemas/generate',
    ],
    ['split.suggestRules', (c) => c.split.suggestRules({ file_id: F }), 'POST /api/v1/split/rules/suggest'],
    [
      'split.run',
      (c) => c.split.run({ file_id: F, rules: [{ name: 'nda', description: 'one NDA' }], idempotency_key: 'fresh' }),
      'POST /api/v1/split/runs',
    ],
  ];
  it.each(queuedCases)('%s: 202 acknowledgement, 200 completed replay', async (_name, call, expected) => {
    const ack = recorder(() => json(202, { operation_id: OP, status: 'queued' }));
    expect(await call(ack.client)).toEqual({ status: 202, body: { operation_id: OP, status: 'queued' } });
    expect(target(ack.last())).toBe(expected);
    const replay = recorder(() => json(200, { operation_id: OP, modelId: 'docfleet-local' }));
    expect(await call(replay.client)).toEqual({ status: 200, body: { operation_id: OP, modelId: 'docfleet-local' } });
  });
});

describe('decoding', () => {
  it('returns artifacts as text, JSON or bytes by content type', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    const { client, calls } = recorder((r) => {
      if (r.url.pathname.endsWith('/result_md'))
        return new Response('# Invoice\n![](imgs/fig_1.jpg)', {
          headers: { 'content-type': 'text/markdown; charset=utf-8' },
        });
      if (r.url.pathname.endsWith('/grounding_json')) return json(200, { schema_version: '1.0', pages: [] });
      if (r.url.searchParams.get('file')) return new Response(png, { headers: { 'content-type': 'image/png' } });
      return json(200, {
        entries: [{ name: 'page_0001.png', kind: 'file', url: `/v1/artifacts/${M}/pages?file=page_0001.png` }],
      });
    });
    expect(await client.artifacts.get(M, 'result_md')).toBe('# Invoice\n![](imgs/fig_1.jpg)');
    expect(await client.artifacts.get(M, 'grounding_json')).toEqual({ schema_version: '1.0', pages: [] });
    const listing = await client.artifacts.get(M, 'pages');
    expect(listing.entries[0].name).toBe('page_0001.png');
    const bytes = await client.artifacts.get(M, 'pages', { file: 'page_0001.png' });
    expect(Buffer.isBuffer(bytes) && bytes.equals(png)).toBe(true);
    expect(target(calls[3])).toBe(`GET /api/v1/artifacts/${M}/pages?file=page_0001.png`);
    const viaLink = await client.artifacts.getLink(listing.entries[0].url);
    expect(Buffer.isBuffer(viaLink) && viaLink.equals(png)).toBe(true);
    expect(target(calls[4])).toBe(`GET /api/v1/artifacts/${M}/pages?file=page_0001.png`);
    expect(() => client.artifacts.getLink('https://elsewhere.test/v1/artifacts/x/result_md')).toThrow(/API path/);
    expect(() => client.artifacts.getLink('//elsewhere.test/v1/x')).toThrow(/API path/);
  });

  it('returns split downloads as a Buffer and accepts both list shapes for schemas', async () => {
    const pdf = Buffer.from('%PDF-1.7\n...');
    const dl = recorder(() => new Response(pdf, { headers: { 'content-type': 'application/pdf' } }));
    const out = await dl.client.split.download({ file_id: F, startPage: 1, endPage: 3, title: 'NDA 1' });
    expect(out.equals(pdf)).toBe(true);
    expect(dl.last().body).toEqual({ file_id: F, startPage: 1, endPage: 3, title: 'NDA 1' });
    expect(target(dl.last())).toBe('POST /api/v1/split/download');

    const bare = recorder(() => json(200, [{ id: M }]));
    expect(await bare.client.extract.listSchemas()).toEqual({ schemas: [{ id: M }] });
    const wrapped = recorder(() => json(200, { schemas: [{ id: M }] }));
    expect(await wrapped.client.extract.listSchemas()).toEqual({ schemas: [{ id: M }] });
    expect(target(wrapped.last())).toBe('GET /api/v1/extract/schemas');
  });

  it('returns segments as the bare array the API sends', async () => {
    const segs = [
      {
        id: 'p1-e1',
        docId: F,
        docName: 'a.pdf',
        title: 'T',
        markdown: 'x',
        coordinates: { pageNumber: 1, xmin: 0, ymin: 0, xmax: 1000, ymax: 100, sourceType: 'pdf' },
        pdfUrl: '/v1/x',
        sourceType: 'pdf',
      },
    ];
    const { client } = recorder(() => json(200, segs));
    expect(await client.files.segments(F)).toEqual(segs);
  });
});
