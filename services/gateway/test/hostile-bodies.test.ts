// Bodies the gateway cannot read answer 4xx with the envelope, before credentials are looked up:
// a wrong or unknown Content-Encoding and an unknown charset 415, JSON nested deeper than 64 levels
// 400 naming where. Never a 500, and nothing that deep is stored.
import { gzipSync, brotliCompressSync, deflateSync } from 'node:zlib';
import { api, MAX_JSON_DEPTH, tooDeepPath } from '@docfleet/contracts';
import { startGateway, type Gateway } from './harness';
import { rawRequest } from '@docfleet/testing';

let gw: Gateway;
let key: string;
let port: number;
beforeAll(async () => {
  gw = await startGateway();
  ({ key } = await gw.createOrg({ credits: 10 }));
  port = Number(new URL(gw.url).port);
});
afterAll(() => gw.close());

/** `{"a":{"a":…{}…}}`: an object `levels` deep, counting itself. */
function nested(levels: number, leaf: unknown = 1): Record<string, unknown> {
  let v: unknown = leaf;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v as Record<string, unknown>;
}
/** The same as JSON text, built without recursion (JSON.stringify overflows on very deep values). */
const nestedText = (levels: number) => '{"a":'.repeat(levels - 1) + '{"a":1}' + '}'.repeat(levels - 1);

