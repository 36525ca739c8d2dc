// Crash safety with real processes: a worker killed with SIGKILL mid-parse (BullMQ redelivers the
// job to another worker: every page charged exactly once, nothing left reserved, ledger = balance);
// a job whose worker dies more often than allowed is failed by the reaper with its reservation
// closed; health endpoints; SIGTERM exits cleanly.
import { readFile } from 'node:fs/promises';
import { NDA3, NDA5 } from './fixtures';
import { creditInvariants, startStack, type Stack } from './stack';
import { spawnWorker, waitUntil, type WorkerProcess } from '@docfleet/testing';

let s: Stack;
const procs: WorkerProcess[] = [];
beforeAll(async () => {
  s = await startStack({}, { worker: false });
});
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  await s.close();
});

const FAST = { PARSE_LOCK_SECONDS: '4', PARSE_STALLED_INTERVAL_SECONDS: '1' };

async function dispatchOcr(key: string, kbId: string, file: string, name: string) {
  const up = await s.gw.upload(key, { knowledge_base_id: kbId }, { name, data: await readFile(file) });
  const r = await s.gw.req('POST', `/v1/files/${up.body.file.id}/parse`, {
    key,
    body: { options: { backend: 'ocr', dpi: 72 } },
  });
  expect(r.status).toBe(202);
  return { fileId: up.body.file.id as string, jobId: r.body.job.job_id as string };
}

async function debits(jobId: string) {
  return s.gw.db.ledgerEntry.findMany({ where: { job_id: jobId, kind: 'debit' } });
}

async function killAfterFirstDebits(w: WorkerProcess, jobId: string) {
  let status = '';
  await waitUntil(
    `a first page of job ${jobId} debited, to kill its worker`,
    async () => {
      status = (await s.gw.db.job.findUniqueOrThrow({ where: { id: jobId } })).status;
      if (['completed', 'failed'].includes(status)) throw new Error(`job ended before the kill:\n${w.output()}`);
      return (await debits(jobId)).length >= 1;
    },
    { timeoutMs: 60_000, detail: () => `job ${status}\n${w.output()}` },
  );
  w.child.kill('SIGKILL');
  expect((await w.exited).signal).toBe('SIGKILL');
}

async function waitTerminal(jobId: string, ms = 90_000) {
  let status = '';
  return waitUntil(
    `job ${jobId} to end`,
    async () => {
      const job = await s.gw.db.job.findUniqueOrThrow({ where: { id: jobId } });
      status = job.status;
      return ['completed', 'failed', 'cancelled'].includes(job.status) && job;
    },
    { timeoutMs: ms, intervalMs: 200, detail: () => `still ${status}` },
  );
}

it('a worker killed with SIGKILL mid-parse: another worker finishes, each page charged exactly once', async () => {
  const { key, orgId } = await s.gw.createOrg({ credits: 40 });
  const kbId = (await s.gw.createKnowledgeBase(key, 'Crash')).id;
  const a = await spawnWorker(s.gw, FAST);
  procs.push(a);
  const { fileId, jobId } = await dispatchOcr(key, kbId, NDA5, 'nda5.pdf');
  await killAfterFirstDebits(a, jobId);
  const before = await debits(jobId);
  expect(before.length).toBeGreaterThanOrEqual(1);
  expect(before.length).toBeLessThan(5);
  expect(await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: jobId } })).toMatchObject({
    status: 'reserved',
  });

  const b = await spawnWorker(s.gw, FAST);
  procs.push(b);
  const health = await fetch(`http://127.0.0.1:${b.healthPort}/healthz`);
  expect(await health.json()).toEqual({ status: 'ok' });
  const ready = await fetch(`http://127.0.0.1:${b.healthPort}/readyz`);
  expect([ready.status, await ready.json()]).toEqual([200, { status: 'ok', checks: { database: 'ok', redis: 'ok' } }]);

  const job = await waitTerminal(jobId);
  expect(job.status).toBe('completed');
  const charged = await debits(jobId);
  expect(charged.map((e) => e.idempotency_key).sort()).toEqual([1, 2, 3, 4, 5].map((n) => `parse:${jobId}:page:${n}`));
  expect(charged.every((e) => e.amount_credits === -1)).toBe(true);
  expect(await s.gw.db.ledgerEntry.count({ where: { job_id: jobId, kind: 'reversal' } })).toBe(0);
  expect(await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: jobId } })).toMatchObject({
    status: 'committed',
    debited_credits: 5,
  });
  expect(await creditInvariants(s.gw, orgId)).toEqual({ balance: 35, ledgerSum: 35, openReservations: 0 });
  const events = (await s.gw.req('GET', `/v1/files/${fileId}/jobs/${jobId}/events`, { key })).body.events.map(
    (e: { event_type: string }) => e.event_type,
  );
  expect(events.filter((t: string) => t === 'job.started')).toHaveLength(2);
  expect((await s.gw.req('GET', `/v1/files/${fileId}/segments`, { key })).status).toBe(200);

  // SIGTERM: stops taking jobs and exits 0.
  b.child.kill('SIGTERM');
  expect((await b.exited).code).toBe(0);
}, 150_000);

