// Dispatch rules through the HTTP API: credits (402 with nothing queued, no over-reservation under
// concurrency), access, option validation, bulk semantics, retries after failure or cancel,
// cancelling, clearing failed jobs, and the reaper (a queue outage at dispatch:
// services/gateway/test/parse-queue-outage.test.ts). The worker starts only for the
// last cases, so queued states can be observed without racing it.
import { readFile } from 'node:fs/promises';
import { waitUntil } from '@docfleet/testing';
import { NDA5 } from './fixtures';
import { corpus, creditInvariants, startStack, type Stack } from './stack';
import { reapOnce } from '../src/reaper';

let s: Stack;
let pdf: Buffer;
let png: Buffer;
beforeAll(async () => {
  s = await startStack({}, { worker: false });
  pdf = await readFile(corpus('f_forms_invoices/invoice2data/AzureInterior.pdf'));
  png = await readFile(corpus('c_scanned_images/tesseract.js/testocr.png'));
});
afterAll(() => s.close());

async function setup(credits: number, o: { quota?: number } = {}) {
  const org = await s.gw.createOrg({ credits, quota: o.quota });
  const kb = await s.gw.createKnowledgeBase(org.key);
  const up = async (name: string, data: Buffer = pdf, fields: Record<string, string> = {}) => {
    const r = await s.gw.upload(org.key, { knowledge_base_id: kb.id, ...fields }, { name, data });
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
    return r;
  };
  return { ...org, kbId: kb.id, up };
}
const parse = (key: string, fileId: string, body: unknown = {}) =>
  s.gw.req('POST', `/v1/files/${fileId}/parse`, { key, body });
const waitingCount = async () => {
  const d = await s.gw.deps.queues.depth('parse');
  return d.wait + (d.prioritized ?? 0) + d.delayed;
};

describe('credits at dispatch', () => {
  it('402 insufficient_credits leaves no job, no reservation and no queue entry', async () => {
    const o = await setup(2);
    const f = (await o.up('nda.pdf', await readFile(NDA5))).body.file; // 5 pages, 2 credits
    const before = await waitingCount();
    const r = await parse(o.key, f.id);
    expect([r.status, r.body.code]).toEqual([402, 'insufficient_credits']);
    expect(await s.gw.db.job.count({ where: { file_id: f.id } })).toBe(0);
    expect(await s.gw.db.creditReservation.count({ where: { org_id: o.orgId } })).toBe(0);
    expect(await waitingCount()).toBe(before);
  });

  it('402 monthly_quota_exceeded when the quota would be passed', async () => {
    const o = await setup(100, { quota: 3 });
    const f = (await o.up('nda.pdf', await readFile(NDA5))).body.file;
    const r = await parse(o.key, f.id);
    expect([r.status, r.body.code]).toEqual([402, 'monthly_quota_exceeded']);
    expect(await s.gw.db.job.count({ where: { file_id: f.id } })).toBe(0);
  });

  it('concurrent dispatches never reserve more than the balance', async () => {
    const o = await setup(3);
    const files = [];
    for (let i = 0; i < 6; i++) files.push((await o.up(`f${i}.pdf`)).body.file);
    const results = await Promise.all(files.map((f) => parse(o.key, f.id)));
    expect(results.filter((r) => r.status === 202)).toHaveLength(3);
    expect(results.filter((r) => r.status === 402).every((r) => r.body.code === 'insufficient_credits')).toBe(true);
    expect((await s.gw.req('GET', '/v1/billing/credits', { key: o.key })).body.credits).toMatchObject({
      balance_credits: 3,
      reserved_credits: 3,
    });
    // The same request twice at once creates one job.
    const o2 = await setup(10);
    const f = (await o2.up('same.pdf')).body.file;
    const twice = await Promise.all([parse(o2.key, f.id), parse(o2.key, f.id), parse(o2.key, f.id)]);
    expect(new Set(twice.map((r) => r.body.job.job_id)).size).toBe(1);
    expect(twice.filter((r) => r.body.idempotent === false)).toHaveLength(1);
    expect(await s.gw.db.creditReservation.count({ where: { org_id: o2.orgId } })).toBe(1);
  });

  it('auto_parse on upload reports the job, or why it could not be queued', async () => {
    const o = await setup(1);
    const ok = await o.up('auto.pdf', pdf, { auto_parse: 'true' });
    expect(ok.body).toMatchObject({
      parse_job: { status: 'queued' },
      parse_usage: { estimated_units: 1 },
      credit_reservation: { amount_credits: 1 },
    });
    const broke = await o.up('auto2.pdf', pdf, { auto_parse: 'true' });
    expect(broke.status).toBe(201);
    expect(broke.body).toMatchObject({ parse_job: null, parse_error: { code: 'insufficient_credits' } });
    expect((await o.up('plain.pdf')).body.parse_job).toBeUndefined();
  });
});

