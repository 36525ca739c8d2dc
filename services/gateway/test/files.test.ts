import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CORPUS, startGateway, type Gateway } from './harness';

let gw: Gateway;
let key: string;
let kbId: string;
let pdf: Buffer;
let png: Buffer;
beforeAll(async () => {
  gw = await startGateway({ MAX_UPLOAD_BYTES: String(2 * 1024 * 1024) });
  ({ key } = await gw.createOrg({ credits: 10 }));
  kbId = (await gw.createKnowledgeBase(key, 'Files')).id;
  pdf = await readFile(path.join(CORPUS, 'f_forms_invoices/invoice2data/AzureInterior.pdf'));
  png = await readFile(path.join(CORPUS, 'c_scanned_images/tesseract.js/testocr.png'));
});
afterAll(() => gw.close());

describe('upload', () => {
  it('stores the bytes with sha256, size and a sniffed content type', async () => {
    const r = await gw.upload(
      key,
      { knowledge_base_id: kbId, metadata: JSON.stringify({ source: 'email' }) },
      { name: 'invoice.pdf', data: pdf, type: 'text/plain' },
    );
    expect(r.status).toBe(201);
    expect(r.body.file).toMatchObject({
      filename: 'invoice.pdf',
      content_type: 'application/pdf',
      folder_id: null,
      deleted_at: null,
      metadata: { source: 'email' },
      knowledge_base_id: kbId,
    });
    expect(r.body.file.current_version).toMatchObject({ version_number: 1, byte_size: pdf.length, page_count: null });
    const v = await gw.db.fileVersion.findUniqueOrThrow({ where: { id: r.body.file.current_version.id } });
    const stored = await gw.deps.storage.read(v.storage_path);
    expect(stored.equals(pdf)).toBe(true);
    expect(v.sha256).toBe(require('node:crypto').createHash('sha256').update(pdf).digest('hex'));
  });

  it('trusts bytes over the name: a PNG named .pdf is an image', async () => {
    const r = await gw.upload(key, { knowledge_base_id: kbId }, { name: 'scan.pdf', data: png });
    expect(r.status).toBe(201);
    expect(r.body.file.content_type).toBe('image/png');
  });

  it('takes the filename override and keeps UTF-8 names', async () => {
    const r = await gw.upload(
      key,
      { knowledge_base_id: kbId, filename: 'Überweisung März.pdf' },
      { name: 'x.pdf', data: pdf },
    );
    expect(r.body.file.filename).toBe('Überweisung März.pdf');
    const r2 = await gw.upload(key, { knowledge_base_id: kbId }, { name: 'Rechnung-ß.pdf', data: pdf });
    expect(r2.body.file.filename).toBe('Rechnung-ß.pdf');
  });

  it('rejects bad input with the documented error codes and leaves nothing behind', async () => {
    const before = await gw.db.file.count();
    const cases: Array<[Record<string, string>, { name: string; data: Buffer | string }, number, string]> = [
      [{ knowledge_base_id: kbId, metadata: '{not json' }, { name: 'm.pdf', data: pdf }, 400, 'invalid_metadata'],
      [{ knowledge_base_id: kbId, metadata: '[1,2]' }, { name: 'm2.pdf', data: pdf }, 400, 'invalid_metadata'],
      [{ knowledge_base_id: kbId }, { name: 'empty.pdf', data: '' }, 400, 'empty_file'],
      [
        { knowledge_base_id: kbId },
        { name: 'notes.pdf', data: 'just some text, not a PDF' },
        415,
        'unsupported_file_type',
      ],
      [
        { knowledge_base_id: kbId },
        { name: 'prog.exe', data: Buffer.from([0x4d, 0x5a, 0x90, 0, 3, 0, 0, 0]) },
        415,
        'unsupported_file_type',
      ],
      [
        { knowledge_base_id: kbId },
        { name: 'big.pdf', data: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(3 * 1024 * 1024)]) },
        413,
        'file_too_large',
      ],
      [
        { knowledge_base_id: kbId, metadata: JSON.stringify({ blob: 'x'.repeat(300 * 1024) }) },
        { name: 'huge-meta.pdf', data: pdf },
        413,
        'request_too_large',
      ],
      [{ knowledge_base_id: 'not-a-uuid' }, { name: 'k.pdf', data: pdf }, 400, 'invalid_request_body'],
      [
        { knowledge_base_id: '00000000-0000-4000-8000-000000000000' },
        { name: 'k.pdf', data: pdf },
        404,
        'knowledge_base_not_found',
      ],
      [
        { knowledge_base_id: kbId, folder_id: '00000000-0000-4000-8000-000000000000' },
        { name: 'k.pdf', data: pdf },
        404,
        'folder_not_found',
      ],
    ];
    for (const [fields, file, status, code] of cases) {
      const r = await gw.upload(key, fields, file);
      expect({ name: file.name, status: r.status, code: r.body?.code }).toEqual({ name: file.name, status, code });
    }
    const noFile = await gw.req('POST', '/v1/files', {
      key,
      form: (() => {
        const f = new FormData();
        f.append('knowledge_base_id', kbId);
        return f;
      })(),
    });
    expect(noFile.status).toBe(400);
    expect(await gw.db.file.count()).toBe(before);
    const staging = await gw.deps.storage.list('staging/uploads');
    expect(staging).toEqual([]);
  });

  it('refuses a duplicate live name in the same folder, allows it in another folder', async () => {
    const folder = (await gw.req('POST', `/v1/knowledge-bases/${kbId}/folders`, { key, body: { name: 'dupes' } })).body
      .folder;
    expect(
      (await gw.upload(key, { knowledge_base_id: kbId, folder_id: folder.id }, { name: 'same.pdf', data: pdf })).status,
    ).toBe(201);
    const dup = await gw.upload(
      key,
      { knowledge_base_id: kbId, folder_id: folder.id },
      { name: 'same.pdf', data: pdf },
    );
    expect(dup.status).toBe(409);
    expect(dup.body.code).toBe('duplicate_filename');
    expect((await gw.upload(key, { knowledge_base_id: kbId }, { name: 'same.pdf', data: pdf })).status).toBe(201);
  });
});

