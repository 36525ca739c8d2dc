// Issue 19's "done when": hostile requests and documents sent to a fleet started with `pnpm start`.
// Every bad body answers 4xx with `code` and `request_id`; no service exits or restarts; every process
// stays under 2 GiB; a normal upload and parse succeed after each case; the billing schedules come
// back after Redis restarts empty; nothing stays reserved and the ledger sums to every balance.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { deflateSync } from 'node:zlib';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { DocfleetClient } from '@docfleet/sdk';
import { QueueClient, createRedis } from '@docfleet/queue';
import {
  createTestDb,
  multipartBody,
  rawRequest,
  startPrivateRedis,
  type PrivateRedis,
  type TestDb,
  waitUntil,
} from '@docfleet/testing';
import { alive, peakRssMiB, sleep, startFleet, type Fleet } from './fleet-process';

let t: TestDb;
let redis: PrivateRedis;
let dataDir: string;
let fleet: Fleet;
let c: DocfleetClient;
let apiKey: string;
let kbId: string;
const peaks: Record<string, number> = {};

beforeAll(async () => {
  t = await createTestDb();
  redis = await startPrivateRedis();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-hostile-'));
  fleet = await startFleet({
    DATABASE_URL: t.url,
    REDIS_URL: redis.url,
    DATA_DIR: dataDir,
    BILLING_SCHEDULE_CHECK_SECONDS: '5',
  });
  ({ apiKey } = await fleet.createOrg(500));
  c = new DocfleetClient({ baseUrl: fleet.baseUrl, apiKey });
  kbId = (await c.knowledgeBases.create({ name: 'hostile' })).knowledge_base.id;
}, 180_000);
afterAll(async () => {
  fleet?.kill();
  await redis?.stop();
  await t?.drop();
  await rm(dataDir, { recursive: true, force: true });
});

function samplePeaks() {
  for (const pid of fleet.pidsOf()) {
    const mib = peakRssMiB(pid);
    if (mib !== null) peaks[pid] = Math.max(peaks[pid] ?? 0, mib);
  }
}

async function pdfWithText(text: string, size: [number, number] = [612, 792], fontSize = 14): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage(size);
  page.drawText(text, { x: size[0] * 0.05, y: size[1] * 0.5, size: fontSize, font });
  return doc.save({ useObjectStreams: false });
}

let normalCount = 0;
/** The control after every case: a normal upload and parse still work, and nothing restarted. */
async function normalUploadAndParse() {
  const n = ++normalCount;
  const id = (
    await c.files.upload(await pdfWithText(`Control document number ${n} after a hostile case.`), {
      knowledgeBaseId: kbId,
      filename: `control-${n}.pdf`,
    })
  ).file.id;
  const job = await c.files.parse(id);
  const done = await c.waitForJob(id, job.job.job_id, { timeoutMs: 120_000 });
  expect(done.status).toBe('completed');
  samplePeaks();
  for (const s of ['gateway', 'parse-worker', 'index-worker', 'workflow-worker', 'billing'])
    expect({ s, starts: fleet.pidsOf(s).length }).toEqual({ s, starts: 1 });
}

const envelope = (status: number, body: any) => ({
  status,
  code: typeof body?.code,
  request_id: typeof body?.request_id,
});

