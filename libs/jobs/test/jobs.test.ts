// libs/jobs on a real PostgreSQL: the status words and their moves, the idempotency retry chain,
// claim → progress → complete/fail/cancel with the reservation closed in the same transaction, a
// terminal row that nothing moves again, hand-back, cancel while queued or running, the failure of
// a job that never reached the queue, and the abandoned-job sweep.
import { randomUUID } from 'node:crypto';
import { creditTransaction, reserveCredits } from '@docfleet/billing';
import type { Db, Job } from '@docfleet/db';
import { isApiError } from '@docfleet/errors';
import { QueueClient, type JobName, type JobPayload } from '@docfleet/queue';
import {
  createTestDb,
  privateQueues,
  seedFile,
  type PrivateQueues,
  type SeededFile,
  type TestDb,
} from '../../testing/src';
import {
  JOB_STATUSES,
  TERMINAL_JOB_STATUSES,
  addQueuedEvent,
  beatParseJob,
  canMoveJob,
  cancelExtractJob,
  cancelParseJob,
  cancelRequested,
  claimExtractJob,
  claimParseJob,
  completeParseJob,
  createQueuedJob,
  extractManifestIdFor,
  failAbandonedJobs,
  failExtractJob,
  failParseJob,
  failUnqueuedJob,
  handBackParseJob,
  indexJobIdOf,
  parseManifestIdFor,
  parseOfManifestRunning,
  publicJobStatus,
  requestJobCancel,
  resolveJobKey,
  retryKey,
  setExtractStage,
  setParseProgress,
} from '../src';

let t: TestDb;
let db: Db;
let q: PrivateQueues;
/** What completeParseJob needs: the database and the queues its index job goes to. */
let deps: { db: Db; queues: QueueClient };
beforeAll(async () => {
  t = await createTestDb();
  db = t.db;
  q = privateQueues('jobs');
  deps = { db, queues: q.queues };
});
afterAll(async () => {
  await q.close();
  await t.drop();
});

type Fixture = SeededFile;

const fixture = (credits = 100): Promise<Fixture> => seedFile(db, { credits });

async function queuedJob(f: Fixture, kind: 'parse' | 'extract', key: string, reserve = 0): Promise<Job> {
  return creditTransaction(db, f.orgId, async (tx) => {
    const job = await createQueuedJob(tx, {
      orgId: f.orgId,
      knowledgeBaseId: f.kbId,
      fileId: f.fileId,
      fileVersionId: f.versionId,
      kind,
      options: {},
      idempotencyKey: key,
    });
    if (reserve) await reserveCredits(tx, { orgId: f.orgId, amount: reserve, jobId: job.id, fileId: f.fileId });
    await addQueuedEvent(tx, job.id, 'Queued.', {});
    return job;
  });
}

const row = (id: string) => db.job.findUniqueOrThrow({ where: { id } });
const events = async (id: string) =>
  (await db.jobEvent.findMany({ where: { job_id: id }, orderBy: { id: 'asc' } })).map((e) => e.event_type);
const reservation = (jobId: string) => db.creditReservation.findUniqueOrThrow({ where: { job_id: jobId } });

const completion = (jobId: string, f: Fixture) => ({
  manifest: {
    id: parseManifestIdFor(jobId),
    org_id: f.orgId,
    file_id: f.fileId,
    file_version_id: f.versionId,
    job_id: jobId,
    artifact_type: 'parse',
    storage_prefix: 'p',
    manifest: {},
    links: {},
  },
  stage: 'completed' as const,
  pageCount: 2,
  pageHashes: ['a', 'b'],
  result: { ok: true },
});