describe('validation and access', () => {
  it('validates options with zod and refuses unknown ones', async () => {
    const o = await setup(10);
    const f = (await o.up('a.pdf')).body.file;
    for (const options of [
      { backend: 'gpu' },
      { dpi: 10 },
      { dpi: 150.5 },
      { colour: true },
      { timeout_seconds: 0 },
      { layout_device: 'cuda' },
    ]) {
      const r = await parse(o.key, f.id, { options });
      expect({ options, status: r.status, code: r.body.code }).toEqual({
        options,
        status: 400,
        code: 'invalid_request_body',
      });
    }
    const bad = await s.gw.req('POST', '/v1/files/parse/bulk', {
      key: o.key,
      body: { file_ids: [f.id], options: { backend: 'x' } },
    });
    expect(bad.status).toBe(400);
    expect(await s.gw.db.job.count({ where: { file_id: f.id } })).toBe(0);
  });

  it('needs parse.run plus viewer access; other organisations see nothing', async () => {
    const o = await setup(10);
    const f = (await o.up('a.pdf')).body.file;
    const viewer = await s.gw.createSession(o.orgId, 'viewer');
    await s.gw.db.rbacGrant.create({
      data: {
        org_id: o.orgId,
        user_id: viewer.userId,
        resource_type: 'knowledge_base',
        resource_id: o.kbId,
        access_level: 'viewer',
      },
    });
    const v = await s.gw.req('POST', `/v1/files/${f.id}/parse`, { headers: viewer.headers, body: {} });
    expect([v.status, v.body.code]).toEqual([403, 'permission_required']);
    const member = await s.gw.createSession(o.orgId, 'member');
    const m = await s.gw.req('POST', `/v1/files/${f.id}/parse`, { headers: member.headers, body: {} });
    expect([m.status, m.body.code]).toEqual([403, 'knowledge_base_access_denied']);
    const other = await setup(10);
    const x = await parse(other.key, f.id);
    expect([x.status, x.body.code]).toEqual([404, 'file_not_found']);
    await s.gw.db.rbacGrant.create({
      data: {
        org_id: o.orgId,
        user_id: member.userId,
        resource_type: 'knowledge_base',
        resource_id: o.kbId,
        access_level: 'viewer',
      },
    });
    const ok = await s.gw.req('POST', `/v1/files/${f.id}/parse`, { headers: member.headers, body: {} });
    expect(ok.status).toBe(202);
    // Clearing failed jobs needs manager access.
    const clear = await s.gw.req('DELETE', `/v1/files/${f.id}/jobs/failed`, { headers: member.headers });
    expect([clear.status, clear.body.code]).toEqual([403, 'knowledge_base_access_denied']);
  });
});

