import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { CORPUS, startGateway, type Gateway } from './harness';

let gw: Gateway;
let key: string;
beforeAll(async () => {
  gw = await startGateway();
  ({ key } = await gw.createOrg({ credits: 10 }));
});
afterAll(() => gw.close());

describe('knowledge bases', () => {
  it('creates, lists newest first, renames', async () => {
    const a = await gw.req('POST', '/v1/knowledge-bases', {
      key,
      body: { name: 'Contracts', description: 'NDAs', metadata: { team: 'legal' } },
    });
    expect(a.status).toBe(201);
    expect(a.body.knowledge_base).toMatchObject({
      name: 'Contracts',
      description: 'NDAs',
      metadata: { team: 'legal' },
    });
    expect(a.body.knowledge_base.id).toMatch(/^[0-9a-f-]{36}$/);
    const b = await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Invoices' } });
    expect(b.body.knowledge_base.description).toBeNull();
    const list = await gw.req('GET', '/v1/knowledge-bases', { key });
    expect(list.status).toBe(200);
    expect(list.body.knowledge_bases.map((k: any) => k.name)).toEqual(['Invoices', 'Contracts']);
    const renamed = await gw.req('PATCH', `/v1/knowledge-bases/${a.body.knowledge_base.id}`, {
      key,
      body: { name: 'Contracts 2026', description: 'all NDAs' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.knowledge_base).toMatchObject({ name: 'Contracts 2026', description: 'all NDAs' });
  });

  it('refuses duplicate names case-insensitively, on create and rename', async () => {
    await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Research' } });
    const dup = await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'RESEARCH' } });
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({ code: 'duplicate_knowledge_base_name' });
    expect(typeof dup.body.request_id).toBe('string');
    const other = await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Other' } });
    const clash = await gw.req('PATCH', `/v1/knowledge-bases/${other.body.knowledge_base.id}`, {
      key,
      body: { name: 'research' },
    });
    expect(clash.status).toBe(409);
  });

  it('validates bodies', async () => {
    const noName = await gw.req('POST', '/v1/knowledge-bases', { key, body: {} });
    expect(noName.status).toBe(400);
    expect(noName.body.code).toBe('invalid_request_body');
    const kb = await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Needs name on patch' } });
    const patch = await gw.req('PATCH', `/v1/knowledge-bases/${kb.body.knowledge_base.id}`, {
      key,
      body: { description: 'only description' },
    });
    expect(patch.status).toBe(400);
    expect(patch.body.code).toBe('invalid_request_body');
    const badJson = await gw.req('POST', '/v1/knowledge-bases', { key, raw: '{"name": ' });
    expect(badJson.status).toBe(400);
    expect(badJson.body.code).toBe('invalid_request_body');
    const unknown = await gw.req('PATCH', '/v1/knowledge-bases/00000000-0000-4000-8000-000000000000', {
      key,
      body: { name: 'x' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('knowledge_base_not_found');
  });

  it('creates nested folders and refuses sibling duplicates and foreign parents', async () => {
    const kb = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Folders' } })).body.knowledge_base;
    const other = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Folders elsewhere' } })).body
      .knowledge_base;
    const top = await gw.req('POST', `/v1/knowledge-bases/${kb.id}/folders`, {
      key,
      body: { name: '2026', parent_folder_id: null },
    });
    expect(top.status).toBe(201);
    expect(top.body.folder).toMatchObject({ name: '2026', parent_folder_id: null, knowledge_base_id: kb.id });
    const child = await gw.req('POST', `/v1/knowledge-bases/${kb.id}/folders`, {
      key,
      body: { name: 'Q1', parent_folder_id: top.body.folder.id },
    });
    expect(child.status).toBe(201);
    expect(child.body.folder.parent_folder_id).toBe(top.body.folder.id);
    expect(
      (
        await gw.req('POST', `/v1/knowledge-bases/${kb.id}/folders`, {
          key,
          body: { name: 'q1', parent_folder_id: top.body.folder.id },
        })
      ).body.code,
    ).toBe('duplicate_folder_name');
    expect((await gw.req('POST', `/v1/knowledge-bases/${kb.id}/folders`, { key, body: { name: '2026' } })).status).toBe(
      409,
    );
    // the same name under another parent is fine
    expect((await gw.req('POST', `/v1/knowledge-bases/${kb.id}/folders`, { key, body: { name: 'Q1' } })).status).toBe(
      201,
    );
    const foreign = await gw.req('POST', `/v1/knowledge-bases/${other.id}/folders`, {
      key,
      body: { name: 'x', parent_folder_id: top.body.folder.id },
    });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('folder_not_found');
  });

  it('serves the index with every field, filtered by folder', async () => {
    const kb = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Indexed' } })).body.knowledge_base;
    const folder = (await gw.req('POST', `/v1/knowledge-bases/${kb.id}/folders`, { key, body: { name: 'Invoices' } }))
      .body.folder;
    const pdf = await readFile(path.join(CORPUS, 'f_forms_invoices/invoice2data/AzureInterior.pdf'));
    const up = await gw.upload(
      key,
      { knowledge_base_id: kb.id, folder_id: folder.id, metadata: '{"vendor":"Azure"}' },
      { name: 'azure.pdf', data: pdf },
    );
    expect(up.status).toBe(201);
    await gw.upload(key, { knowledge_base_id: kb.id }, { name: 'top.pdf', data: pdf });
    const idx = await gw.req('GET', `/v1/knowledge-bases/${kb.id}/index`, { key });
    expect(idx.status).toBe(200);
    expect(idx.body.knowledge_base).toEqual({ id: kb.id, name: 'Indexed' });
    expect(typeof idx.body.index_version).toBe('string');
    expect(idx.body.files).toHaveLength(2);
    const e = idx.body.files.find((f: any) => f.filename === 'azure.pdf');
    expect(e).toEqual({
      file_id: up.body.file.id,
      filename: 'azure.pdf',
      content_type: 'application/pdf',
      folder_id: folder.id,
      folder_name: 'Invoices',
      current_version_id: up.body.file.current_version.id,
      version_number: 1,
      storage_path: expect.any(String),
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      byte_size: pdf.length,
      page_count: null,
      metadata: { vendor: 'Azure' },
      created_at: expect.any(String),
      updated_at: expect.any(String),
      latest_parse_job: null,
      latest_extract_job: null,
      parse_artifacts: null,
      extract_artifacts: null,
    });
    // polling with the ETag answers 304 until something changes
    const etag = idx.headers.get('etag')!;
    expect(etag).toBe(`"${idx.body.index_version}"`);
    expect(
      (await gw.req('GET', `/v1/knowledge-bases/${kb.id}/index`, { key, headers: { 'if-none-match': etag } })).status,
    ).toBe(304);
    await gw.req('PATCH', `/v1/files/${up.body.file.id}/move`, { key, body: { folder_id: null } });
    const changed = await gw.req('GET', `/v1/knowledge-bases/${kb.id}/index`, {
      key,
      headers: { 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.index_version).not.toBe(idx.body.index_version);
    // A write whose stamp is older than one a poll has already seen (its transaction stamped first
    // and committed last) still changes the version: the version is not the newest stamp.
    const seen = changed.headers.get('etag')!;
    await gw.db
      .$executeRaw`UPDATE files SET updated_at = updated_at - interval '1 hour' WHERE id = ${up.body.file.id}::uuid`;
    const late = await gw.req('GET', `/v1/knowledge-bases/${kb.id}/index`, { key, headers: { 'if-none-match': seen } });
    expect(late.status).toBe(200);
    expect(late.body.index_version).not.toBe(changed.body.index_version);
    await gw.req('PATCH', `/v1/files/${up.body.file.id}/move`, { key, body: { folder_id: folder.id } });
    const filtered = await gw.req('GET', `/v1/knowledge-bases/${kb.id}/index?folder_id=${folder.id}`, { key });
    expect(filtered.body.files.map((f: any) => f.filename)).toEqual(['azure.pdf']);
  });

  it('deletes permanently with a full report and removes storage', async () => {
    const kb = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Doomed' } })).body.knowledge_base;
    await gw.req('POST', `/v1/knowledge-bases/${kb.id}/folders`, { key, body: { name: 'f' } });
    const a = await gw.upload(key, { knowledge_base_id: kb.id }, { name: 'a.csv', data: 'x,y\n1,2\n' });
    const b = await gw.upload(key, { knowledge_base_id: kb.id }, { name: 'b.csv', data: 'x,y\n3,4\n' });
    await gw.req('DELETE', `/v1/files/${b.body.file.id}`, { key }); // trashed files go too
    const root = path.join(gw.dataDir, 'storage', 'kb', kb.id);
    expect(existsSync(root)).toBe(true);
    const refused = await gw.req('DELETE', `/v1/knowledge-bases/${kb.id}`, { key });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('confirmation_required');
    const del = await gw.req('DELETE', `/v1/knowledge-bases/${kb.id}?confirm_permanent=true`, { key });
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({
      deleted: true,
      permanent: true,
      knowledge_base_id: kb.id,
      knowledge_base_name: 'Doomed',
      files_deleted: 2,
      filesystem_roots_removed: [`kb/${kb.id}`],
    });
    expect(Object.keys(del.body.database).sort()).toEqual([
      'artifacts',
      'credit_reservations',
      'evidence_index_segments',
      'extraction_results',
      'file_versions',
      'files',
      'folders',
      'import_items',
      'imports',
      'jobs',
      'knowledge_base_job_credit_reservations',
      'knowledge_base_jobs',
      'knowledge_bases',
      'page_versions',
      'rbac_grants',
    ]);
    expect(del.body.database).toMatchObject({ files: 2, file_versions: 2, folders: 1, knowledge_bases: 1 });
    expect(existsSync(root)).toBe(false);
    expect((await gw.req('GET', `/v1/files/${a.body.file.id}`, { key })).status).toBe(404);
    expect((await gw.req('GET', `/v1/knowledge-bases/${kb.id}/index`, { key })).status).toBe(404);
  });
});
