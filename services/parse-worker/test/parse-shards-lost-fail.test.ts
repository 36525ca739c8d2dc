// A shard that keeps losing its worker fails the job with its page range (issue 17 item 3): with
// PARSE_MAX_STALLED=1, the worker holding one shard is killed (-9), the lost-shard check hands the
// shard to another worker (one `parse.shard_resumed`), and that worker is killed too. The second
// loss is one more than allowed: the job fails with an error naming the shard's pages, the
// reservation is closed (none left held), the ledger sum equals the balance, and the other shards
// stop (no page is read or charged for the job once it has failed).
import { longPdf, waitUntil } from '@docfleet/testing';
import { creditInvariants, startStack, type Stack } from './stack';
import { describeShardState, isAlive, shardState, workerFleet, type WorkerFleet } from '@docfleet/testing';

const PAGES = 400;
let s: Stack;
let pdf: Buffer;
let fleet: WorkerFleet;
const ENV = {
  // Large shards: the shard killed once is still mid-way when the worker resuming it is killed.
  PARSE_SHARD_PAGES: '100',
  PARSE_MAX_STALLED: '1',
  LOG_LEVEL: 'debug',
};
beforeAll(async () => {
  s = await startStack({}, { worker: false });
  fleet = workerFleet(s.gw, ENV);
  pdf = await longPdf(PAGES);
  await fleet.spawn(3);
}, 120_000);
afterAll(async () => {
  fleet?.killAll();
  await s?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TERMINAL = ['completed', 'failed', 'cancelled'];

const state = (jobId: string) => shardState(s.gw.db, jobId);
const describe = (st: Awaited<ReturnType<typeof state>>) => describeShardState(st, fleet);

/** `shard page read` lines of every worker (killed ones included) for this job. */
function pagesRead(jobId: string): number {
  return fleet.lines('shard page read', jobId).length;
}

/** Waits until shard `shardNo` is running on a live worker (not one in `not`), with pages still to go. */
async function holderOf(jobId: string, shardNo: number | undefined, not: number[]) {
  let st: Awaited<ReturnType<typeof state>> | undefined;
  return waitUntil(
    `a shard${shardNo === undefined ? '' : ` (no. ${shardNo})`} of job ${jobId} to kill: running on a live worker with pages to go`,
    async () => {
      st = await state(jobId);
      if (TERMINAL.includes(st.job.status)) throw new Error(`job ended before the kill: ${describe(st)}`);
      for (const sh of st.shards) {
        if (shardNo !== undefined && sh.shard_no !== shardNo) continue;
        if (shardNo === undefined && sh.done_pages < 1) continue; // first kill: a shard under way
        if (sh.status !== 'running' || sh.done_pages >= sh.pages.length - 10) continue;
        const proc = fleet.workers.find(
          (p) => isAlive(p) && !not.includes(p.child.pid!) && sh.worker?.endsWith(`:${p.child.pid}`),
        );
        if (proc) return { proc, shard: sh };
      }
      return undefined;
    },
    { timeoutMs: 60_000, detail: () => (st ? describe(st) : 'no state read') },
  );
}

it('a shard whose worker dies more often than PARSE_MAX_STALLED fails the job with its page range', async () => {
  const { key, orgId } = await s.gw.createOrg({ credits: 1000 });
  const kbId = (await s.gw.createKnowledgeBase(key, 'Lost')).id;
  const up = await s.gw.upload(key, { knowledge_base_id: kbId }, { name: 'lost.pdf', data: pdf });
  const r = await s.gw.req('POST', `/v1/files/${up.body.file.id}/parse`, {
    key,
    body: { options: { backend: 'text', dpi: 72 } },
  });
  expect(r.status).toBe(202);
  const jobId = r.body.job.job_id as string;

  // Kill 1: the worker holding a shard under way; a replacement joins the fleet.
  const first = await holderOf(jobId, undefined, []);
  const victim = first.shard;
  first.proc.child.kill('SIGKILL');
  await first.proc.exited;
  await fleet.spawn();

  // The lost-shard check hands it on (one loss, allowed); kill 2: the worker that resumed it.
  const second = await holderOf(jobId, victim.shard_no, [first.proc.child.pid!]);
  expect(
    (await s.gw.db.jobEvent.findMany({ where: { job_id: jobId, event_type: 'parse.shard_resumed' } })).map(
      (e) => (e.payload as { shard_no: number }).shard_no,
    ),
  ).toEqual([victim.shard_no]);
  second.proc.child.kill('SIGKILL');
  await second.proc.exited;
  const killedAt = Date.now();

  // The lost-shard check runs every 2 s on rows quiet for 3 s; BullMQ's own lock is 45 s.
  let last: Awaited<ReturnType<typeof state>> | undefined;
  const st = await waitUntil(
    `job ${jobId} to end within 30 s of the 2nd kill`,
    async () => {
      last = await state(jobId);
      return TERMINAL.includes(last.job.status) && last;
    },
    { timeoutMs: 30_000, intervalMs: 100, detail: () => (last ? describe(last) : 'no state read') },
  );
  const failedAfterMs = Date.now() - killedAt;
  const range = `pages ${victim.first_page}-${victim.last_page}`;
  expect(st.job.status).toBe('failed');
  expect(st.job.error).toContain(`Shard ${range}:`);
  expect(st.job.error_code).toBe('worker_stopped');
  const failed = await s.gw.db.jobEvent.findMany({ where: { job_id: jobId, event_type: 'job.failed' } });
  expect(failed).toHaveLength(1);
  expect(failed[0]!.message).toContain(range);
  // The client sees the same error through the API.
  const view = await s.gw.req('GET', `/v1/files/${up.body.file.id}/jobs/${jobId}`, { key });
  expect(JSON.stringify(view.body)).toContain(`Shard ${range}:`);

  // The other shards stop: running ones see the failed row at their next page, waiting ones skip.
  // After a settling time, no page of the job is read and no shard row moves.
  await sleep(3000);
  const snap = async () => ({
    read: pagesRead(jobId),
    shards: (await state(jobId)).shards.map((x) => [x.shard_no, x.status, x.done_pages]),
    ledger: await s.gw.db.ledgerEntry.count({ where: { org_id: orgId } }),
  });
  const a = await snap();
  await sleep(4000);
  expect(await snap()).toEqual(a);
  expect(a.shards.filter((x) => x[1] === 'done').length).toBeLessThan(4); // the job did not finish its pages
  expect((await state(jobId)).job.status).toBe('failed');

  // No reservation left held; the ledger adds up to the balance.
  expect((await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: jobId } })).status).toBe('failed');
  const inv = await creditInvariants(s.gw, orgId);
  expect(inv.openReservations).toBe(0);
  expect(inv.ledgerSum).toBe(inv.balance);
  process.stdout.write(
    `lost-shard failure: shard ${victim.shard_no} (${range}) lost twice; job failed ${failedAfterMs} ms after the 2nd kill; balance ${inv.balance}\n`,
  );
}, 300_000);
