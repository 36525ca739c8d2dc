import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { DocfleetApiError, DocfleetClient, type FileRecord } from '../src';
import { corpus, startGateway, type Gateway } from './helpers';

const PDF = corpus('f_forms_invoices/invoice2data/AzureInterior.pdf');
const PNG = corpus('c_scanned_images/tesseract.js/testocr.png');
const CSV = corpus('d_spreadsheets/docling/csv-comma.csv');
const XLSX = corpus('d_spreadsheets/unstructured/stanley-cups.xlsx');
const BIG_PDF = corpus('a_born_digital/docling/redp5110_sampled.pdf');

const execFileP = promisify(execFile);
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let gw: Gateway;
let client: DocfleetClient;
let kbId: string;
beforeAll(async () => {
  gw = await startGateway();
  const { key } = await gw.createOrg({ credits: 10 });
  client = new DocfleetClient({ baseUrl: gw.url, apiKey: key });
  kbId = (await client.knowledgeBases.create({ name: 'Files' })).knowledge_base.id;
});
afterAll(() => gw.close());

/** What the gateway stored, as the index reports it. */
async function indexed(fileId: string, kb = kbId) {
  const entry = (await client.knowledgeBases.index(kb)).files.find((f) => f.file_id === fileId);
  if (!entry) throw new Error(`file ${fileId} not in the index`);
  return entry;
}