describe('file lifecycle', () => {
  it('lists with cursor pagination and filters', async () => {
    const kb = await gw.createKnowledgeBase(key, 'Paging');
    for (let i = 0; i < 5; i++)
      await gw.upload(key, { knowledge_base_id: kb.id }, { name: `p${i}.csv`, data: `a,b\n${i},2\n` });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await gw.req(
        'GET',
        `/v1/files?knowledge_base_id=${kb.id}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        { key },
      );
      expect(r.status).toBe(200);
      seen.push(...r.body.files.map((f: any) => f.filename));
      cursor = r.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['p4.csv', 'p3.csv', 'p2.csv', 'p1.csv', 'p0.csv']);
    expect((await gw.req('GET', '/v1/files?limit=500', { key })).status).toBe(400);
    expect((await gw.req('GET', '/v1/files?cursor=garbage', { key })).body.code).toBe('invalid_request');
  });

  it('moves, replaces, trashes, restores and deletes permanently', async () => {
    const kb = await gw.createKnowledgeBase(key, 'Lifecycle');
    const folder = (await gw.req('POST', `/v1/knowledge-bases/${kb.id}/folders`, { key, body: { name: 'archive' } }))
      .body.folder;
    const f = (await gw.upload(key, { knowledge_base_id: kb.id }, { name: 'doc.pdf', data: pdf })).body.file;

    const moved = await gw.req('PATCH', `/v1/files/${f.id}/move`, { key, body: { folder_id: folder.id } });
    expect(moved.status).toBe(200);
    expect(moved.body.file.folder_id).toBe(folder.id);
    await gw.upload(key, { knowledge_base_id: kb.id }, { name: 'doc.pdf', data: pdf });
    const clash = await gw.req('PATCH', `/v1/files/${f.id}/move`, { key, body: { folder_id: null } });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe('duplicate_filename');

    const replaced = await gw.upload(key, {}, { name: 'new.png', data: png }, 'PUT', `/v1/files/${f.id}/content`);
    expect(replaced.status).toBe(200);
    expect(replaced.body.file.current_version).toMatchObject({ version_number: 2, byte_size: png.length });
    expect(replaced.body.file.content_type).toBe('image/png');
    expect(replaced.body.file.filename).toBe('doc.pdf');
    const versions = await gw.db.fileVersion.findMany({ where: { file_id: f.id }, orderBy: { version_number: 'asc' } });
    expect(versions.map((v) => v.version_number)).toEqual([1, 2]);
    expect((await gw.deps.storage.read(versions[0].storage_path)).equals(pdf)).toBe(true);

    const trashed = await gw.req('DELETE', `/v1/files/${f.id}`, { key });
    expect(trashed.status).toBe(200);
    expect(trashed.body.file.deleted_at).not.toBeNull();
    expect((await gw.req('GET', `/v1/files/${f.id}`, { key })).status).toBe(404);
    const live = await gw.req('GET', `/v1/files?knowledge_base_id=${kb.id}`, { key });
    expect(live.body.files.map((x: any) => x.id)).not.toContain(f.id);
    const all = await gw.req('GET', `/v1/files?knowledge_base_id=${kb.id}&include_deleted=true`, { key });
    expect(all.body.files.map((x: any) => x.id)).toContain(f.id);
    const idx = await gw.req('GET', `/v1/knowledge-bases/${kb.id}/index`, { key });
    expect(idx.body.files.map((x: any) => x.file_id)).not.toContain(f.id);

    // a live file takes the name while the original is in the trash
    const taker = (
      await gw.upload(key, { knowledge_base_id: kb.id, folder_id: folder.id }, { name: 'doc.pdf', data: pdf })
    ).body.file;
    const blocked = await gw.req('POST', `/v1/files/${f.id}/restore`, { key });
    expect(blocked.status).toBe(409);
    expect(blocked.body.code).toBe('duplicate_filename');
    await gw.req('DELETE', `/v1/files/${taker.id}`, { key });
    const restored = await gw.req('POST', `/v1/files/${f.id}/restore`, { key });
    expect(restored.status).toBe(200);
    expect(restored.body.file.deleted_at).toBeNull();

    expect((await gw.req('DELETE', `/v1/files/${f.id}/permanent`, { key })).body.code).toBe('confirmation_required');
    const gone = await gw.req('DELETE', `/v1/files/${f.id}/permanent?confirm_permanent=true`, { key });
    expect(gone.status).toBe(200);
    expect(gone.body).toMatchObject({
      deleted: true,
      permanent: true,
      file_id: f.id,
      database: { files: 1, file_versions: 2 },
    });
    expect(await gw.db.fileVersion.count({ where: { file_id: f.id } })).toBe(0);
    expect(await gw.deps.storage.exists(versions[0].storage_path)).toBe(false);
    expect((await gw.req('GET', `/v1/files/${f.id}`, { key })).status).toBe(404);
  });

  it('blocks delete and replace while a job is active', async () => {
    const f = (await gw.upload(key, { knowledge_base_id: kbId }, { name: 'busy.pdf', data: pdf })).body.file;
    await gw.db.job.create({
      data: {
        org_id: f.org_id,
        knowledge_base_id: kbId,
        file_id: f.id,
        file_version_id: f.current_version.id,
        kind: 'parse',
        status: 'running',
        idempotency_key: 'busy',
      },
    });
    for (const r of [
      await gw.req('DELETE', `/v1/files/${f.id}`, { key }),
      await gw.req('DELETE', `/v1/files/${f.id}/permanent?confirm_permanent=true`, { key }),
      await gw.upload(key, {}, { name: 'x.pdf', data: pdf }, 'PUT', `/v1/files/${f.id}/content`),
    ]) {
      expect(r.status).toBe(409);
      expect(r.body.code).toBe('file_has_active_job');
    }
  });
});
