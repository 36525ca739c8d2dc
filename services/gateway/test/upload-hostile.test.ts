// Uploads that cannot kill anything: every failure on the upload stream path answers that one
// request with the error envelope (or, when the client is gone, nobody), removes the staged bytes,
// and the same gateway process then takes a normal upload. The gateway runs as a real process.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  CORPUS,
  multipartBody,
  rawRequest,
  spawnGateway,
  waitUntil,
  type GatewayProcess,
  type RawResponse,
} from '@docfleet/testing';

const MAX_UPLOAD = 2 * 1024 * 1024;
const BOUNDARY = 'docfleet-test-boundary-7d1f';

let gw: GatewayProcess;
let key: string;
let orgId: string;
let kbId: string;
let pdf: Buffer;
let n = 0;

beforeAll(async () => {
  pdf = await readFile(path.join(CORPUS, 'f_forms_invoices/invoice2data/AzureInterior.pdf'));
  gw = await spawnGateway({ env: { MAX_UPLOAD_BYTES: String(MAX_UPLOAD) } });
  ({ key, orgId } = await gw.createOrg({ credits: 10 }));
  kbId = (await gw.req('POST', '/v1/knowledge-bases', { key, body: { name: 'Hostile' } })).body.knowledge_base.id;
});
afterAll(() => gw?.close());

/** Everything under staging/uploads, temporary files included. */
async function staged(g: { dataDir: string }): Promise<string[]> {
  try {
    return await readdir(path.join(g.dataDir, 'storage', 'staging', 'uploads'));
  } catch {
    return [];
  }
}

/** The process lives, staged bytes are gone, no file row was left, and a normal upload succeeds. */
async function stillServes(g: GatewayProcess, apiKey: string, kb: string, filesBefore: number) {
  expect(await g.alive()).toBe(true);
  expect(g.output()).not.toMatch(/unhandled error|Unhandled 'error' event/);
  await waitUntil('the staged bytes to be removed', async () => (await staged(g)).length === 0);
  expect(await g.db.file.count()).toBe(filesBefore);
  const ok = await g.upload(apiKey, { knowledge_base_id: kb }, { name: `after-${++n}.pdf`, data: pdf });
  expect(ok.status).toBe(201);
  expect(await g.alive()).toBe(true);
  expect(await staged(g)).toEqual([]);
}

function expectEnvelope(r: RawResponse | undefined, status: number, code: string) {
  expect(r).toBeDefined();
  expect({ status: r!.status, code: r!.body?.code }).toEqual({ status, code });
  expect(typeof r!.body.error).toBe('string');
  expect(r!.body.request_id).toEqual(expect.any(String));
}

const head = (p: string, headers: Record<string, string | number>, method = 'POST') =>
  [`${method} ${p} HTTP/1.1`, 'Host: 127.0.0.1', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)].join('\r\n');

