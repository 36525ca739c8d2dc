import { DocfleetApiError, DocfleetClient } from '../src';
import { corpus, startGateway, type Gateway } from './helpers';

let gw: Gateway;
let client: DocfleetClient;
beforeAll(async () => {
  gw = await startGateway();
  const { key } = await gw.createOrg({ credits: 10 });
  client = new DocfleetClient({ baseUrl: gw.url, apiKey: key });
});
afterAll(() => gw.close());

describe('client construction', () => {
  it('strips trailing slashes from baseUrl and still reaches the API', async () => {
    const { key } = await gw.createOrg();
    const c = new DocfleetClient({ baseUrl: `${gw.url}///`, apiKey: key });
    expect(c.baseUrl).toBe(gw.url);
    await expect(c.knowledgeBases.list()).resolves.toEqual({ knowledge_bases: [] });
  });

  it('refuses a client with both a key and a bearer token, or no base URL', () => {
    expect(() => new DocfleetClient({ baseUrl: gw.url, apiKey: 'a', bearerToken: 'b' })).toThrow(
      /apiKey or bearerToken/,
    );
    expect(() => new DocfleetClient({ baseUrl: '' })).toThrow(/baseUrl/);
  });

  it('sends x-service-org-id with a key and gets api_key_org_mismatch when it differs', async () => {
    const a = await gw.createOrg();
    const b = await gw.createOrg();
    await expect(
      new DocfleetClient({ baseUrl: gw.url, apiKey: a.key, orgId: a.orgId }).knowledgeBases.list(),
    ).resolves.toBeDefined();
    const err = await new DocfleetClient({ baseUrl: gw.url, apiKey: a.key, orgId: b.orgId }).knowledgeBases
      .list()
      .catch((e) => e);
    expect(err).toBeInstanceOf(DocfleetApiError);
    expect(err).toMatchObject({
      status: 403,
      code: 'api_key_org_mismatch',
      method: 'GET',
      path: '/v1/knowledge-bases',
    });
  });
});

