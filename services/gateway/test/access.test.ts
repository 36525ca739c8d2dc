import { grantKbAccess } from '@docfleet/auth';
import { startGateway, type Gateway } from './harness';

let gw: Gateway;
beforeAll(async () => {
  gw = await startGateway();
});
afterAll(() => gw.close());

const csv = { name: 'a.csv', data: 'x,y\n1,2\n' };

describe('API keys', () => {
  it('rejects missing, wrong, revoked and expired keys with 401 invalid_api_key', async () => {
    const { key } = await gw.createOrg();
    expect((await gw.req('GET', '/v1/knowledge-bases')).body.code).toBe('invalid_api_key');
    const wrong = await gw.req('GET', '/v1/knowledge-bases', { key: key + 'x' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ code: 'invalid_api_key', message: expect.any(String) });
    expect((await gw.req('GET', '/v1/knowledge-bases', { key })).status).toBe(200);
    // Rows changed in the database behind a gateway's back count once its cached row goes stale
    // (API_KEY_CACHE_TTL_SECONDS; key-cache.test.ts): these keys are changed before their first use.
    const expired = await gw.createOrg();
    await gw.db.apiKey.update({ where: { id: expired.keyId }, data: { expires_at: new Date(Date.now() - 1000) } });
    expect((await gw.req('GET', '/v1/knowledge-bases', { key: expired.key })).status).toBe(401);
    const revoked = await gw.createOrg();
    await gw.db.apiKey.update({ where: { id: revoked.keyId }, data: { revoked_at: new Date() } });
    const r = await gw.req('GET', '/v1/knowledge-bases', { key: revoked.key });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('invalid_api_key');
  });

  it('stores only a hash of the key', async () => {
    const { key, keyId } = await gw.createOrg();
    const row = await gw.db.apiKey.findUniqueOrThrow({ where: { id: keyId } });
    expect(JSON.stringify(row)).not.toContain(key);
    expect(key.startsWith(row.prefix)).toBe(true);
    expect(row.prefix.startsWith('dfk_')).toBe(true);
  });

  it('refuses an org header or org_id that differs from the key organisation', async () => {
    const a = await gw.createOrg();
    const b = await gw.createOrg();
    const h = await gw.req('GET', '/v1/knowledge-bases', { key: a.key, headers: { 'x-service-org-id': b.orgId } });
    expect(h.status).toBe(403);
    expect(h.body.code).toBe('api_key_org_mismatch');
    expect((await gw.req('GET', `/v1/knowledge-bases?org_id=${b.orgId}`, { key: a.key })).body.code).toBe(
      'api_key_org_mismatch',
    );
    expect((await gw.req('GET', `/v1/knowledge-bases?org_id=${a.orgId}`, { key: a.key })).status).toBe(200);
  });
});