describe('a multipart upload that fails on the stream', () => {
  it('a body that ends before the closing boundary: 400, and the process lives', async () => {
    const before = await gw.db.file.count();
    // ends inside the file part: the bytes arrived as declared, the closing boundary never does
    const body = multipartBody(
      BOUNDARY,
      { knowledge_base_id: kbId },
      { name: 'cut.pdf', data: pdf.subarray(0, 20_000) },
      { close: false },
    );
    const r = await rawRequest(
      gw.port,
      head('/v1/files', {
        'x-api-key': key,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': body.length,
      }),
      body,
    ).response;
    // the same request, cut inside the part headers
    const cut = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filen`);
    const r2 = await rawRequest(
      gw.port,
      head('/v1/files', {
        'x-api-key': key,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': cut.length,
      }),
      cut,
    ).response;
    expectEnvelope(r, 400, 'invalid_request_body');
    expectEnvelope(r2, 400, 'invalid_request_body');
    await stillServes(gw, key, kbId, before);
  });

  it('a multipart body without a boundary, or whose boundary never appears: 400', async () => {
    const before = await gw.db.file.count();
    const body = multipartBody(BOUNDARY, { knowledge_base_id: kbId }, { name: 'x.pdf', data: pdf });
    const none = await rawRequest(
      gw.port,
      head('/v1/files', { 'x-api-key': key, 'content-type': 'multipart/form-data', 'content-length': body.length }),
      body,
    ).response;
    expectEnvelope(none, 400, 'invalid_request_body');
    const other = await rawRequest(
      gw.port,
      head('/v1/files', {
        'x-api-key': key,
        'content-type': 'multipart/form-data; boundary=somethingelse',
        'content-length': body.length,
      }),
      body,
    ).response;
    expectEnvelope(other, 400, 'invalid_request_body');
    await stillServes(gw, key, kbId, before);
  });

  it('a client gone mid-upload: nothing answers, the staged bytes go, the process lives', async () => {
    const before = await gw.db.file.count();
    const body = multipartBody(
      BOUNDARY,
      { knowledge_base_id: kbId },
      { name: 'gone.pdf', data: Buffer.concat([pdf, Buffer.alloc(1024 * 1024)]) },
    );
    const x = rawRequest(
      gw.port,
      head('/v1/files', {
        'x-api-key': key,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': body.length,
      }),
      body.subarray(0, 400_000),
      'keep',
    );
    // the staged object exists while the upload streams, then the client vanishes
    await waitUntil('the upload to be staged', async () => (await staged(gw)).length > 0);
    x.socket.destroy();
    expect(await x.response).toBeUndefined();
    await stillServes(gw, key, kbId, before);
  });

  it('a file over MAX_UPLOAD_BYTES: 413 file_too_large, also when the client keeps sending', async () => {
    const before = await gw.db.file.count();
    const big = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(MAX_UPLOAD + 1)]);
    const r = await gw.upload(key, { knowledge_base_id: kbId }, { name: 'big.pdf', data: big });
    expect({ status: r.status, code: r.body.code }).toEqual({ status: 413, code: 'file_too_large' });
    expect(r.body.request_id).toEqual(expect.any(String));
    const body = multipartBody(BOUNDARY, { knowledge_base_id: kbId }, { name: 'big2.pdf', data: big });
    const raw = await rawRequest(
      gw.port,
      head('/v1/files', {
        'x-api-key': key,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': body.length,
      }),
      body,
    ).response;
    expectEnvelope(raw, 413, 'file_too_large');
    await stillServes(gw, key, kbId, before);
  });
});

describe('credentials and permission come before the body', () => {
  it('answers 401 and 403 before the body has arrived, and a viewer cannot kill the process', async () => {
    const before = await gw.db.file.count();
    const viewer = await gw.createSession(orgId, 'viewer');
    const body = multipartBody(
      BOUNDARY,
      { knowledge_base_id: kbId },
      { name: 'v.pdf', data: Buffer.concat([pdf, Buffer.alloc(512 * 1024)]) },
    );
    const partial = body.subarray(0, 50_000);
    const headers = { 'content-type': `multipart/form-data; boundary=${BOUNDARY}`, 'content-length': body.length };
    // The client holds the rest of the body: an answer now proves the body was not waited for.
    const cases: Array<[string, Record<string, string | number>, number, string]> = [
      ['POST /v1/files', {}, 401, 'invalid_api_key'],
      ['POST /v1/files', { ...viewer.headers }, 403, 'permission_required'],
      [`PUT /v1/files/00000000-0000-4000-8000-000000000000/content`, { 'x-api-key': key }, 404, 'file_not_found'],
    ];
    const file = (await gw.upload(key, { knowledge_base_id: kbId }, { name: `target-${++n}.pdf`, data: pdf })).body
      .file;
    cases.push([`PUT /v1/files/${file.id}/content`, { ...viewer.headers }, 403, 'permission_required']);
    for (const [line, extra, status, code] of cases) {
      const [method, p] = line.split(' ');
      const x = rawRequest(gw.port, head(p, { ...headers, ...extra }, method), partial, 'keep');
      const r = await x.response;
      x.socket.destroy();
      expectEnvelope(r, status, code);
    }
    // A viewer's truncated body is refused the same way (it used to stop the gateway).
    const cut = multipartBody(
      BOUNDARY,
      { knowledge_base_id: kbId },
      { name: 'cut.pdf', data: pdf.subarray(0, 5000) },
      { close: false },
    );
    const r = await rawRequest(
      gw.port,
      head('/v1/files', {
        ...viewer.headers,
        'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
        'content-length': cut.length,
      }),
      cut,
    ).response;
    expectEnvelope(r, 403, 'permission_required');
    await stillServes(gw, key, kbId, before + 1);
  });
});

/** Mounting a tmpfs needs root (CAP_SYS_ADMIN); the suite runs as root on the project's machines. */
function canMount(): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = path.join(os.tmpdir(), `docfleet-mount-probe-${process.pid}`);
  try {
    execFileSync('mkdir', ['-p', probe]);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'ignore' });
    execFileSync('umount', [probe]);
    return true;
  } catch {
    return false;
  } finally {
    execFileSync('rm', ['-rf', probe]);
  }
}

describe('storage failures while staging', () => {
  const mountable = canMount();
  (mountable ? it : it.skip)(
    'disk full: 507 insufficient_storage, the partial bytes are removed, the next upload fits',
    async () => {
      const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-full-'));
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1536k', 'tmpfs', dataDir]);
      let g: GatewayProcess | undefined;
      try {
        g = await spawnGateway({ dataDir, env: { MAX_UPLOAD_BYTES: String(8 * 1024 * 1024) } });
        const org = await g.createOrg();
        const kb = (await g.req('POST', '/v1/knowledge-bases', { key: org.key, body: { name: 'Full' } })).body
          .knowledge_base.id;
        const r = await g.upload(
          org.key,
          { knowledge_base_id: kb },
          { name: 'fills-the-disk.pdf', data: Buffer.concat([pdf, Buffer.alloc(3 * 1024 * 1024)]) },
        );
        expect({ status: r.status, code: r.body.code }).toEqual({ status: 507, code: 'insufficient_storage' });
        expect(r.body.request_id).toEqual(expect.any(String));
        await stillServes(g, org.key, kb, 0);
      } finally {
        await g?.close();
        execFileSync('umount', [dataDir]);
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  );

  it('a storage write error mid-stream: 503 storage_unavailable, the process lives', async () => {
    // The gateway runs with a file-size limit (RLIMIT_FSIZE, SIGXFSZ ignored): writing past it fails
    // with EFBIG, the way a failing volume fails a write in the middle of an upload.
    const g = await spawnGateway({
      env: { MAX_UPLOAD_BYTES: String(8 * 1024 * 1024) },
      wrap: (argv) => ['sh', '-c', `trap '' XFSZ; ulimit -f 2048; exec "$@"`, 'sh', ...argv],
    });
    try {
      const org = await g.createOrg();
      const kb = (await g.req('POST', '/v1/knowledge-bases', { key: org.key, body: { name: 'Broken' } })).body
        .knowledge_base.id;
      const r = await g.upload(
        org.key,
        { knowledge_base_id: kb },
        { name: 'too-much.pdf', data: Buffer.concat([pdf, Buffer.alloc(2 * 1024 * 1024)]) },
      );
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 503, code: 'storage_unavailable' });
      expect(r.body.request_id).toEqual(expect.any(String));
      expect(r.body.error).not.toMatch(/EFBIG|\/tmp|\.data/); // no paths or errno on the wire
      await stillServes(g, org.key, kb, 0);
    } finally {
      await g.close();
    }
  });

  it('staging that cannot be created: 503 storage_unavailable until it can', async () => {
    const before = await gw.db.file.count();
    // a file where the staging directory belongs: every mkdir under it fails
    const dir = path.join(gw.dataDir, 'storage', 'staging', 'uploads');
    await rm(dir, { recursive: true, force: true });
    await mkdir(path.dirname(dir), { recursive: true });
    await import('node:fs/promises').then((fs) => fs.writeFile(dir, 'not a directory'));
    try {
      const r = await gw.upload(key, { knowledge_base_id: kbId }, { name: 'nowhere.pdf', data: pdf });
      expect({ status: r.status, code: r.body.code }).toEqual({ status: 503, code: 'storage_unavailable' });
      expect(await gw.alive()).toBe(true);
    } finally {
      await rm(dir, { force: true });
    }
    expect(existsSync(dir)).toBe(false);
    await stillServes(gw, key, kbId, before);
  });
});
