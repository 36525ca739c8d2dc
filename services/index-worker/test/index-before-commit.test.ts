// A parse queues its index job inside the transaction that completes it, just before the commit
// (libs/jobs completeParseJob). The index worker may take the job in between: it must wait for the
// parse's manifest rather than skip the job for good (`manifest_not_newest` while an older parse's
// manifest is still the newest), and a job whose parse ended without a manifest is skipped.
import {
  claimParseJob,
  completeParseJob,
  createQueuedJob,
  enqueueIndexJob,
  failParseJob,
  indexJobIdOf,
  parseManifestIdFor,
} from '@docfleet/jobs';
import { createLogger } from '@docfleet/logger';
import { createRedis, createWorker } from '@docfleet/queue';
import { artifactPrefix } from '@docfleet/storage';
import { type GatewayProcess, indexDeps, seedAndIndex, seg, spawnGateway, waitUntil } from '@docfleet/testing';
import { createIndexHandlers } from '../src/worker';

let gw: GatewayProcess;
let orgId: string;
let kbId: string;
let worker: ReturnType<typeof createWorker>;
let connection: ReturnType<typeof createRedis>;
beforeAll(async () => {
  gw = await spawnGateway();
  let key: string;
  ({ key, orgId } = await gw.createOrg());
  kbId = (await gw.createKnowledgeBase(key, 'Before commit')).id;
  connection = createRedis(gw.deps.env.REDIS_URL, { forWorker: true });
  worker = createWorker('index', createIndexHandlers({ ...indexDeps(gw.deps), logger: createLogger('t', 'silent') }), {
    connection,
    prefix: gw.deps.env.QUEUE_PREFIX,
    concurrency: 2,
  });
});
afterAll(async () => {
  await worker.close();
  await connection.quit();
  await gw.close();
});

/** A file indexed from a first parse, and a second parse of the same version now running. */
async function fileWithRunningParse(name: string) {
  const first = await seedAndIndex(gw.deps, { orgId, kbId, filename: name, segments: [seg('old', 'first parse')] });
  const job = await gw.db.$transaction((tx) =>
    createQueuedJob(tx, {
      orgId,
      knowledgeBaseId: kbId,
      fileId: first.fileId,
      fileVersionId: first.versionId,
      kind: 'parse',
      options: {},
      idempotencyKey: `parse:${name}`,
    }),
  );
  expect(await claimParseJob(gw.db, job.id, 'w1')).toBe(true);
  const manifestId = parseManifestIdFor(job.id);
  const m = { id: manifestId, org_id: orgId, file_id: first.fileId, file_version_id: first.versionId };
  // The bundle is written before the completion, as the parse worker writes it.
  const prefix = artifactPrefix(kbId, first.fileId, manifestId);
  await gw.deps.storage.put(`${prefix}/segments.json`, JSON.stringify([seg('new', 'second parse')]));
  return { first, job, manifestId, m, prefix };
}

const indexJob = (manifestId: string) => gw.deps.queues.queue('index').getJob(indexJobIdOf(manifestId));
const segmentIds = async (fileId: string) =>
  (await gw.db.evidenceIndexSegment.findMany({ where: { file_id: fileId } })).map((r) => r.segment_id);

it('an index job taken before its parse commits waits for the commit, then indexes the new manifest', async () => {
  const { first, job, manifestId, m, prefix } = await fileWithRunningParse('wait.pdf');
  // The index job exists before the completion commits (as completeParseJob queues it).
  await enqueueIndexJob(gw.deps, indexJobIdOf(manifestId), m, kbId);
  // The worker takes it and defers it: not completed, not failed, no attempt spent.
  await waitUntil('the index job taken twice', async () => ((await indexJob(manifestId))?.attemptsStarted ?? 0) >= 2);
  const waiting = (await indexJob(manifestId))!;
  expect(['delayed', 'waiting', 'active']).toContain(await waiting.getState());
  expect(waiting.attemptsMade).toBe(0);
  expect(await segmentIds(first.fileId)).toEqual(['old']);

  const done = await completeParseJob({ db: gw.db, queues: gw.deps.queues }, job.id, {
    stage: 'completed',
    pageCount: 1,
    manifest: {
      ...m,
      job_id: job.id,
      artifact_type: 'parse',
      storage_prefix: prefix,
      manifest: { page_count: 1 },
      links: {},
    },
    result: {},
  });
  expect(done).toBe('completed');
  await waitUntil('the index job completed', async () => (await indexJob(manifestId))?.isCompleted(), {
    timeoutMs: 40_000,
  });
  expect(await (await indexJob(manifestId))!.returnvalue).toMatchObject({ status: 'indexed' });
  expect(await segmentIds(first.fileId)).toEqual(['new']);
  expect(await gw.db.indexPendingUpdate.count({ where: { job_id: indexJobIdOf(manifestId) } })).toBe(0);
}, 60_000);

it('an index job whose parse ended without a manifest is skipped once the parse has ended', async () => {
  const { first, job, manifestId, m } = await fileWithRunningParse('fail.pdf');
  await enqueueIndexJob(gw.deps, indexJobIdOf(manifestId), m, kbId);
  await waitUntil('the index job taken', async () => ((await indexJob(manifestId))?.attemptsStarted ?? 0) >= 1);
  expect(await failParseJob(gw.db, job.id, 'Broke.', { traceback: '' })).toBe('failed');
  await waitUntil('the index job completed', async () => (await indexJob(manifestId))?.isCompleted(), {
    timeoutMs: 40_000,
  });
  expect((await indexJob(manifestId))!.returnvalue).toMatchObject({ status: 'skipped', reason: 'manifest_not_newest' });
  expect(await segmentIds(first.fileId)).toEqual(['old']);
  expect(await gw.db.indexPendingUpdate.count({ where: { job_id: indexJobIdOf(manifestId) } })).toBe(0);
}, 60_000);