describe('organisation isolation', () => {
  it("answers another organisation's ids exactly like unknown ones on every route", async () => {
    const a = await gw.createOrg({ credits: 5 });
    const b = await gw.createOrg();
    const kb = (await gw.req('POST', '/v1/knowledge-bases', { key: a.key, body: { name: 'Private' } })).body
      .knowledge_base;
    const folder = (await gw.req('POST', `/v1/knowledge-bases/${kb.id}/folders`, { key: a.key, body: { name: 'f' } }))
      .body.folder;
    const file = (await gw.upload(a.key, { knowledge_base_id: kb.id }, csv)).body.file;
    const probes: Array<[string, string, object?]> = [
      ['PATCH', `/v1/knowledge-bases/${kb.id}`, { name: 'stolen' }],
      ['DELETE', `/v1/knowledge-bases/${kb.id}?confirm_permanent=true`],
      ['POST', `/v1/knowledge-bases/${kb.id}/folders`, { name: 'x' }],
      ['GET', `/v1/knowledge-bases/${kb.id}/index`],
      ['GET', `/v1/files/${file.id}`],
      ['PATCH', `/v1/files/${file.id}/move`, { folder_id: null }],
      ['DELETE', `/v1/files/${file.id}`],
      ['POST', `/v1/files/${file.id}/restore`],
      ['DELETE', `/v1/files/${file.id}/permanent?confirm_permanent=true`],
      ['GET', `/v1/files?knowledge_base_id=${kb.id}`],
    ];
    for (const [method, p, body] of probes) {
      const theirs = await gw.req(method, p, { key: b.key, body });
      const unknown = await gw.req(
        method,
        p
          .replace(kb.id, '00000000-0000-4000-8000-00000000000a')
          .replace(file.id, '00000000-0000-4000-8000-00000000000b'),
        { key: b.key, body },
      );
      expect({ p, status: theirs.status, code: theirs.body.code }).toEqual({
        p,
        status: unknown.status,
        code: unknown.body.code,
      });
      expect(theirs.status).toBe(404);
    }
    const upload = await gw.upload(b.key, { knowledge_base_id: kb.id }, csv);
    expect(upload.body.code).toBe('knowledge_base_not_found');
    const uploadToFolder = await gw.upload(b.key, { knowledge_base_id: kb.id, folder_id: folder.id }, csv);
    expect(uploadToFolder.status).toBe(404);
    const replace = await gw.upload(b.key, {}, csv, 'PUT', `/v1/files/${file.id}/content`);
    expect(replace.body.code).toBe('file_not_found');
    expect((await gw.req('GET', '/v1/knowledge-bases', { key: b.key })).body.knowledge_bases).toEqual([]);
    expect((await gw.req('GET', '/v1/files', { key: b.key })).body.files).toEqual([]);
    expect((await gw.req('GET', '/v1/billing/credits', { key: b.key })).body.credits.balance_credits).toBe(0);
    expect((await gw.req('GET', '/v1/billing/ledger', { key: b.key })).body.entries).toEqual([]);
    // and nothing changed for org A
    expect((await gw.req('GET', `/v1/files/${file.id}`, { key: a.key })).body.file.deleted_at).toBeNull();
  });
});

