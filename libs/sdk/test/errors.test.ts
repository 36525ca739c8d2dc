import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { DocfleetApiError, DocfleetClient, DocfleetRequestError } from '../src';
import { json, scriptedFetch, startGateway, type Gateway } from './helpers';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

/** Every way an error can be shown or serialised. */
function renderings(err: Error): string[] {
  return [
    err.message,
    String(err),
    err.stack ?? '',
    JSON.stringify(err),
    inspect(err, { depth: 10, showHidden: true }),
    JSON.stringify(Object.values(err)),
  ];
}

function expectNoSecret(err: unknown, ...secrets: string[]) {
  expect(err).toBeInstanceOf(Error);
  for (const text of renderings(err as Error)) for (const s of secrets) expect(text).not.toContain(s);
}

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}
const close = (s: Server) =>
  new Promise<void>((r) => {
    s.closeAllConnections();
    s.close(() => r());
  });

describe('error mapping', () => {
  it('carries status, code, method, path and request id, with the message format "METHOD PATH -> STATUS code: error"', async () => {
    const { key } = await gw.createOrg();
    const client = new DocfleetClient({ baseUrl: gw.url, apiKey: key });
    const id = '00000000-0000-4000-8000-0000000000ff';
    const err = await client.files.get(id, { requestId: 'sdk-test-42' }).catch((e) => e);
    expect(err).toBeInstanceOf(DocfleetApiError);
    expect(err).toMatchObject({
      name: 'DocfleetApiError',
      status: 404,
      code: 'file_not_found',
      method: 'GET',
      path: `/v1/files/${id}`,
      requestId: 'sdk-test-42',
    });
    expect(err.message).toBe(`GET /v1/files/${id} -> 404 file_not_found: ${err.error}`);
    expect(JSON.parse(JSON.stringify(err))).toMatchObject({
      status: 404,
      code: 'file_not_found',
      method: 'GET',
      path: `/v1/files/${id}`,
      request_id: 'sdk-test-42',
    });
  });

  it('leaves the query string out of the path and keeps the envelope message apart', async () => {
    const { fetch } = scriptedFetch(() =>
      json(401, {
        error: 'Invalid API key.',
        code: 'invalid_api_key',
        message: 'The key was revoked.',
        request_id: 'r1',
      }),
    );
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_abcdef123456', fetch });
    const err = await client.files.list({ knowledgeBaseId: 'kb' }).catch((e) => e);
    expect(err).toMatchObject({
      status: 401,
      code: 'invalid_api_key',
      path: '/v1/files',
      serverMessage: 'The key was revoked.',
      requestId: 'r1',
    });
    expect(err.message).toBe('GET /v1/files -> 401 invalid_api_key: Invalid API key.');
  });

  it('maps a non-envelope answer to http_<status> and parses Retry-After', async () => {
    const { fetch } = scriptedFetch(
      () => new Response('<html>Bad gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
      () => json(429, { error: 'Too many requests.', code: 'rate_limited' }, { 'retry-after': '7' }),
    );
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_abcdef123456', fetch });
    await expect(client.billing.credits()).rejects.toMatchObject({
      status: 502,
      code: 'http_502',
      error: '<html>Bad gateway</html>',
    });
    await expect(client.billing.credits()).rejects.toMatchObject({ status: 429, code: 'rate_limited', retryAfter: 7 });
  });

  it('reports an unparseable success body as invalid_response', async () => {
    const { fetch } = scriptedFetch(
      () => new Response('not json', { status: 200, headers: { 'content-type': 'text/plain' } }),
    );
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_abcdef123456', fetch });
    const err = await client.billing.credits().catch((e) => e);
    expect(err).toBeInstanceOf(DocfleetRequestError);
    expect(err).toMatchObject({ code: 'invalid_response', method: 'GET', path: '/v1/billing/credits' });
  });
});

describe('credentials never leak', () => {
  it('keeps a wrong API key out of the error the gateway causes', async () => {
    const { key } = await gw.createOrg();
    const wrong = `${key}x`;
    const err = await new DocfleetClient({ baseUrl: gw.url, apiKey: wrong }).knowledgeBases.list().catch((e) => e);
    expect(err).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expectNoSecret(err, wrong, key);
  });

  it('keeps a bearer token out of errors', async () => {
    const token = 'dfs_this-is-a-secret-session-token';
    const err = await new DocfleetClient({
      baseUrl: gw.url,
      bearerToken: token,
      orgId: '00000000-0000-4000-8000-000000000001',
    }).knowledgeBases
      .list()
      .catch((e) => e);
    expect(err).toMatchObject({ status: 401 });
    expectNoSecret(err, token);
  });

  it('scrubs a credential the server echoes in error, message or details', async () => {
    const apiKey = 'dfk_live_0123456789abcdef';
    const { fetch, calls } = scriptedFetch((r) =>
      json(403, {
        error: `key ${r.headers['x-api-key']} refused`,
        code: 'permission_required',
        message: `got ${r.headers['x-api-key']}`,
        details: [{ path: 'x-api-key', message: r.headers['x-api-key'] }],
      }),
    );
    const err = await new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey, fetch }).knowledgeBases
      .list()
      .catch((e) => e);
    expect(calls[0].headers['x-api-key']).toBe(apiKey);
    expect(err).toMatchObject({
      code: 'permission_required',
      error: 'key [redacted] refused',
      serverMessage: 'got [redacted]',
      details: [{ path: 'x-api-key', message: '[redacted]' }],
    });
    expectNoSecret(err, apiKey);

    const token = 'dfs_session_0123456789abcdef';
    const plain = scriptedFetch((r) => new Response(`upstream said: ${r.headers.authorization}`, { status: 500 }));
    const err2 = await new DocfleetClient({
      baseUrl: 'http://docfleet.test',
      bearerToken: token,
      fetch: plain.fetch,
    }).billing
      .credits()
      .catch((e) => e);
    expect(err2).toMatchObject({ status: 500, code: 'http_500', error: 'upstream said: Bearer [redacted]' });
    expectNoSecret(err2, token);
  });

  it('keeps the key out of network errors and out of the client itself', async () => {
    const apiKey = 'dfk_never_print_me_123456';
    const { url, server } = await listen(() => undefined);
    await close(server); // nothing listens there now
    const client = new DocfleetClient({ baseUrl: url, apiKey });
    const err = await client.knowledgeBases.list().catch((e) => e);
    expect(err).toBeInstanceOf(DocfleetRequestError);
    expect(err).toMatchObject({ code: 'network_error', method: 'GET', path: '/v1/knowledge-bases' });
    expectNoSecret(err, apiKey);
    expect(inspect(client, { depth: 10, showHidden: true })).not.toContain(apiKey);
    expect(JSON.stringify(client)).not.toContain(apiKey);
    expect(inspect(client.withCredentials({ bearerToken: 'dfs_other_secret_token' }), { depth: 10 })).not.toContain(
      'dfs_other_secret_token',
    );
  });

  it('never follows a redirect, so the key cannot be sent to another host', async () => {
    const apiKey = 'dfk_redirect_secret_1234';
    const seen: IncomingHttpHeaders[] = [];
    const sink = await listen((req, res) => {
      seen.push(req.headers);
      res.end('{}');
    });
    const redirector = await listen((_req, res) => {
      res.writeHead(307, { location: `${sink.url}/steal` });
      res.end();
    });
    try {
      const err = await new DocfleetClient({ baseUrl: redirector.url, apiKey }).knowledgeBases.list().catch((e) => e);
      expect(err).toBeInstanceOf(DocfleetRequestError);
      expect(err.code).toBe('network_error');
      expectNoSecret(err, apiKey);
      expect(seen).toEqual([]);
    } finally {
      await close(sink.server);
      await close(redirector.server);
    }
  });
});

describe('timeouts and aborts', () => {
  it('gives up after timeoutMs with code timeout, and reports a caller abort as aborted', async () => {
    const hang = await listen(() => undefined); // accepts, never answers
    try {
      const client = new DocfleetClient({ baseUrl: hang.url, apiKey: 'dfk_timeout_secret_123', timeoutMs: 100 });
      const err = await client.billing.credits().catch((e) => e);
      expect(err).toMatchObject({
        name: 'DocfleetRequestError',
        code: 'timeout',
        method: 'GET',
        path: '/v1/billing/credits',
      });
      expect(err.message).toBe('GET /v1/billing/credits -> timeout: no complete answer within 100 ms');

      const ac = new AbortController();
      setTimeout(() => ac.abort(), 50);
      const aborted = await client.billing.credits({ signal: ac.signal, timeoutMs: 0 }).catch((e) => e);
      expect(aborted).toMatchObject({ code: 'aborted' });
    } finally {
      await close(hang.server);
    }
  });
});