describe('status words', () => {
  it('shows started, in_progress and running as running, and never moves a terminal row', () => {
    expect(JOB_STATUSES.map(publicJobStatus)).toEqual([
      'queued',
      'running',
      'running',
      'running',
      'completed',
      'failed',
      'cancelled',
    ]);
    for (const s of TERMINAL_JOB_STATUSES) for (const to of JOB_STATUSES) expect(canMoveJob(s, to)).toBe(false);
    expect(canMoveJob('queued', 'started')).toBe(true);
    expect(canMoveJob('started', 'queued')).toBe(true);
    expect(canMoveJob('running', 'in_progress')).toBe(false);
  });

  it('derives stable, distinct manifest ids per job and kind', () => {
    const id = randomUUID();
    expect(parseManifestIdFor(id)).toBe(parseManifestIdFor(id));
    expect(parseManifestIdFor(id)).not.toBe(extractManifestIdFor(id));
    expect(parseManifestIdFor(id)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('idempotency chain', () => {
  it('answers an active job, retries a failed one as `…:retry-N`, and refuses a key of another file', async () => {
    const f = await fixture();
    const args = {
      orgId: f.orgId,
      kind: 'parse' as const,
      fileId: f.fileId,
      derivedKey: () => 'parse:base',
      conflictMessage: 'other file',
    };
    expect(await resolveJobKey(db, args)).toEqual({ key: 'parse:base' });
    const first = await queuedJob(f, 'parse', 'parse:base');
    expect((await resolveJobKey(db, args)).existing?.id).toBe(first.id);
    await failParseJob(db, first.id, 'Broken.', { traceback: '' });
    const second = await resolveJobKey(db, args);
    expect(second).toMatchObject({ key: retryKey('parse:base', 1), retryOf: { id: first.id } });
    await queuedJob(f, 'parse', retryKey('parse:base', 1));
    expect((await resolveJobKey(db, args)).existing?.idempotency_key).toBe('parse:base:retry-1');
    // An explicit key answers whatever job it names, terminal or not, but only for its own file.
    expect((await resolveJobKey(db, { ...args, explicitKey: 'parse:base' })).existing?.id).toBe(first.id);
    const other = await resolveJobKey(db, { ...args, fileId: randomUUID(), explicitKey: 'parse:base' }).catch(
      (e: unknown) => e,
    );
    expect(isApiError(other) && other.code).toBe('idempotency_conflict');
    // The chain is per kind.
    expect(await resolveJobKey(db, { ...args, kind: 'extract' })).toEqual({ key: 'parse:base' });
  });
});

describe('parse job', () => {
  it('claims, reports progress monotonically, completes once and commits the reservation', async () => {
    const f = await fixture();
    const job = await queuedJob(f, 'parse', 'p1', 5);
    expect(await claimParseJob(db, job.id, 'w1')).toBe(true);
    expect((await row(job.id)).status).toBe('started');
    await setParseProgress(db, job.id, { percent: 40, rawStatus: 'in_progress', totalPages: 2 });
    await setParseProgress(db, job.id, { percent: 10 });
    expect(await row(job.id)).toMatchObject({ status: 'in_progress', percent: 40, total_pages: 2 });
    await beatParseJob(db, job.id, 'w1');
    expect(await completeParseJob(deps, job.id, completion(job.id, f))).toBe('completed');
    expect(await row(job.id)).toMatchObject({ status: 'completed', percent: 100, lease_owner: null });
    expect((await reservation(job.id)).status).toBe('released'); // nothing was debited
    expect(await db.pageVersion.count({ where: { file_version_id: f.versionId } })).toBe(2);
    // Terminal: nothing moves it again.
    expect(await failParseJob(db, job.id, 'late', { traceback: '' })).toBe('skipped');
    expect(await cancelParseJob(db, job.id)).toBe('skipped');
    expect(await claimParseJob(db, job.id, 'w2')).toBe(false);
    expect(await events(job.id)).toEqual(['job.queued', 'job.completed']);
  });

  it('queues the index job inside the completion: there before the commit, and gone with a rollback', async () => {
    const f = await fixture();
    const job = await queuedJob(f, 'parse', 'p-index', 2);
    await claimParseJob(db, job.id, 'w1');
    const manifestId = parseManifestIdFor(job.id);
    const indexJobId = indexJobIdOf(manifestId);
    const seen: string[] = [];
    let fail = true;
    // The queue client the completion uses: it notes what another reader sees when the index job is
    // queued, and the first time fails as a worker that dies there would.
    class Watching extends QueueClient {
      override async enqueue<N extends JobName>(name: N, payload: JobPayload<N>, o?: object) {
        seen.push((await row(job.id)).status);
        expect(await parseOfManifestRunning(db, payload as JobPayload<'index.file-version'>)).toBe(true);
        if (fail) {
          fail = false;
          throw new Error('injected: died at the index enqueue');
        }
        return super.enqueue(name, payload, o);
      }
    }
    const watching = { db, queues: new Watching(q.redis, q.prefix) };
    await expect(completeParseJob(watching, job.id, completion(job.id, f))).rejects.toThrow('injected');
    // Rolled back whole: still running, no manifest, no pending index row; a retry will complete it.
    expect((await row(job.id)).status).toBe('started');
    expect(await db.artifactManifest.count({ where: { id: manifestId } })).toBe(0);
    expect(await db.indexPendingUpdate.count({ where: { job_id: indexJobId } })).toBe(0);

    expect(await completeParseJob(watching, job.id, completion(job.id, f))).toBe('completed');
    expect(seen).toEqual(['started', 'started']);
    const indexJob = await q.queues.queue('index').getJob(indexJobId);
    expect(indexJob?.name).toBe('index.file-version');
    expect(indexJob?.data).toMatchObject({
      orgId: f.orgId,
      fileId: f.fileId,
      fileVersionId: f.versionId,
      manifestId,
      pendingId: indexJobId,
    });
    expect(await db.indexPendingUpdate.findUnique({ where: { job_id: indexJobId } })).toMatchObject({
      knowledge_base_id: f.kbId,
      name: 'index.file-version',
    });
    const payload = indexJob!.data as JobPayload<'index.file-version'>;
    expect(await parseOfManifestRunning(db, payload)).toBe(false);
    // A parse that ended without its manifest is not waited for either.
    const other = await queuedJob(f, 'parse', 'p-index-2', 2);
    await claimParseJob(db, other.id, 'w1');
    const otherPayload = { ...payload, manifestId: parseManifestIdFor(other.id) };
    expect(await parseOfManifestRunning(db, otherPayload)).toBe(true);
    await failParseJob(db, other.id, 'Broke.', { traceback: '' });
    expect(await parseOfManifestRunning(db, otherPayload)).toBe(false);
  });

  it('lets a requested cancel win at completion, and fails with a code and the reservation failed', async () => {
    const f = await fixture();
    const a = await queuedJob(f, 'parse', 'p2', 3);
    await claimParseJob(db, a.id, 'w1');
    expect((await requestJobCancel(db, a.id)).removeFromQueue).toBe(false);
    expect(await cancelRequested(db, a.id)).toBe(true);
    expect(await completeParseJob(deps, a.id, completion(a.id, f))).toBe('cancelled');
    expect((await reservation(a.id)).status).toBe('cancelled');
    expect(await events(a.id)).toEqual(['job.queued', 'job.cancel_requested', 'job.cancelled']);
    // A cancelled parse has no manifest, so no index job either.
    expect(await q.queues.queue('index').getJob(indexJobIdOf(parseManifestIdFor(a.id)))).toBeUndefined();

    const b = await queuedJob(f, 'parse', 'p3', 3);
    await claimParseJob(db, b.id, 'w1');
    expect(await failParseJob(db, b.id, 'Page 2 broke.', { traceback: 'x', code: 'page_failed', page: 2 })).toBe(
      'failed',
    );
    expect(await row(b.id)).toMatchObject({ status: 'failed', error_code: 'page_failed', lease_owner: null });
    expect((await reservation(b.id)).status).toBe('failed');
  });

  it('hands a job back to the queue only from the worker holding it', async () => {
    const f = await fixture();
    const job = await queuedJob(f, 'parse', 'p4');
    await claimParseJob(db, job.id, 'w1');
    await handBackParseJob(db, job.id, 'w2');
    expect((await row(job.id)).status).toBe('started');
    await handBackParseJob(db, job.id, 'w1');
    expect(await row(job.id)).toMatchObject({ status: 'queued', lease_owner: null });
  });
});

describe('cancel', () => {
  it('cancels a queued job at once with its reservation, and returns a terminal one as it is', async () => {
    const f = await fixture();
    const job = await queuedJob(f, 'parse', 'c1', 4);
    const out = await requestJobCancel(db, job.id);
    expect(out.removeFromQueue).toBe(true);
    expect(out.job.status).toBe('cancelled');
    expect((await reservation(job.id)).status).toBe('cancelled');
    const again = await requestJobCancel(db, job.id);
    expect([again.job.status, again.removeFromQueue]).toEqual(['cancelled', false]);
    expect(await events(job.id)).toEqual(['job.queued', 'job.cancelled']);
  });
});

describe('extract job', () => {
  it('claims as running, moves through stages, and ends once', async () => {
    const f = await fixture(0);
    const job = await queuedJob(f, 'extract', 'e1');
    expect(await claimExtractJob(db, job.id)).toBe(true);
    await setExtractStage(db, job.id, 'extract');
    await setExtractStage(db, job.id, 'build-evidence');
    expect(await row(job.id)).toMatchObject({ status: 'running', stage: 'build-evidence', percent: 30 });
    expect(await failExtractJob(db, job.id, 'No.', { traceback: '' })).toBe('failed');
    expect(await cancelExtractJob(db, job.id)).toBe('skipped');
    const other = await queuedJob(f, 'extract', 'e2');
    expect(await cancelExtractJob(db, other.id)).toBe('cancelled');
    expect(await claimExtractJob(db, other.id)).toBe(false);
  });
});

describe('failures outside a worker', () => {
  it('fails a job that never reached the queue, closing its reservation when asked', async () => {
    const f = await fixture();
    const job = await queuedJob(f, 'parse', 'u1', 2);
    await failUnqueuedJob(db, job.id, new Error('redis down'), { error: 'Not queued.', closeReservation: true });
    expect(await row(job.id)).toMatchObject({ status: 'failed', error_code: 'service_unavailable' });
    expect((await reservation(job.id)).status).toBe('failed');
  });

  it('fails jobs abandoned while queued or running, and leaves fresh ones', async () => {
    const f = await fixture();
    const old = await queuedJob(f, 'parse', 'a1', 1);
    const fresh = await queuedJob(f, 'parse', 'a2');
    await db.$executeRaw`UPDATE jobs SET updated_at = now() - interval '1 hour' WHERE id = ${old.id}::uuid`;
    const failed = await failAbandonedJobs(db, { runningStaleMs: 600_000, queuedStaleMs: 600_000 });
    expect(failed).toContain(old.id);
    expect(failed).not.toContain(fresh.id);
    expect(await row(old.id)).toMatchObject({ status: 'failed', error_code: 'abandoned' });
    expect((await reservation(old.id)).status).toBe('failed');
  });
});
