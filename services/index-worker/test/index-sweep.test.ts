// The index sweep (issue 13.3): a parse whose index job the queue lost (Redis restarted empty) is
// queued again; one with index rows, one whose job is still queued, a young one, and the older
// manifest of a re-parsed version are left alone.
import { createLogger } from '@docfleet/logger';
import { addManifest, type GatewayProcess, indexNow, seedParsedFile, seg, spawnGateway } from '@docfleet/testing';
import { sweepUnindexed } from '../src/index-sweep';

let gw: GatewayProcess;
let orgId: string;
let kbId: string;
beforeAll(async () => {
  gw = await spawnGateway();
  const o = await gw.createOrg();
  orgId = o.orgId;
  kbId = (await gw.createKnowledgeBase(o.key, 'Sweep')).id;
});
afterAll(() => gw.close());

const age = (manifestId: string, seconds: number) =>
  gw.db
    .$executeRaw`UPDATE artifact_manifests SET created_at = now() - make_interval(secs => ${seconds}) WHERE id = ${manifestId}::uuid`;

it('queues again the index jobs the queue lost, and only those', async () => {
  const lost = await seedParsedFile(gw.deps, {
    orgId,
    kbId,
    filename: 'lost.pdf',
    segments: [seg('a', 'lost invoice')],
  });
  const indexed = await seedParsedFile(gw.deps, {
    orgId,
    kbId,
    filename: 'indexed.pdf',
    segments: [seg('b', 'indexed invoice')],
  });
  await indexNow(gw.deps, indexed);
  const waiting = await seedParsedFile(gw.deps, {
    orgId,
    kbId,
    filename: 'waiting.pdf',
    segments: [seg('c', 'waiting invoice')],
  });
  await gw.deps.queues.enqueue(
    'index.file-version',
    { orgId, fileId: waiting.fileId, fileVersionId: waiting.versionId, manifestId: waiting.manifestId },
    { jobId: `index-${waiting.manifestId}` },
  );
  const young = await seedParsedFile(gw.deps, {
    orgId,
    kbId,
    filename: 'young.pdf',
    segments: [seg('d', 'young invoice')],
  });
  const reparsed = await seedParsedFile(gw.deps, {
    orgId,
    kbId,
    filename: 'reparsed.pdf',
    segments: [seg('e', 'old parse')],
  });
  const newer = await addManifest(gw.deps, reparsed, [seg('e', 'new parse')]);
  for (const m of [lost.manifestId, indexed.manifestId, waiting.manifestId, reparsed.manifestId]) await age(m, 120);
  await age(newer, 90);
  await age(young.manifestId, 5);

  const deps = { db: gw.db, queues: gw.deps.queues, logger: createLogger('sweep-test', 'silent') };
  const requeued = await sweepUnindexed(deps, { graceMs: 40_000, windowMs: 3600_000 });
  expect(requeued.sort()).toEqual([lost.manifestId, newer].sort());
  const job = await gw.deps.queues.queue('index').getJob(`index-${lost.manifestId}`);
  expect(job?.data).toMatchObject({
    orgId,
    fileId: lost.fileId,
    fileVersionId: lost.versionId,
    manifestId: lost.manifestId,
  });
  // A second sweep finds their entries and does nothing.
  expect(await sweepUnindexed(deps, { graceMs: 40_000, windowMs: 3600_000 })).toEqual([]);
});