describe('sessions, roles and grants', () => {
  it('logs in and refuses wrong passwords', async () => {
    const { orgId } = await gw.createOrg();
    const s = await gw.createSession(orgId, 'admin');
    expect((await gw.req('GET', '/v1/knowledge-bases', { headers: s.headers })).status).toBe(200);
    const bad = await gw.req('POST', '/v1/auth/login', {
      body: { email: 'nobody@example.test', password: 'whatever' },
    });
    expect(bad.status).toBe(401);
    expect(bad.body.code).toBe('invalid_credentials');
    const expired = await gw.req('GET', '/v1/knowledge-bases', {
      headers: { ...s.headers, authorization: 'Bearer dfs_nope' },
    });
    expect(expired.status).toBe(401);
  });

  it('requires membership of the named organisation', async () => {
    const a = await gw.createOrg();
    const b = await gw.createOrg();
    const s = await gw.createSession(a.orgId, 'member');
    const r = await gw.req('GET', '/v1/knowledge-bases', { headers: { ...s.headers, 'x-service-org-id': b.orgId } });
    expect(r.status).toBe(403);
    const none = await gw.req('GET', '/v1/knowledge-bases', { headers: { authorization: s.headers.authorization } });
    expect(none.status).toBe(403);
  });

  it('applies role permissions and knowledge-base grants', async () => {
    const { orgId, key } = await gw.createOrg();
    const admin = await gw.createSession(orgId, 'admin');
    const member = await gw.createSession(orgId, 'member');
    const viewer = await gw.createSession(orgId, 'viewer');
    const kb = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Granted' } })).body.knowledge_base;

    // viewer role: files.read only
    const vCreate = await gw.req('POST', '/v1/knowledge-bases', { headers: viewer.headers, body: { name: 'nope' } });
    expect(vCreate.status).toBe(403);
    expect(vCreate.body.code).toBe('permission_required');

    // member without a grant cannot reach the knowledge base, nor see it listed
    const denied = await gw.req('GET', `/v1/knowledge-bases/${kb.id}/index`, { headers: member.headers });
    expect(denied.status).toBe(403);
    expect(denied.body.code).toBe('knowledge_base_access_denied');
    expect((await gw.req('GET', '/v1/knowledge-bases', { headers: member.headers })).body.knowledge_bases).toEqual([]);
    expect((await gw.upload('', { knowledge_base_id: kb.id }, csv).catch(() => null))?.status).toBe(401);

    // a viewer grant lets the member read and upload, not delete the knowledge base
    await grantKbAccess(gw.db, { orgId, userId: member.userId, kbId: kb.id, level: 'viewer' });
    expect((await gw.req('GET', `/v1/knowledge-bases/${kb.id}/index`, { headers: member.headers })).status).toBe(200);
    expect(
      (await gw.req('GET', '/v1/knowledge-bases', { headers: member.headers })).body.knowledge_bases.map(
        (k: any) => k.id,
      ),
    ).toEqual([kb.id]);
    const del = await gw.req('DELETE', `/v1/knowledge-bases/${kb.id}?confirm_permanent=true`, {
      headers: member.headers,
    });
    expect(del.status).toBe(403);
    expect(del.body.code).toBe('knowledge_base_access_denied');

    // a viewer-role user with a grant can read but not write
    await grantKbAccess(gw.db, { orgId, userId: viewer.userId, kbId: kb.id, level: 'manager' });
    expect((await gw.req('GET', `/v1/knowledge-bases/${kb.id}/index`, { headers: viewer.headers })).status).toBe(200);
    expect(
      (await gw.req('POST', `/v1/knowledge-bases/${kb.id}/folders`, { headers: viewer.headers, body: { name: 'x' } }))
        .body.code,
    ).toBe('permission_required');

    // a member who creates a knowledge base manages it
    const own = await gw.req('POST', '/v1/knowledge-bases', { headers: member.headers, body: { name: 'Mine' } });
    expect(own.status).toBe(201);
    expect(
      (
        await gw.req('PATCH', `/v1/knowledge-bases/${own.body.knowledge_base.id}`, {
          headers: member.headers,
          body: { name: 'Mine too' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await gw.req('DELETE', `/v1/knowledge-bases/${own.body.knowledge_base.id}?confirm_permanent=true`, {
          headers: member.headers,
        })
      ).status,
    ).toBe(200);

    // admins pass every check
    expect((await gw.req('GET', `/v1/knowledge-bases/${kb.id}/index`, { headers: admin.headers })).status).toBe(200);
  });

  it('lets only an admin session manage API keys; keys never list secrets', async () => {
    const { orgId, key } = await gw.createOrg();
    const admin = await gw.createSession(orgId, 'admin');
    const member = await gw.createSession(orgId, 'member');
    expect((await gw.req('POST', '/v1/api-keys', { key, body: { name: 'ci' } })).body.code).toBe('permission_required');
    expect((await gw.req('POST', '/v1/api-keys', { headers: member.headers, body: { name: 'ci' } })).body.code).toBe(
      'permission_required',
    );
    const created = await gw.req('POST', '/v1/api-keys', { headers: admin.headers, body: { name: 'ci' } });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^dfk_/);
    expect((await gw.req('GET', '/v1/knowledge-bases', { key: created.body.secret })).status).toBe(200);
    const list = await gw.req('GET', '/v1/api-keys', { headers: admin.headers });
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    expect(list.body.api_keys.map((k: any) => k.name)).toContain('ci');
    const revoked = await gw.req('DELETE', `/v1/api-keys/${created.body.api_key.id}`, { headers: admin.headers });
    expect(revoked.body.api_key.revoked_at).not.toBeNull();
    expect((await gw.req('GET', '/v1/knowledge-bases', { key: created.body.secret })).status).toBe(401);
  });
});
