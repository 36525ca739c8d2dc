import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startGateway, type Gateway } from './harness';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway({ RATE_LIMIT_POINTS: '5', RATE_LIMIT_WINDOW_SECONDS: '60', MAX_BODY_BYTES: '2048' });
});
afterAll(() => gw.close());

describe('platform', () => {
  it('answers health and readiness', async () => {
    expect((await gw.req('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await gw.req('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.checks).toEqual({ database: 'ok', redis: 'ok' });
  });

  it('answers unknown routes with route_not_found and a request id', async () => {
    const r = await gw.req('GET', '/v1/nope', { headers: { 'x-request-id': 'trace-me-123' } });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: expect.any(String), code: 'route_not_found', request_id: 'trace-me-123' });
    expect(r.headers.get('x-request-id')).toBe('trace-me-123');
  });

  it('caps body size with request_too_large and never leaks a stack', async () => {
    const { key } = await gw.createOrg();
    const r = await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'x', description: 'y'.repeat(5000) } });
    expect(r.status).toBe(413);
    expect(r.body.code).toBe('request_too_large');
    expect(JSON.stringify(r.body)).not.toMatch(/at .*\.ts:\d+/);
  });

  it('rate-limits per key with 429 and Retry-After', async () => {
    const { key } = await gw.createOrg();
    const other = await gw.createOrg();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await gw.req('GET', '/v1/knowledge-bases', { key })).status);
    // the first org's earlier request in this file counts too; the limit is 5 per minute
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(5);
    const last = await gw.req('GET', '/v1/knowledge-bases', { key });
    expect(last.status).toBe(429);
    expect(last.body.code).toBe('rate_limited');
    expect(Number(last.headers.get('retry-after'))).toBeGreaterThan(0);
    // another key is unaffected
    expect((await gw.req('GET', '/v1/knowledge-bases', { key: other.key })).status).toBe(200);
  });

  it('serves a valid OpenAPI 3.1 document of every route', async () => {
    const r = await gw.req('GET', '/v1/openapi.json');
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe('3.1.0');
    // The linter is ESM-only, so it runs as its own process (the same command CI can call).
    const file = path.join(os.tmpdir(), `openapi-${process.pid}.json`);
    writeFileSync(file, JSON.stringify(r.body));
    const out = execFileSync('pnpm', ['--silent', 'lint:openapi', file], {
      cwd: path.resolve(__dirname, '../../..'),
      encoding: 'utf8',
    });
    expect(out).toMatch(/openapi: valid OpenAPI 3\.1\.0/);
    // a broken document is caught
    writeFileSync(file, JSON.stringify({ ...r.body, paths: { '/x': { get: { responses: 'nope' } } } }));
    expect(() =>
      execFileSync('pnpm', ['--silent', 'lint:openapi', file], {
        cwd: path.resolve(__dirname, '../../..'),
        stdio: 'pipe',
      }),
    ).toThrow();
    const paths = Object.keys(r.body.paths);
    for (const p of [
      '/v1/knowledge-bases',
      '/v1/knowledge-bases/{kbId}',
      '/v1/knowledge-bases/{kbId}/folders',
      '/v1/knowledge-bases/{kbId}/index',
      '/v1/files',
      '/v1/files/{fileId}',
      '/v1/files/{fileId}/move',
      '/v1/files/{fileId}/content',
      '/v1/files/{fileId}/restore',
      '/v1/files/{fileId}/permanent',
      '/v1/billing/credits',
      '/v1/billing/ledger',
      '/v1/auth/login',
      '/v1/api-keys',
    ]) {
      expect(paths).toContain(p);
    }
  });
});

describe('metrics', () => {
  it('exposes request latency by route pattern and status, and queue depth', async () => {
    const m = await startGateway();
    try {
      const { key } = await m.createOrg();
      const kb = await m.createKnowledgeBase(key, 'Metrics');
      await m.req('GET', `/v1/knowledge-bases/${kb.id}/index`, { key });
      await m.req('GET', '/v1/files/00000000-0000-4000-8000-000000000000', { key });
      const r = await fetch(`${m.url}/metrics`);
      const text = await r.text();
      expect(r.headers.get('content-type')).toMatch(/text\/plain/);
      const sample = (name: string, labels: string[]) =>
        text.split('\n').find((l) => l.startsWith(`${name}{`) && labels.every((x) => l.includes(x)));
      expect(
        sample('docfleet_http_request_duration_seconds_count', [
          'method="GET"',
          'route="/v1/knowledge-bases/:kbId/index"',
          'status="200"',
        ]),
      ).toMatch(/ 1$/);
      expect(
        sample('docfleet_http_request_duration_seconds_count', ['route="/v1/files/:fileId"', 'status="404"']),
      ).toMatch(/ 1$/);
      expect(text).not.toContain(kb.id);
      expect(sample('docfleet_queue_depth', ['queue="parse"', 'state="wait"'])).toMatch(/ \d+$/);
    } finally {
      await m.close();
    }
  });
});