it('a job whose worker is killed more often than allowed is failed with its reservation closed', async () => {
  const { key, orgId } = await s.gw.createOrg({ credits: 40 });
  const kbId = (await s.gw.createKnowledgeBase(key, 'Crash twice')).id;
  const env = { ...FAST, PARSE_MAX_STALLED: '0', PARSE_REAP_INTERVAL_SECONDS: '1' };
  const c = await spawnWorker(s.gw, env);
  procs.push(c);
  const { jobId } = await dispatchOcr(key, kbId, NDA3, 'nda3.pdf');
  await killAfterFirstDebits(c, jobId);
  const d = await spawnWorker(s.gw, env);
  procs.push(d);
  const job = await waitTerminal(jobId);
  expect(job).toMatchObject({ status: 'failed', error: expect.stringMatching(/worker was stopped while processing/) });
  expect(await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: jobId } })).toMatchObject({
    status: 'failed',
  });
  const net = await s.gw.db.ledgerEntry.aggregate({ where: { job_id: jobId }, _sum: { amount_credits: true } });
  expect(net._sum.amount_credits).toBe(0);
  expect(await creditInvariants(s.gw, orgId)).toEqual({ balance: 40, ledgerSum: 40, openReservations: 0 });
  d.child.kill('SIGTERM');
  expect((await d.exited).code).toBe(0);
}, 150_000);

it('SIGTERM past the grace period hands the job back; the next worker finishes it without charging twice', async () => {
  const { key, orgId } = await s.gw.createOrg({ credits: 40 });
  const kbId = (await s.gw.createKnowledgeBase(key, 'Drain')).id;
  const e = await spawnWorker(s.gw, { ...FAST, PARSE_GRACE_SECONDS: '0' });
  procs.push(e);
  const { fileId, jobId } = await dispatchOcr(key, kbId, NDA3, 'nda3-drain.pdf');
  await waitUntil(
    `a first page of job ${jobId} debited, to stop its worker`,
    async () => (await debits(jobId)).length >= 1,
    {
      timeoutMs: 60_000,
      detail: () => e.output(),
    },
  );
  e.child.kill('SIGTERM');
  expect((await e.exited).code).toBe(0);
  const handed = await s.gw.db.job.findUniqueOrThrow({ where: { id: jobId } });
  expect(handed.status).toBe('queued');
  const events = (await s.gw.req('GET', `/v1/files/${fileId}/jobs/${jobId}/events`, { key })).body.events.map(
    (x: { event_type: string }) => x.event_type,
  );
  expect(events).toContain('job.handed_back');
  s.startWorker({ lockMs: 4000 });
  const job = await waitTerminal(jobId);
  expect(job.status).toBe('completed');
  expect((await debits(jobId)).map((d) => d.idempotency_key).sort()).toEqual(
    [1, 2, 3].map((n) => `parse:${jobId}:page:${n}`),
  );
  expect(await creditInvariants(s.gw, orgId)).toEqual({ balance: 37, ledgerSum: 37, openReservations: 0 });
}, 120_000);
