// The hand-off from a parse to its index job (ARCHITECTURE.md, upload → parse → index): a client
// that reads a parse job as completed may count on its index job being queued (docs/api.md, Search:
// "the update is enqueued automatically"). The worker is made to fail at the index enqueue — where a
// process that dies would stop — and the job is watched through the HTTP API throughout: it never
// reads completed while its index job is missing, the retry ends with exactly one index job under
// the manifest's job id, and a parse.file delivered again after the completion re-creates a lost one.
import { readFile } from 'node:fs/promises';
import { QueueClient, type JobName, type JobPayload } from '@docfleet/queue';
import type { DocfleetClient } from '@docfleet/sdk';
import { waitUntil } from '@docfleet/testing';
import { creditInvariants, corpus, startStack, type Stack } from './stack';

/** The worker's queue client, failing its first `index.file-version` enqueue(s) as a dying worker would. */
class FailingIndexEnqueue extends QueueClient {
  failures = 1;
  /** The parse job's status as any other reader saw it at each index enqueue. */
  readonly statusAtEnqueue: string[] = [];
  constructor(
    private readonly inner: QueueClient,
    private readonly statusOf: (fileId: string) => Promise<string | undefined>,
  ) {
    super(undefined as never, inner.prefix);
  }
  override queue(name: Parameters<QueueClient['queue']>[0]) {
    return this.inner.queue(name);
  }
  override async enqueue<N extends JobName>(
    name: N,
    payload: JobPayload<N>,
    opts?: Parameters<QueueClient['enqueue']>[2],
  ) {
    if (name === 'index.file-version') {
      const st = await this.statusOf((payload as JobPayload<'index.file-version'>).fileId);
      this.statusAtEnqueue.push(st ?? 'none');
      if (this.failures > 0) {
        this.failures -= 1;
        throw new Error('injected: the worker stopped at the index enqueue');
      }
    }
    return this.inner.enqueue(name, payload, opts);
  }
}

let s: Stack;
let c: DocfleetClient;
let key: string;
let orgId: string;
let kbId: string;
let failing: FailingIndexEnqueue;
beforeAll(async () => {
  s = await startStack({}, { worker: false });
  failing = new FailingIndexEnqueue(s.gw.deps.queues, async (fileId) => {
    const j = await s.gw.db.job.findFirst({
      where: { file_id: fileId, kind: 'parse' },
      orderBy: { created_at: 'desc' },
    });
    return j?.status;
  });
  s.workerDeps.queues = failing;
  s.startWorker();
  ({ key, orgId } = await s.gw.createOrg({ credits: 50 }));
  c = s.client(key);
  kbId = (await s.gw.createKnowledgeBase(key, 'Index hand-off')).id;
}, 60_000);
afterAll(() => s.close());

const indexQueue = () => s.gw.deps.queues.queue('index');

/** Every index.file-version job of the file the queue knows, in any state. */
async function indexJobsOfFile(fileId: string) {
  const jobs = await indexQueue().getJobs(['waiting', 'active', 'delayed', 'prioritized', 'completed', 'failed']);
  return jobs.filter((j) => j.name === 'index.file-version' && j.data.fileId === fileId);
}

let fileId: string;
let jobId: string;
let manifestId: string;

it('a parse that fails at the index enqueue is never completed without its index job, and its retry queues it once', async () => {
  const up = await s.gw.upload(
    key,
    { knowledge_base_id: kbId },
    { name: 'code.pdf', data: await readFile(corpus('a_born_digital/docling/code_and_formula.pdf')) },
  );
  fileId = up.body.file.id;
  const r = await s.gw.req('POST', `/v1/files/${fileId}/parse`, { key, body: {} });
  expect(r.status).toBe(202);
  jobId = r.body.job.job_id;

  // A client polling the job: at every read that says completed, its index job must already exist.
  let completedWithout = 0;
  let completedReads = 0;
  let status = '';
  await waitUntil(
    `40 reads of parse job ${jobId} that say completed`,
    async () => {
      const { job } = await c.files.job(fileId, jobId);
      status = job.status;
      if (job.status === 'completed') {
        manifestId = (job.result as { artifact_manifest_id: string }).artifact_manifest_id;
        completedReads += 1;
        if (!(await indexQueue().getJob(`index-${manifestId}`))) completedWithout += 1;
        // Keep reading past the first completed read: the retry that queues it comes seconds later.
        return completedReads >= 40;
      }
      if (['failed', 'cancelled'].includes(job.status)) throw new Error(`parse ended ${job.status}: ${job.error}`);
      return false;
    },
    { timeoutMs: 90_000, detail: () => `job ${status}, ${completedReads} completed reads` },
  );
  expect({ completedReads, completedWithout }).toEqual({ completedReads: 40, completedWithout: 0 });
  // No reader saw the job completed at the moment its index job was being queued.
  expect(failing.failures).toBe(0);
  expect(failing.statusAtEnqueue.length).toBeGreaterThanOrEqual(2);
  expect(failing.statusAtEnqueue).not.toContain('completed');

  const done = await c.waitForJob(fileId, jobId);
  expect(done).toMatchObject({ status: 'completed', completed_pages: 2 });
  const jobs = await indexJobsOfFile(fileId);
  expect(jobs.map((j) => j.id)).toEqual([`index-${manifestId}`]);
  expect(jobs[0].data).toMatchObject({ orgId, fileId, manifestId, pendingId: `index-${manifestId}` });
  expect(await s.gw.db.indexPendingUpdate.count({ where: { job_id: `index-${manifestId}` } })).toBe(1);
  // One completion, and every page charged once across both attempts.
  const events = await s.gw.db.jobEvent.findMany({ where: { job_id: jobId, event_type: 'job.completed' } });
  expect(events).toHaveLength(1);
  await creditInvariants(s.gw, orgId);
  expect(await s.gw.db.ledgerEntry.count({ where: { job_id: jobId, kind: 'debit' } })).toBe(2);
}, 120_000);

it('a parse.file delivered again after its completion committed re-creates an index job the queue lost', async () => {
  expect(manifestId).toBeDefined();
  await (await indexQueue().getJob(`index-${manifestId}`))!.remove();
  await s.gw.db.indexPendingUpdate.deleteMany({ where: { job_id: `index-${manifestId}` } });

  const redelivered = await s.gw.deps.queues.enqueue('parse.file', { jobId, orgId }, { jobId: `again-${jobId}` });
  const parseJob = (await s.gw.deps.queues.queue('parse').getJob(redelivered!))!;
  await waitUntil('the parse.file delivered again to complete', () => parseJob.isCompleted(), {
    timeoutMs: 30_000,
  });
  const jobs = await indexJobsOfFile(fileId);
  expect(jobs.map((j) => j.id)).toEqual([`index-${manifestId}`]);
  expect(await s.gw.db.indexPendingUpdate.count({ where: { job_id: `index-${manifestId}` } })).toBe(1);
  // Nothing ran again: still one completion.
  expect(await s.gw.db.jobEvent.count({ where: { job_id: jobId, event_type: 'job.completed' } })).toBe(1);
}, 60_000);