describe('bulk', () => {
  it('derives <key>:<file_id> per file and answers in request order', async () => {
    const o = await setup(10);
    const a = (await o.up('a.pdf')).body.file;
    const b = (await o.up('b.png', png)).body.file;
    const r = await s.gw.req('POST', '/v1/files/parse/bulk', {
      key: o.key,
      body: { file_ids: [b.id, a.id], idempotency_key: 'batch-7' },
    });
    expect(r.status).toBe(202);
    expect(r.body.jobs.map((j: any) => [j.job.file_id, j.job.idempotency_key, j.credit_reservation.status])).toEqual([
      [b.id, `batch-7:${b.id}`, 'reserved'],
      [a.id, `batch-7:${a.id}`, 'reserved'],
    ]);
    const again = await s.gw.req('POST', '/v1/files/parse/bulk', {
      key: o.key,
      body: { file_ids: [b.id, a.id], idempotency_key: 'batch-7' },
    });
    expect(again.body.jobs.map((j: any) => j.job.job_id)).toEqual(r.body.jobs.map((j: any) => j.job.job_id));
    const single = await parse(o.key, a.id, { idempotency_key: `batch-7:${a.id}` });
    expect(single.body).toMatchObject({ idempotent: true, job: { job_id: r.body.jobs[1].job.job_id } });
  });

  it('aborts at the first failure; earlier jobs stay queued with credits reserved', async () => {
    const o = await setup(10);
    const a = (await o.up('a.pdf')).body.file;
    const c = (await o.up('c.pdf')).body.file;
    const unknown = '00000000-0000-4000-8000-000000000000';
    const r = await s.gw.req('POST', '/v1/files/parse/bulk', { key: o.key, body: { file_ids: [a.id, unknown, c.id] } });
    expect([r.status, r.body.code]).toEqual([404, 'file_not_found']);
    const jobA = await s.gw.db.job.findFirstOrThrow({ where: { file_id: a.id } });
    expect(r.body.details).toEqual({ failed_file_id: unknown, queued_job_ids: [jobA.id] });
    expect(jobA.status).toBe('queued');
    expect(await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: jobA.id } })).toMatchObject({
      status: 'reserved',
      amount_credits: 1,
    });
    expect(await s.gw.db.job.count({ where: { file_id: c.id } })).toBe(0);
    const insufficient = await setup(1);
    const x = (await insufficient.up('x.pdf')).body.file;
    const y = (await insufficient.up('y.pdf')).body.file;
    const r2 = await s.gw.req('POST', '/v1/files/parse/bulk', {
      key: insufficient.key,
      body: { file_ids: [x.id, y.id] },
    });
    expect([r2.status, r2.body.code]).toEqual([402, 'insufficient_credits']);
    expect(await s.gw.db.job.count({ where: { file_id: x.id, status: 'queued' } })).toBe(1);
  });
});