/** Sends raw bytes with exact headers (fetch would refuse or rewrite some of them). */
async function send(method: string, p: string, headers: Record<string, string>, body: Buffer | string) {
  const buf = typeof body === 'string' ? Buffer.from(body) : body;
  const lines = [
    `${method} ${p} HTTP/1.1`,
    'Host: 127.0.0.1',
    `Content-Length: ${buf.length}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  const r = await rawRequest(port, lines.join('\r\n'), buf).response;
  if (!r) throw new Error('no response');
  return r;
}

function expect4xx(r: { status: number; body: any }, status: number, code: string) {
  expect({ status: r.status, code: r.body?.code }).toEqual({ status, code });
  expect(r.body.request_id).toEqual(expect.any(String));
  expect(typeof r.body.error).toBe('string');
}

describe('Content-Encoding', () => {
  const json = JSON.stringify({ name: 'Encoded' });
  it('decodes gzip, deflate and br JSON bodies', async () => {
    const packers = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
    for (const [enc, pack] of Object.entries(packers)) {
      const body = pack(Buffer.from(JSON.stringify({ name: `Encoded ${enc}` })));
      const r = await send(
        'POST',
        '/v1/knowledge-bases',
        { 'x-api-key': key, 'content-type': 'application/json', 'content-encoding': enc },
        body,
      );
      expect({ enc, status: r.status }).toEqual({ enc, status: 201 });
    }
  });

  it('415 unsupported_media_type when the body is not what its encoding says, or the encoding is unknown', async () => {
    for (const enc of ['br', 'deflate', 'gzip', 'compress', 'x-klingon', 'gzip, br']) {
      const r = await send(
        'POST',
        '/v1/knowledge-bases',
        { 'x-api-key': key, 'content-type': 'application/json', 'content-encoding': enc },
        json,
      );
      expect({ enc, ...r.body, request_id: undefined, error: undefined }).toEqual({
        enc,
        code: 'unsupported_media_type',
      });
      expect4xx(r, 415, 'unsupported_media_type');
    }
    // truncated gzip
    const cut = gzipSync(json).subarray(0, 12);
    expect4xx(
      await send(
        'POST',
        '/v1/knowledge-bases',
        { 'x-api-key': key, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        cut,
      ),
      415,
      'unsupported_media_type',
    );
  });

  it('415 for a compressed multipart upload, and without credentials (before authentication)', async () => {
    const r = await send(
      'POST',
      '/v1/files',
      { 'x-api-key': key, 'content-type': 'multipart/form-data; boundary=b', 'content-encoding': 'gzip' },
      gzipSync('--b--\r\n'),
    );
    expect4xx(r, 415, 'unsupported_media_type');
    const anon = await send(
      'POST',
      '/v1/knowledge-bases',
      { 'content-type': 'application/json', 'content-encoding': 'br' },
      json,
    );
    expect4xx(anon, 415, 'unsupported_media_type');
  });
});

describe('charset', () => {
  it('415 for an unknown charset, on login without a key too', async () => {
    const login = await send(
      'POST',
      '/v1/auth/login',
      { 'content-type': 'application/json; charset=klingon' },
      JSON.stringify({ email: 'a@b.test', password: 'x' }),
    );
    expect4xx(login, 415, 'unsupported_media_type');
    const kb = await send(
      'POST',
      '/v1/knowledge-bases',
      { 'x-api-key': key, 'content-type': 'application/json; charset=klingon' },
      JSON.stringify({ name: 'K' }),
    );
    expect4xx(kb, 415, 'unsupported_media_type');
    const upload = await send(
      'POST',
      '/v1/files',
      { 'x-api-key': key, 'content-type': 'multipart/form-data; boundary=b; charset=klingon' },
      '--b--\r\n',
    );
    expect4xx(upload, 415, 'unsupported_media_type');
    // a known charset the JSON parser does not take (it reads the UTF family only)
    expect4xx(
      await send('POST', '/v1/auth/login', { 'content-type': 'application/json; charset=latin1' }, '{}'),
      415,
      'unsupported_media_type',
    );
    // UTF-8 stays fine
    const ok = await send(
      'POST',
      '/v1/knowledge-bases',
      { 'x-api-key': key, 'content-type': 'application/json; charset=UTF-8' },
      JSON.stringify({ name: 'Charset ok' }),
    );
    expect(ok.status).toBe(201);
  });

  it('malformed Content-Type headers are read leniently or refused with the envelope, never 500', async () => {
    const types = [
      'application/json; charset',
      'application/json; =x',
      'application/json;;;',
      '/',
      'application/json; charset="',
      'multipart/form-data; boundary=',
      'multipart/form-data; boundary="unclosed',
    ];
    for (const [i, type] of types.entries()) {
      const r = await send(
        'POST',
        '/v1/knowledge-bases',
        { 'x-api-key': key, 'content-type': type },
        JSON.stringify({ name: `T${i}` }),
      );
      const envelope = r.status < 400 || (typeof r.body?.code === 'string' && typeof r.body?.request_id === 'string');
      expect({ type, under500: r.status < 500, envelope }).toEqual({ type, under500: true, envelope: true });
    }
  });
});

describe(`JSON deeper than ${MAX_JSON_DEPTH} levels`, () => {
  it('accepts a body exactly 64 levels deep and refuses 65 with the path', async () => {
    // the body is level 1, metadata level 2: metadata may hold 62 more
    const ok = await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Deep ok', metadata: nested(63) } });
    expect(ok.status).toBe(201);
    expect(tooDeepPath(ok.body.knowledge_base.metadata)).toBeNull();
    const r = await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Too deep', metadata: nested(64) } });
    expect4xx(r, 400, 'invalid_request_body');
    expect(r.body.error).toContain(`metadata${'.a'.repeat(63)}`);
  });

  it('refuses 4,000 levels in metadata, jsonSchema and arrays, without a key too, and stores nothing', async () => {
    const before = await gw.db.knowledgeBase.count();
    const deepMeta = `{"name":"Deep","metadata":${nestedText(4000)}}`;
    const r1 = await gw.req('POST', '/v1/knowledge-bases', { key, raw: deepMeta });
    expect4xx(r1, 400, 'invalid_request_body');
    expect(r1.body.error).toMatch(/^The JSON body is nested deeper than 64 levels at metadata\.a\.a/);
    const kb = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Schemas' } })).body.knowledge_base;
    const schema = { fields: [{ name: 'title' }] };
    const r2 = await gw.req('POST', '/v1/extract/schemas', {
      key,
      raw: `{"knowledge_base_id":"${kb.id}","schema":${JSON.stringify(schema)},"jsonSchema":${nestedText(4000)}}`,
    });
    expect4xx(r2, 400, 'invalid_request_body');
    expect(r2.body.error).toContain('jsonSchema.a.a');
    const r3 = await gw.req('PATCH', `/v1/knowledge-bases/${kb.id}`, {
      key,
      raw: `{"metadata":{"x":${'['.repeat(300_000)}${']'.repeat(300_000)}}}`,
    });
    expect4xx(r3, 400, 'invalid_request_body');
    expect(r3.body.error).toContain('metadata.x.0.0.0');
    // before authentication: no key, a bad key
    expect4xx(await gw.req('POST', '/v1/knowledge-bases', { raw: deepMeta }), 400, 'invalid_request_body');
    expect4xx(
      await gw.req('POST', '/v1/auth/login', { raw: `{"email":${nestedText(100)}}` }),
      400,
      'invalid_request_body',
    );
    expect4xx(
      await gw.req('POST', '/v1/knowledge-bases', { key: 'dfk_not_a_key', raw: deepMeta }),
      400,
      'invalid_request_body',
    );
    expect(await gw.db.knowledgeBase.count()).toBe(before + 1);
  });

  it('refuses deep metadata in a multipart upload (invalid_metadata, naming the path)', async () => {
    const kb = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Upload meta' } })).body
      .knowledge_base;
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    const r = await gw.upload(
      key,
      { knowledge_base_id: kb.id, metadata: nestedText(4000) },
      { name: 'x.png', data: png },
    );
    expect4xx(r, 400, 'invalid_metadata');
    expect(r.body.error).toContain('metadata.a.a');
    expect(await gw.db.file.count({ where: { knowledge_base_id: kb.id } })).toBe(0);
  });

  it('JsonObject (libs/contracts) refuses deeper values wherever it validates', () => {
    expect(api.JsonObject.safeParse(nested(64)).success).toBe(true);
    const r = api.JsonObject.safeParse(nested(65));
    expect(r.success).toBe(false);
    expect(r.error!.issues[0].path).toEqual(Array(64).fill('a'));
    expect(api.JsonObject.safeParse(JSON.parse(`{"x":${'['.repeat(100_000)}${']'.repeat(100_000)}}`)).success).toBe(
      false,
    );
  });
});