describe('upload', () => {
  it('streams a path from disk, with metadata and the sniffed content type', async () => {
    const bytes = await readFile(PDF);
    const r = await client.files.upload(PDF, { knowledgeBaseId: kbId, metadata: { source: 'email', n: 1 } });
    expect(r.file).toMatchObject({
      filename: 'AzureInterior.pdf',
      content_type: 'application/pdf',
      knowledge_base_id: kbId,
      folder_id: null,
      deleted_at: null,
      metadata: { source: 'email', n: 1 },
    });
    expect(r.file.current_version).toMatchObject({ version_number: 1, byte_size: bytes.length, page_count: null });
    expect(r.parse_job).toBeUndefined();
    expect((await indexed(r.file.id)).sha256).toBe(sha256(bytes));
  });

  it('uploads a larger PDF from its path byte for byte', async () => {
    const bytes = await readFile(BIG_PDF);
    const { file } = await client.files.upload(BIG_PDF, { knowledgeBaseId: kbId });
    expect(file.current_version.byte_size).toBe(bytes.length);
    expect((await indexed(file.id)).sha256).toBe(sha256(bytes));
  });

  it('uploads a Buffer under the given filename, into a folder', async () => {
    const folder = (await client.knowledgeBases.createFolder(kbId, { name: 'scans' })).folder;
    const bytes = await readFile(PNG);
    const { file } = await client.files.upload(bytes, {
      knowledgeBaseId: kbId,
      folderId: folder.id,
      filename: 'scan.png',
    });
    expect(file).toMatchObject({ filename: 'scan.png', content_type: 'image/png', folder_id: folder.id });
    expect((await indexed(file.id)).sha256).toBe(sha256(bytes));
  });

  it('streams a Node Readable of unknown length (chunked multipart) and keeps UTF-8 names', async () => {
    const bytes = await readFile(XLSX);
    const { file } = await client.files.upload(createReadStream(XLSX, { highWaterMark: 4096 }), {
      knowledgeBaseId: kbId,
      filename: 'Überweisung März.xlsx',
    });
    expect(file.filename).toBe('Überweisung März.xlsx');
    expect(file.content_type).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(file.current_version.byte_size).toBe(bytes.length);
    expect((await indexed(file.id)).sha256).toBe(sha256(bytes));
  });

  it('takes the name of an fs stream when no filename is given, and a web ReadableStream', async () => {
    const fromFsStream = (await client.files.upload(createReadStream(CSV), { knowledgeBaseId: kbId })).file;
    expect(fromFsStream).toMatchObject({ filename: 'csv-comma.csv', content_type: 'text/csv' });
    const bytes = await readFile(CSV);
    const web = Readable.toWeb(
      Readable.from([bytes.subarray(0, 10), bytes.subarray(10)]),
    ) as ReadableStream<Uint8Array>;
    const fromWeb = (await client.files.upload(web, { knowledgeBaseId: kbId, filename: 'web.csv' })).file;
    expect(fromWeb.current_version.byte_size).toBe(bytes.length);
    expect((await indexed(fromWeb.id)).sha256).toBe(sha256(bytes));
  });

  it('needs a filename for nameless sources', async () => {
    await expect(client.files.upload(Buffer.from('a,b\n1,2\n'), { knowledgeBaseId: kbId })).rejects.toThrow(/filename/);
  });

  it('maps upload refusals to the documented error codes', async () => {
    await expect(
      client.files.upload(Buffer.from('just text, not a PDF'), { knowledgeBaseId: kbId, filename: 'notes.pdf' }),
    ).rejects.toMatchObject({ status: 415, code: 'unsupported_file_type', method: 'POST', path: '/v1/files' });
    await expect(
      client.files.upload(Buffer.alloc(0), { knowledgeBaseId: kbId, filename: 'empty.pdf' }),
    ).rejects.toMatchObject({ status: 400, code: 'empty_file' });
    await expect(
      client.files.upload(PDF, { knowledgeBaseId: '00000000-0000-4000-8000-000000000000' }),
    ).rejects.toMatchObject({ status: 404, code: 'knowledge_base_not_found' });
    const kb = (await client.knowledgeBases.create({ name: 'Dupes' })).knowledge_base;
    await client.files.upload(PDF, { knowledgeBaseId: kb.id });
    const dup = await client.files.upload(PDF, { knowledgeBaseId: kb.id }).catch((e) => e);
    expect(dup).toBeInstanceOf(DocfleetApiError);
    expect(dup).toMatchObject({ status: 409, code: 'duplicate_filename' });
    expect(dup.message).toBe(`POST /v1/files -> 409 duplicate_filename: ${dup.error}`);
  });

  it('keeps client memory flat while streaming a large file from disk', async () => {
    const big = await startGateway({ MAX_UPLOAD_BYTES: String(256 * 1024 * 1024) });
    // A 96 MiB "PDF" in a temp dir: the corpus is never written to.
    const dir = await mkdtemp(path.join(os.tmpdir(), 'sdk-big-'));
    try {
      const { key } = await big.createOrg();
      const kb = (await new DocfleetClient({ baseUrl: big.url, apiKey: key }).knowledgeBases.create({ name: 'Big' }))
        .knowledge_base;
      const p = path.join(dir, 'big.pdf');
      const fh = await open(p, 'w');
      await fh.write(Buffer.from('%PDF-1.7\n'));
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      for (let i = 0; i < 96; i++) await fh.write(chunk);
      await fh.close();
      // The SDK runs in a child process so only the client's memory is measured.
      const { stdout } = await execFileP(
        process.execPath,
        ['--expose-gc', '--import', 'tsx', path.join(__dirname, 'fixtures/upload-memory.ts'), big.url, kb.id, p],
        {
          env: { ...process.env, SDK_TEST_API_KEY: key },
        },
      );
      const { peak, byte_size } = JSON.parse(stdout) as { peak: number; byte_size: number };
      expect(byte_size).toBe(96 * 1024 * 1024 + 9);
      // Reading the file whole, or fetch keeping the body for a redirect replay, holds ~96 MiB.
      expect(peak).toBeLessThan(16 * 1024 * 1024);
    } finally {
      await rm(dir, { recursive: true, force: true });
      await big.close();
    }
  });
});