describe('knowledge bases', () => {
  it('creates, lists newest first, renames', async () => {
    const { key } = await gw.createOrg();
    const c = new DocfleetClient({ baseUrl: gw.url, apiKey: key });
    const a = (await c.knowledgeBases.create({ name: 'Alpha', description: 'first', metadata: { team: 'ops' } }))
      .knowledge_base;
    expect(a).toMatchObject({ name: 'Alpha', description: 'first', metadata: { team: 'ops' } });
    const b = (await c.knowledgeBases.create({ name: 'Beta' })).knowledge_base;
    expect(b.description).toBeNull();
    expect((await c.knowledgeBases.list()).knowledge_bases.map((k) => k.id)).toEqual([b.id, a.id]);
    const renamed = (await c.knowledgeBases.rename(a.id, { name: 'Alpha 2', description: 'renamed' })).knowledge_base;
    expect(renamed).toMatchObject({ id: a.id, name: 'Alpha 2', description: 'renamed' });
  });

  it('maps duplicate names to DocfleetApiError duplicate_knowledge_base_name', async () => {
    await client.knowledgeBases.create({ name: 'Invoices' });
    const err = await client.knowledgeBases.create({ name: 'INVOICES' }).catch((e) => e);
    expect(err).toBeInstanceOf(DocfleetApiError);
    expect(err).toMatchObject({
      status: 409,
      code: 'duplicate_knowledge_base_name',
      method: 'POST',
      path: '/v1/knowledge-bases',
    });
    expect(err.message).toMatch(/^POST \/v1\/knowledge-bases -> 409 duplicate_knowledge_base_name: /);
    expect(err.requestId).toEqual(expect.any(String));
  });

  it('creates nested folders and reports duplicate_folder_name', async () => {
    const kb = (await client.knowledgeBases.create({ name: 'Folders' })).knowledge_base;
    const top = (await client.knowledgeBases.createFolder(kb.id, { name: 'top' })).folder;
    expect(top).toMatchObject({ knowledge_base_id: kb.id, name: 'top', parent_folder_id: null });
    const child = (await client.knowledgeBases.createFolder(kb.id, { name: 'child', parent_folder_id: top.id })).folder;
    expect(child.parent_folder_id).toBe(top.id);
    await expect(client.knowledgeBases.createFolder(kb.id, { name: 'top' })).rejects.toMatchObject({
      status: 409,
      code: 'duplicate_folder_name',
    });
  });

  it('serves the index, filtered by folder', async () => {
    const kb = (await client.knowledgeBases.create({ name: 'Indexed' })).knowledge_base;
    const folder = (await client.knowledgeBases.createFolder(kb.id, { name: 'sub' })).folder;
    const pdf = (
      await client.files.upload(corpus('f_forms_invoices/invoice2data/AzureInterior.pdf'), { knowledgeBaseId: kb.id })
    ).file;
    const csv = (
      await client.files.upload(corpus('d_spreadsheets/docling/csv-comma.csv'), {
        knowledgeBaseId: kb.id,
        folderId: folder.id,
      })
    ).file;
    const idx = await client.knowledgeBases.index(kb.id);
    expect(idx.knowledge_base).toEqual({ id: kb.id, name: 'Indexed' });
    expect(idx.index_version).toEqual(expect.any(String));
    expect(idx.files.map((f) => f.file_id)).toEqual([csv.id, pdf.id]);
    expect(idx.files[0]).toMatchObject({
      folder_id: folder.id,
      folder_name: 'sub',
      latest_parse_job: null,
      parse_artifacts: null,
      version_number: 1,
    });
    const sub = await client.knowledgeBases.index(kb.id, { folderId: folder.id });
    expect(sub.files.map((f) => f.file_id)).toEqual([csv.id]);
  });

  it('asks for the index conditionally: null while unchanged, the new envelope after a change', async () => {
    const kb = (await client.knowledgeBases.create({ name: 'Conditional' })).knowledge_base;
    const first = await client.knowledgeBases.index(kb.id);
    await expect(client.knowledgeBases.indexIfChanged(kb.id, first.index_version)).resolves.toBeNull();
    const { file } = await client.files.upload(corpus('d_spreadsheets/docling/csv-comma.csv'), {
      knowledgeBaseId: kb.id,
    });
    const changed = await client.knowledgeBases.indexIfChanged(kb.id, first.index_version);
    expect(changed?.files.map((f) => f.file_id)).toEqual([file.id]);
    expect(changed?.index_version).not.toBe(first.index_version);
    await expect(client.knowledgeBases.indexIfChanged(kb.id, changed!.index_version)).resolves.toBeNull();
  });

  it('deletes only with confirmPermanent, and returns the deletion report', async () => {
    const kb = (await client.knowledgeBases.create({ name: 'Doomed' })).knowledge_base;
    await client.files.upload(corpus('d_spreadsheets/docling/csv-comma.csv'), { knowledgeBaseId: kb.id });
    const refused = await client.knowledgeBases.delete(kb.id).catch((e) => e);
    expect(refused).toMatchObject({
      status: 400,
      code: 'confirmation_required',
      method: 'DELETE',
      path: `/v1/knowledge-bases/${kb.id}`,
    });
    const report = await client.knowledgeBases.delete(kb.id, { confirmPermanent: true });
    expect(report).toMatchObject({
      deleted: true,
      permanent: true,
      knowledge_base_id: kb.id,
      knowledge_base_name: 'Doomed',
      files_deleted: 1,
    });
    expect(report.database.files).toBe(1);
    await expect(client.knowledgeBases.index(kb.id)).rejects.toMatchObject({
      status: 404,
      code: 'knowledge_base_not_found',
    });
  });

  it('answers unknown routes with route_not_found and validation failures with their codes', async () => {
    await expect(client.artifacts.getLink('/v1/does-not-exist')).rejects.toMatchObject({
      status: 404,
      code: 'route_not_found',
    });
    await expect(client.knowledgeBases.create({ name: '' })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_request_body',
    });
    await expect(client.files.list({ limit: 500 })).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
  });
});
