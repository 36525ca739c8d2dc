// A queue outage at parse dispatch (the gateway's side of ARCHITECTURE.md, Parsing step 2): the new
// job fails with its reservation in one transaction, the error is redacted, and failed jobs can be
// cleared and retried. The outage is this gateway's queue client failing, so the gateway runs in
// process (no parse worker is needed: nothing reaches the queue).
import { readFile } from 'node:fs/promises';
import { corpus } from '@docfleet/testing';
import { startGateway, type Gateway } from './harness';

let gw: Gateway;
let pdf: Buffer;
beforeAll(async () => {
  gw = await startGateway();
  pdf = await readFile(corpus('f_forms_invoices/invoice2data/AzureInterior.pdf'));
});
afterAll(() => gw.close());

async function setup(credits: number) {
  const org = await gw.createOrg({ credits });
  const kb = await gw.createKnowledgeBase(org.key);
  const up = async (name: string) => {
    const r = await gw.upload(org.key, { knowledge_base_id: kb.id }, { name, data: pdf });
    if (r.status !== 201) throw new Error(JSON.stringify(r.body));
    return r;
  };
  return { ...org, kbId: kb.id, up };
}
const parse = (key: string, fileId: string, body: unknown = {}) =>
  gw.req('POST', `/v1/files/${fileId}/parse`, { key, body });

it('a queue outage fails the new job with its reservation; failed jobs can be cleared and retried', async () => {
  const o = await setup(10);
  const f = (await o.up('a.pdf')).body.file;
  const real = gw.deps.queues.enqueue;
  // What a client library may throw: its message names a socket path, its stack the host's files.
  gw.deps.queues.enqueue = async () => {
    throw new Error('connect ECONNREFUSED 127.0.0.1:6379 (or /var/run/redis/redis-server.sock)');
  };
  let r;
  try {
    r = await parse(o.key, f.id);
  } finally {
    gw.deps.queues.enqueue = real;
  }
  expect([r.status, r.body.code]).toEqual([503, 'service_unavailable']);
  const failed = await gw.db.job.findFirstOrThrow({ where: { file_id: f.id } });
  expect(failed).toMatchObject({
    status: 'failed',
    error: expect.stringMatching(/could not be queued/),
    error_code: 'service_unavailable',
  });
  expect(await gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: failed.id } })).toMatchObject({
    status: 'failed',
  });
  const events = (await gw.req('GET', `/v1/files/${f.id}/jobs/${failed.id}/events`, { key: o.key })).body.events;
  // The error's name and message, redacted: no stack frames, no paths (docs/errors.md).
  expect(events.at(-1)).toMatchObject({
    event_type: 'job.failed',
    payload: { code: 'service_unavailable', traceback: 'Error: connect ECONNREFUSED 127.0.0.1:6379 (or <path>)' },
  });

  const retry = (await parse(o.key, f.id)).body;
  expect(retry).toMatchObject({ retry_of_job_id: failed.id });
  const clear = await gw.req('DELETE', `/v1/files/${f.id}/jobs/failed`, { key: o.key });
  expect(clear.body).toEqual({ cleaned: 1, cleaned_job_ids: [failed.id], cleaned_kinds: ['parse'] });
  expect(await gw.db.jobEvent.count({ where: { job_id: failed.id } })).toBe(0);
  expect((await gw.req('GET', `/v1/files/${f.id}/jobs`, { key: o.key })).body.jobs.map((j: any) => j.job_id)).toEqual([
    retry.job.job_id,
  ]);
  expect((await gw.req('DELETE', `/v1/files/${f.id}/jobs/failed`, { key: o.key })).body).toEqual({
    cleaned: 0,
    cleaned_job_ids: [],
    cleaned_kinds: [],
  });
});