describe('list, get, move, replace, trash, restore, permanent delete', () => {
  let kb: string;
  beforeAll(async () => {
    kb = (await client.knowledgeBases.create({ name: 'Lifecycle' })).knowledge_base.id;
  });

  it('lists with filters and follows cursors', async () => {
    const k = (await client.knowledgeBases.create({ name: 'Paging' })).knowledge_base.id;
    for (let i = 0; i < 5; i++)
      await client.files.upload(Buffer.from(`a,b\n${i},2\n`), { knowledgeBaseId: k, filename: `p${i}.csv` });
    const first = await client.files.list({ knowledgeBaseId: k, limit: 2 });
    expect(first.files.map((f) => f.filename)).toEqual(['p4.csv', 'p3.csv']);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await client.files.list({ knowledgeBaseId: k, limit: 2, cursor: first.next_cursor! });
    expect(second.files.map((f) => f.filename)).toEqual(['p2.csv', 'p1.csv']);
    const all: FileRecord[] = [];
    for await (const f of client.files.iterate({ knowledgeBaseId: k, limit: 2 })) all.push(f);
    expect(all.map((f) => f.filename)).toEqual(['p4.csv', 'p3.csv', 'p2.csv', 'p1.csv', 'p0.csv']);
  });

  it('runs the whole lifecycle', async () => {
    const folder = (await client.knowledgeBases.createFolder(kb, { name: 'archive' })).folder;
    const f = (await client.files.upload(PDF, { knowledgeBaseId: kb, filename: 'doc.pdf' })).file;
    expect((await client.files.get(f.id)).file).toEqual(f);

    const moved = (await client.files.move(f.id, { folder_id: folder.id })).file;
    expect(moved.folder_id).toBe(folder.id);
    await client.files.upload(PDF, { knowledgeBaseId: kb, filename: 'doc.pdf' });
    await expect(client.files.move(f.id, { folder_id: null })).rejects.toMatchObject({
      status: 409,
      code: 'duplicate_filename',
      method: 'PATCH',
      path: `/v1/files/${f.id}/move`,
    });

    const png = await readFile(PNG);
    const replaced = (await client.files.replaceContent(f.id, PNG)).file;
    expect(replaced.current_version).toMatchObject({ version_number: 2, byte_size: png.length });
    expect(replaced).toMatchObject({ filename: 'doc.pdf', content_type: 'image/png' });
    const again = (await client.files.replaceContent(f.id, Readable.from([png]), { filename: 'again.png' })).file;
    expect(again.current_version.version_number).toBe(3);

    const trashed = (await client.files.delete(f.id)).file;
    expect(trashed.deleted_at).not.toBeNull();
    await expect(client.files.get(f.id)).rejects.toMatchObject({ status: 404, code: 'file_not_found' });
    expect((await client.files.list({ knowledgeBaseId: kb })).files.map((x) => x.id)).not.toContain(f.id);
    expect((await client.files.list({ knowledgeBaseId: kb, includeDeleted: true })).files.map((x) => x.id)).toContain(
      f.id,
    );

    const restored = (await client.files.restore(f.id)).file;
    expect(restored.deleted_at).toBeNull();

    await expect(client.files.permanentDelete(f.id)).rejects.toMatchObject({
      status: 400,
      code: 'confirmation_required',
    });
    const gone = await client.files.permanentDelete(f.id, { confirmPermanent: true });
    expect(gone).toMatchObject({
      deleted: true,
      permanent: true,
      file_id: f.id,
      database: { files: 1, file_versions: 3 },
    });
    await expect(client.files.get(f.id)).rejects.toMatchObject({ code: 'file_not_found' });
  });

  it('reports file_has_active_job while a job runs', async () => {
    const f = (await client.files.upload(CSV, { knowledgeBaseId: kb, filename: 'busy.csv' })).file;
    await gw.db.job.create({
      data: {
        org_id: f.org_id,
        knowledge_base_id: kb,
        file_id: f.id,
        file_version_id: f.current_version.id,
        kind: 'parse',
        status: 'running',
        idempotency_key: 'busy',
      },
    });
    await expect(client.files.delete(f.id)).rejects.toMatchObject({ status: 409, code: 'file_has_active_job' });
    await expect(client.files.replaceContent(f.id, CSV)).rejects.toMatchObject({
      status: 409,
      code: 'file_has_active_job',
    });
  });
});
