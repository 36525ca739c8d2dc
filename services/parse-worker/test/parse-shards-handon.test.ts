// Every path by which a shard of a dead worker is picked up again records one `parse.shard_resumed`
// (lost-shards.ts), whatever fails in between: the lost-shard check (its event is written with the
// row change, so a check killed before it moved the entry leaves no hand-on unrecorded), the next
// check moving an entry a killed check left active behind a `queued` row, and a worker taking over a
// row still `running` for a dead worker after BullMQ's stalled check redelivered it. An entry held
// by a live worker is never moved. A dead worker here is a real BullMQ worker (named, as parse
// workers are) that took the shard's entry and was force-closed with it: its entry stays active
// under its lock, as after kill -9, and it has no `docfleet:parse-worker:` connection.
import { longPdf, waitUntil } from '@docfleet/testing';
import { createRedis, createWorker, type Redis } from '@docfleet/queue';
import { releaseShard, resumeLostShards, takeShard, workerConnectionName } from '../src/lost-shards';
import { shardQueueId } from '../src/shards';
import { startStack, type Stack } from './stack';

let s: Stack;
let jobId: string;
const opened: Redis[] = [];
beforeAll(async () => {
  s = await startStack({}, { worker: false });
  const { key } = await s.gw.createOrg({ credits: 100 });
  const kbId = (await s.gw.createKnowledgeBase(key, 'Hand-on')).id;
  const up = await s.gw.upload(key, { knowledge_base_id: kbId }, { name: 'h.pdf', data: await longPdf(3) });
  const r = await s.gw.req('POST', `/v1/files/${up.body.file.id}/parse`, { key, body: { options: {} } });
  expect(r.status).toBe(202);
  jobId = r.body.job.job_id;
  // No planning run: the job's queue entry goes, and three one-page shards stand for what it plans.
  await s.gw.deps.queues.queue('parse').drain(true);
  await s.gw.db.job.update({ where: { id: jobId }, data: { status: 'running' } });
  await s.gw.db.parseShard.createMany({
    data: [0, 1, 2].map((k) => ({ job_id: jobId, shard_no: k, first_page: k + 1, last_page: k + 1, pages: [k + 1] })),
  });
}, 120_000);
afterAll(async () => {
  for (const c of opened) if (c.status !== 'end') await c.quit().catch(() => undefined);
  await s?.close();
});

const queue = () => s.gw.deps.queues.queue('parse');
const opts = { quietMs: 0, maxLost: 3, killedMessage: 'killed' };
const deps = () => ({ db: s.gw.db, logger: s.workerDeps.logger });

/** A BullMQ worker named `name` takes shard `shardNo`'s entry and holds it; `die` force-closes it. */
async function hold(shardNo: number, name: string) {
  await s.gw.deps.queues.enqueue(
    'parse.shard',
    { jobId, orgId: (await s.gw.db.job.findUniqueOrThrow({ where: { id: jobId } })).org_id, shardNo },
    { jobId: shardQueueId(jobId, shardNo) },
  );
  const connection = createRedis(s.gw.deps.env.REDIS_URL, { forWorker: true });
  opened.push(connection);
  const never = () => new Promise<never>(() => undefined);
  const w = createWorker(
    'parse',
    { 'parse.file': never, 'parse.shard': never },
    { connection, prefix: s.gw.deps.env.QUEUE_PREFIX, lockDurationMs: 60_000, name },
  );
  const entry = async () => (await queue().getJob(shardQueueId(jobId, shardNo)))!;
  let st = '';
  await waitUntil(
    `shard ${shardNo} taken by ${name}`,
    async () => (st = await (await entry()).getState()) === 'active',
    {
      timeoutMs: 10_000,
      detail: () => `its BullMQ entry is ${st}`,
    },
  );
  expect((await entry()).processedBy).toBe(name);
  return {
    entry,
    die: async () => {
      await w.close(true);
      await connection.quit();
    },
  };
}

const setRow = (shardNo: number, status: string, worker: string) =>
  s.gw.db.parseShard.update({
    where: { job_id_shard_no: { job_id: jobId, shard_no: shardNo } },
    data: { status, worker, updated_at: new Date(Date.now() - 10_000) },
  });
const resumedEvents = async (shardNo: number) =>
  (await s.gw.db.jobEvent.findMany({ where: { job_id: jobId, event_type: 'parse.shard_resumed' } }))
    .map((e) => e.payload as { shard_no: number; path: string; worker: string })
    .filter((p) => p.shard_no === shardNo);

it('the lost-shard check: one event with the row change, the entry back in the queue, nothing twice', async () => {
  const h = await hold(0, 'host:gone-0');
  await setRow(0, 'running', 'host:gone-0');
  await h.die();
  const out = await resumeLostShards(deps(), queue(), opts);
  expect(out.map((x) => [x.shardNo, x.outcome])).toEqual([[0, 'resumed']]);
  expect(await (await h.entry()).getState()).toBe('waiting');
  expect(
    (await s.gw.db.parseShard.findUniqueOrThrow({ where: { job_id_shard_no: { job_id: jobId, shard_no: 0 } } })).status,
  ).toBe('queued');
  // Another check, and the worker that takes the `queued` row: no second event.
  await resumeLostShards(deps(), queue(), opts);
  expect(await takeShard({ ...deps(), workerId: 'host:next' }, jobId, 0)).toBe(true);
  expect(await resumedEvents(0)).toEqual([
    expect.objectContaining({ shard_no: 0, worker: 'host:gone-0', path: 'lost-shard check' }),
  ]);
  await (await h.entry()).remove();
}, 60_000);

it('a check killed after the row change: the next check moves the entry, no second event', async () => {
  const h = await hold(1, 'host:gone-1');
  await h.die();
  // What a check killed between its transaction and the move leaves: the row `queued`, the event
  // written, the entry still active under the dead worker's lock.
  await setRow(1, 'queued', 'host:gone-1');
  expect(await (await h.entry()).getState()).toBe('active');
  await resumeLostShards(deps(), queue(), opts);
  expect(await (await h.entry()).getState()).toBe('waiting');
  expect(await resumedEvents(1)).toEqual([]);
  await (await h.entry()).remove();
}, 60_000);

it('an entry a live worker holds is left to it; a worker taking over a dead one’s row records it once', async () => {
  // A live parse worker (its named connection open) took shard 2 while the row still names a dead one.
  const live = createRedis(s.gw.deps.env.REDIS_URL, { name: workerConnectionName('host:live-2') });
  opened.push(live);
  await live.ping();
  const h = await hold(2, 'host:live-2');
  await setRow(2, 'running', 'host:gone-2');
  expect(await resumeLostShards(deps(), queue(), opts)).toEqual([]);
  expect(await (await h.entry()).getState()).toBe('active');
  expect(await resumedEvents(2)).toEqual([]);
  // Its handler takes the row over: that hand-on (BullMQ's redelivery) is recorded, once.
  const me = { ...deps(), workerId: 'host:live-2' };
  expect(await takeShard(me, jobId, 2)).toBe(true);
  expect(await takeShard(me, jobId, 2)).toBe(true);
  expect(await resumedEvents(2)).toEqual([
    expect.objectContaining({ shard_no: 2, worker: 'host:gone-2', path: 'queue redelivery' }),
  ]);
  // Handed back alive (grace over, retry): the next worker does not count it as lost.
  await releaseShard(me, jobId, 2);
  expect(await takeShard({ ...deps(), workerId: 'host:other' }, jobId, 2)).toBe(true);
  expect(await resumedEvents(2)).toHaveLength(1);
  await h.die();
}, 60_000);
