// snapshot.pending_updates (issue 13.6): search answers the exact number of index jobs of that
// knowledge base queued and not yet applied: from the parse worker (a completed parse), trash,
// restore and permanent delete; a job the queue lost still counts and the sweep queues it again;
// another knowledge base's jobs never count; once the worker has applied them all it is 0.
import { randomUUID } from 'node:crypto';
import { enqueueIndexOfParse } from '@docfleet/jobs';
import { createLogger } from '@docfleet/logger';
import { createRedis, createWorker } from '@docfleet/queue';
import {
  type GatewayProcess,
  indexDeps,
  seedAndIndex,
  seedParsedFile,
  seg,
  spawnGateway,
  waitUntil,
} from '@docfleet/testing';
import { createIndexHandlers } from '../src/worker';
import { sweepUnindexed } from '../src/index-sweep';

let gw: GatewayProcess;
let key: string;
let orgId: string;
let kbId: string;
let otherKbId: string;
beforeAll(async () => {
  gw = await spawnGateway();
  ({ key, orgId } = await gw.createOrg());
  kbId = (await gw.createKnowledgeBase(key, 'Pending')).id;
  otherKbId = (await gw.createKnowledgeBase(key, 'Other')).id;
});
afterAll(() => gw.close());

const silent = createLogger('t', 'silent');
async function pending(kb = kbId): Promise<number> {
  const r = await gw.req('POST', `/v1/knowledge-bases/${kb}/search`, { key, body: { query: 'invoice' } });
  expect(r.status).toBe(200);
  return r.body.snapshot.pending_updates;
}
/** What the parse worker does when a parse completes: the manifest's index job. */
async function parseCompleted(s: { manifestId: string }) {
  const jobId = randomUUID();
  await gw.db.artifactManifest.update({ where: { id: s.manifestId }, data: { job_id: jobId } });
  await enqueueIndexOfParse({ db: gw.db, queues: gw.deps.queues }, jobId);
}

it('counts exactly the index jobs queued and not yet applied, per knowledge base', async () => {
  const live = await seedAndIndex(gw.deps, { orgId, kbId, filename: 'live.pdf', segments: [seg('a', 'live invoice')] });
  const gone = await seedAndIndex(gw.deps, { orgId, kbId, filename: 'gone.pdf', segments: [seg('b', 'gone invoice')] });
  expect(await pending()).toBe(0);

  // Three parses complete while no index worker runs; a redelivered parse does not count twice.
  const parsed = await Promise.all(
    ['p1.pdf', 'p2.pdf', 'p3.pdf'].map((filename) =>
      seedParsedFile(gw.deps, { orgId, kbId, filename, segments: [seg(filename, `parsed invoice ${filename}`)] }),
    ),
  );
  for (const p of parsed) await parseCompleted(p);
  await enqueueIndexOfParse(
    { db: gw.db, queues: gw.deps.queues },
    (await gw.db.artifactManifest.findUniqueOrThrow({ where: { id: parsed[0]!.manifestId } })).job_id!,
  );
  expect(await pending()).toBe(3);

  // Trash (remove-file), restore (file-version) and a permanent delete (remove-file) through the API.
  expect((await gw.req('DELETE', `/v1/files/${live.fileId}`, { key })).status).toBe(200);
  expect(await pending()).toBe(4);
  expect((await gw.req('POST', `/v1/files/${live.fileId}/restore`, { key })).status).toBe(200);
  expect(await pending()).toBe(5);
  const del = await gw.req('DELETE', `/v1/files/${gone.fileId}/permanent?confirm_permanent=true`, { key });
  expect(del.status).toBe(200);
  expect(del.body).not.toHaveProperty('knowledge_base_id');
  expect(await pending()).toBe(6);

  // Another knowledge base's jobs are its own.
  const other = await seedParsedFile(gw.deps, {
    orgId,
    kbId: otherKbId,
    filename: 'other.pdf',
    segments: [seg('o', 'other invoice')],
  });
  await parseCompleted(other);
  expect(await pending(otherKbId)).toBe(1);
  expect(await pending()).toBe(6);

  // The queue loses one job (as a Redis restart would): it is still not applied, so it still counts,
  // and the sweep queues it again from its recorded payload.
  const lostId = `index-${parsed[1]!.manifestId}`;
  await (await gw.deps.queues.queue('index').getJob(lostId))!.remove();
  expect(await pending()).toBe(6);
  await gw.db
    .$executeRaw`UPDATE index_pending_updates SET created_at = now() - interval '2 minutes' WHERE job_id = ${lostId}`;
  const requeued = await sweepUnindexed(
    { db: gw.db, queues: gw.deps.queues, logger: silent },
    { graceMs: 60_000, windowMs: 3600_000 },
  );
  expect(requeued).toEqual([lostId]);
  expect(await gw.deps.queues.queue('index').getJob(lostId)).toBeTruthy();
  expect(await pending()).toBe(6);

  // The worker applies them: the count goes down to 0 and the index holds what the jobs said.
  const connection = createRedis(gw.deps.env.REDIS_URL, { forWorker: true });
  const worker = createWorker('index', createIndexHandlers({ ...indexDeps(gw.deps), logger: silent }), {
    connection,
    prefix: gw.deps.env.QUEUE_PREFIX,
    concurrency: 2,
  });
  try {
    await waitUntil(
      'no pending index updates in either knowledge base',
      async () => (await pending()) === 0 && (await pending(otherKbId)) === 0,
      { timeoutMs: 30_000 },
    );
  } finally {
    await worker.close();
    await connection.quit();
  }
  const files = await gw.db.evidenceIndexSegment.groupBy({ by: ['file_id'], where: { knowledge_base_id: kbId } });
  expect(files.map((f) => f.file_id).sort()).toEqual([live.fileId, ...parsed.map((p) => p.fileId)].sort());
  expect(await gw.db.indexPendingUpdate.count()).toBe(0);
});