describe('cancel, retry, clear failed, queue outage, reaper', () => {
  it('cancels a queued job at once (reservation cancelled); a new dispatch retries with retry_of_job_id', async () => {
    const o = await setup(10);
    const f = (await o.up('a.pdf')).body.file;
    const first = (await parse(o.key, f.id)).body;
    const cancel = await s.gw.req('POST', `/v1/files/${f.id}/jobs/${first.job.job_id}/cancel`, { key: o.key });
    expect(cancel.status).toBe(200);
    expect(cancel.body.job).toMatchObject({
      status: 'cancelled',
      cancel_requested_at: expect.any(String),
      completed_at: expect.any(String),
    });
    expect(await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: first.job.job_id } })).toMatchObject({
      status: 'cancelled',
      debited_credits: 0,
    });
    expect(await s.gw.deps.queues.queue('parse').getJob(first.job.job_id)).toBeUndefined();
    const again = await s.gw.req('POST', `/v1/files/${f.id}/jobs/${first.job.job_id}/cancel`, { key: o.key });
    expect(again.body.job).toEqual(cancel.body.job);
    const retry = (await parse(o.key, f.id)).body;
    expect(retry).toMatchObject({
      idempotent: false,
      retry_of_job_id: first.job.job_id,
      idempotency_key: `${first.idempotency_key}:retry-1`,
      job: { retry_of_job_id: first.job.job_id },
    });
    // An explicit key returns a terminal job as it is (no retry).
    const ex = (await parse(o.key, f.id, { idempotency_key: 'mine' })).body;
    await s.gw.req('POST', `/v1/files/${f.id}/jobs/${ex.job.job_id}/cancel`, { key: o.key });
    const exAgain = await parse(o.key, f.id, { idempotency_key: 'mine' });
    expect(exAgain.body).toMatchObject({ idempotent: true, job: { job_id: ex.job.job_id, status: 'cancelled' } });
    const other = (await o.up('b.pdf')).body.file;
    const conflict = await parse(o.key, other.id, { idempotency_key: 'mine' });
    expect([conflict.status, conflict.body.code]).toEqual([409, 'idempotency_conflict']);
    const { jobs } = (await s.gw.req('GET', `/v1/files/${f.id}/jobs`, { key: o.key })).body;
    expect(jobs.map((j: any) => j.job_id)).toEqual([ex.job.job_id, retry.job.job_id, first.job.job_id]);
  });

  it('the reaper fails a job whose queue entry is gone and closes its reservation', async () => {
    const o = await setup(10);
    const f = (await o.up('a.pdf')).body.file;
    const { job } = (await parse(o.key, f.id)).body;
    await (await s.gw.deps.queues.queue('parse').getJob(job.job_id))!.remove();
    const reaped = await reapOnce(s.workerDeps, s.gw.deps.queues.queue('parse'), 0);
    expect(reaped).toContain(job.job_id);
    expect(await s.gw.db.job.findUniqueOrThrow({ where: { id: job.job_id } })).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/lost by the queue/),
      error_code: 'queue_entry_lost',
    });
    expect(await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: job.job_id } })).toMatchObject({
      status: 'failed',
    });
    const ev = await s.gw.db.jobEvent.findFirstOrThrow({ where: { job_id: job.job_id, event_type: 'job.failed' } });
    expect(ev.payload).toEqual({ code: 'queue_entry_lost', traceback: 'queue entry missing' });
  });

  it('the worker drains what stayed queued, skips cancelled jobs, and cancels a running job between pages', async () => {
    const o = await setup(50);
    const f = (await o.up('nda.pdf', await readFile(NDA5))).body.file;
    s.startWorker();
    const { job } = (await parse(o.key, f.id, { options: { backend: 'ocr' } })).body;
    // Wait until it is parsing pages (the jobs queued by the tests above drain first), then cancel.
    let status = '';
    await waitUntil(
      `job ${job.job_id} to be parsing pages`,
      async () =>
        (status = (await s.gw.db.job.findUniqueOrThrow({ where: { id: job.job_id } })).status) === 'in_progress',
      { timeoutMs: 150_000, intervalMs: 25, detail: () => `job still ${status}` },
    );
    const c = await s.gw.req('POST', `/v1/files/${f.id}/jobs/${job.job_id}/cancel`, { key: o.key });
    expect(c.body.job.cancel_requested_at).toEqual(expect.any(String));
    let done: any;
    await waitUntil(
      `cancelled job ${job.job_id} to end`,
      async () => {
        done = (await s.gw.req('GET', `/v1/files/${f.id}/jobs/${job.job_id}`, { key: o.key })).body.job;
        return ['completed', 'failed', 'cancelled'].includes(done.status);
      },
      { timeoutMs: 30_000, detail: () => `last read: ${JSON.stringify(done)}` },
    );
    expect(done.status).toBe('cancelled');
    const res = await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: job.job_id } });
    expect(res.status).toBe('cancelled');
    expect(res.debited_credits).toBeLessThan(5);
    const events = (
      await s.gw.req('GET', `/v1/files/${f.id}/jobs/${job.job_id}/events`, { key: o.key })
    ).body.events.map((e: any) => e.event_type);
    expect(events).toEqual(expect.arrayContaining(['job.cancel_requested', 'job.cancelled']));
    expect(await s.gw.deps.storage.list(`kb/${o.kbId}/files/${f.id}/artifacts`)).toEqual([]);
    // Everything queued earlier in this file drains; cancelled ones are skipped without effect.
    let open = 0;
    await waitUntil(
      'every job queued earlier in this file to end',
      async () =>
        (open = await s.gw.db.job.count({ where: { status: { in: ['queued', 'started', 'in_progress'] } } })) === 0,
      { timeoutMs: 60_000, intervalMs: 100, detail: () => `${open} jobs still queued, started or in progress` },
    );
    const orgs = await s.gw.db.creditAccount.findMany({ select: { org_id: true } });
    for (const { org_id } of orgs) {
      const inv = await creditInvariants(s.gw, org_id);
      expect({ org_id, ...inv, openReservations: inv.openReservations }).toEqual({
        org_id,
        balance: inv.ledgerSum,
        ledgerSum: inv.ledgerSum,
        openReservations: 0,
      });
    }
  }, 240_000);
});