describe('hostile requests against pnpm start', () => {
  it('a multipart upload cut off before its closing boundary answers 400 and kills nothing', async () => {
    const boundary = 'b0undary';
    const full = multipartBody(
      boundary,
      { knowledge_base_id: kbId },
      { name: 'cut.pdf', data: Buffer.alloc(200_000, 7) },
    );
    const cut = full.subarray(0, full.length - 5_000);
    const head = `POST /v1/files HTTP/1.1\r\nHost: x\r\nx-api-key: ${apiKey}\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: ${cut.length}`;
    const r = await rawRequest(fleet.port, head, cut).response;
    expect(r && envelope(r.status, r.body)).toEqual({ status: 400, code: 'string', request_id: 'string' });
    await normalUploadAndParse();
  });

  it('undecodable or unknown encodings and charsets answer 415; over-deep JSON answers 400', async () => {
    const post = (p: string, headers: Record<string, string>, body: string | Buffer) =>
      fetch(`${fleet.baseUrl}${p}`, { method: 'POST', headers: { 'x-api-key': apiKey, ...headers }, body }).then(
        async (r) => ({ status: r.status, body: (await r.json()) as any }),
      );
    const cases = [
      await post(
        '/v1/knowledge-bases',
        { 'content-type': 'application/json', 'content-encoding': 'br' },
        '{"name":"x"}',
      ),
      await post(
        '/v1/knowledge-bases',
        { 'content-type': 'application/json', 'content-encoding': 'deflate' },
        'not deflated',
      ),
      await post(
        '/v1/knowledge-bases',
        { 'content-type': 'application/json', 'content-encoding': 'x-klingon' },
        '{"name":"x"}',
      ),
      await post(
        '/v1/auth/login',
        { 'content-type': 'application/json; charset=klingon', 'x-api-key': '' },
        '{"email":"a@b.c","password":"x"}',
      ),
    ];
    for (const r of cases)
      expect(envelope(r.status, r.body)).toEqual({ status: 415, code: 'string', request_id: 'string' });
    const deep = `{"name":"deep","metadata":${'{"a":'.repeat(4000)}1${'}'.repeat(4000)}}`;
    const d = await post('/v1/knowledge-bases', { 'content-type': 'application/json' }, deep);
    expect(envelope(d.status, d.body)).toEqual({ status: 400, code: 'string', request_id: 'string' });
    expect(d.body.code).toBe('invalid_request_body');
    const z = await post(
      '/v1/knowledge-bases',
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      deflateSync('{"name":"x"}'),
    );
    expect(z.status).toBeGreaterThanOrEqual(400);
    expect(z.status).toBeLessThan(500);
    await normalUploadAndParse();
  });

  it('login brute force gets 429 with Retry-After', async () => {
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 8; i++) {
      const r = await fetch(`${fleet.baseUrl}/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'victim@example.test', password: `guess-${i}` }),
      });
      statuses.push(r.status);
      if (r.status === 429) retryAfter = r.headers.get('retry-after');
      await r.body?.cancel();
    }
    expect(statuses).toContain(429);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    await normalUploadAndParse();
  });

  it('a page of millions of drawing operators is bounded; the rest of the document parses', async () => {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    const first = doc.addPage([612, 792]);
    first.drawText('The first page is ordinary text that must survive.', { x: 50, y: 700, size: 14, font });
    const dense = doc.addPage([612, 792]);
    const ops = '0 0 m 1 1 l S\n'.repeat(3_000_000);
    const stream = doc.context.flateStream(ops);
    dense.node.set(PDFName.of('Contents'), doc.context.register(stream));
    const bytes = await doc.save({ useObjectStreams: false });
    const id = (await c.files.upload(bytes, { knowledgeBaseId: kbId, filename: 'dense.pdf' })).file.id;
    const job = await c.files.parse(id);
    const done = await c.waitForJob(id, job.job.job_id, { timeoutMs: 240_000 });
    samplePeaks();
    expect(done.status).toBe('completed');
    const md = await c.artifacts.get(
      (done.result as { artifact_manifest_id: string }).artifact_manifest_id,
      'result_md',
    );
    expect(md).toContain('The first page is ordinary text that must survive.');
    await normalUploadAndParse();
  }, 300_000);

  it('a 200,000-point page yields its text', async () => {
    const bytes = await pdfWithText('Enormous page text', [200_000, 200_000], 4000);
    const id = (await c.files.upload(bytes, { knowledgeBaseId: kbId, filename: 'huge.pdf' })).file.id;
    const job = await c.files.parse(id);
    const done = await c.waitForJob(id, job.job.job_id, { timeoutMs: 120_000 });
    expect(done.status).toBe('completed');
    const md = await c.artifacts.get(
      (done.result as { artifact_manifest_id: string }).artifact_manifest_id,
      'result_md',
    );
    expect(md).toContain('Enormous page text');
    await normalUploadAndParse();
  }, 180_000);

  it('a PDF lying about its page count fails as invalid_pdf with no tool output in the message', async () => {
    const honest = Buffer.from(await pdfWithText('Liar'));
    const lying = Buffer.from(honest.toString('latin1').replace('/Count 1', '/Count 1000000'), 'latin1');
    expect(lying.equals(honest)).toBe(false);
    const id = (await c.files.upload(lying, { knowledgeBaseId: kbId, filename: 'liar.pdf' })).file.id;
    const job = await c.files.parse(id).catch((e) => e);
    if ('job' in job) {
      const done = await c.waitForJob(id, job.job.job_id, { timeoutMs: 120_000 });
      if (done.status === 'failed') {
        const failed = (await c.files.jobEvents(id, job.job.job_id)).events.find((e) => e.event_type === 'job.failed');
        expect((failed?.payload as { code?: string } | undefined)?.code).toBe('invalid_pdf');
        // tool stderr, paths and stack frames stay in the log
        for (const text of [done.error, failed?.message, JSON.stringify(failed?.payload)])
          expect(String(text)).not.toMatch(/Syntax Error|pdftoppm|\/tmp\/|\bat [\w.<>]+ \(/i);
      } else {
        expect(done.status).toBe('completed'); // or it parses the page it really has
        expect(done.total_pages).toBe(1);
      }
    } else {
      expect(job.code).toBe('invalid_pdf');
    }
    await normalUploadAndParse();
  }, 180_000);

  it('billing schedules come back after Redis restarts empty, and the fleet serves again', async () => {
    const prefix = `fleet${fleet.port}`;
    const schedulers = async () => {
      const conn = createRedis(redis.url);
      const q = new QueueClient(conn, prefix);
      try {
        return (await q.queue('billing').getJobSchedulers()).length;
      } catch {
        return 0;
      } finally {
        await q.close().catch(() => undefined);
        conn.disconnect();
      }
    };
    expect(await schedulers()).toBe(4);
    await redis.restart();
    let found = 0;
    await waitUntil('the 4 job schedulers back in the restarted Redis', async () => (found = await schedulers()) >= 4, {
      timeoutMs: 60_000,
      intervalMs: 500,
      detail: () => `schedulers found: ${found}`,
    });
    expect(await schedulers()).toBe(4);
    // readiness comes back by itself
    let readiness = '';
    await waitUntil(
      'readiness back (readyz 200) after the Redis restart',
      async () =>
        (readiness = await fetch(`${fleet.baseUrl}/readyz`).then(
          (r) => String(r.status),
          (e: unknown) => `no answer: ${e instanceof Error ? e.message : String(e)}`,
        )) === '200',
      { timeoutMs: 60_000, intervalMs: 500, detail: () => `last readyz: ${readiness}` },
    );
    await normalUploadAndParse();
  }, 180_000);

  it('after all of it: nothing restarted, every process under 2 GiB, nothing reserved, the ledger sums to every balance', async () => {
    samplePeaks();
    const pids = fleet.pidsOf();
    expect(pids).toHaveLength(6); // gateway, billing and four workers (index, parse, workflow, webhook)
    expect(pids.every(alive)).toBe(true);
    for (const [pid, mib] of Object.entries(peaks))
      expect({ pid, under2GiB: mib < 2048 }).toEqual({ pid, under2GiB: true });
    expect(await t.db.creditReservation.count({ where: { status: 'reserved' } })).toBe(0);
    const mismatches = await t.db.$queryRaw<Array<{ org_id: string }>>`
      SELECT a.org_id FROM credit_accounts a
      LEFT JOIN (SELECT org_id, SUM(amount_credits) AS s FROM ledger_entries GROUP BY org_id) l ON l.org_id = a.org_id
      WHERE a.balance_credits <> COALESCE(l.s, 0)`;
    expect(mismatches).toEqual([]);
    process.stdout.write(`peak RSS MiB by pid: ${JSON.stringify(peaks)}\n`);
  });
});
