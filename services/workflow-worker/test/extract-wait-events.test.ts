// An extraction job's end reaches a client waiting on the event stream (libs/sdk waitForJob, on by
// default) as soon as the workflow worker commits it: the worker reports the ended row as progress
// after the commit, the way the parse worker does. No webhook worker runs here (no relay), so the
// stored extract.job.completed event never reaches the stream; with a minute between polls only the
// worker's own report can end the wait within moments of completed_at.
import { createRedis } from '@docfleet/queue';
import { onJobProgress, publishJobProgressTo } from '@docfleet/jobs';
import { DocfleetClient } from '@docfleet/sdk';
import { waitUntil } from '@docfleet/testing';
import { corpus, startWorkflowFixture, type WorkflowFixture } from './stack';

const SCHEMA = {
  type: 'object',
  properties: { 'Invoice Number': { type: 'string' }, total_amount: { type: 'number' } },
  required: ['Invoice Number', 'total_amount'],
};

let fx: WorkflowFixture;
let redis: ReturnType<typeof createRedis>;
beforeAll(async () => {
  fx = await startWorkflowFixture({
    kbName: 'Extract wait',
    file: corpus('f_forms_invoices/invoice2data/AzureInterior.pdf'),
  });
  // The workflow worker's composition root (src/main.ts) installs this sink; here it runs in this process.
  redis = createRedis(fx.s.gw.deps.env.REDIS_URL);
  onJobProgress(publishJobProgressTo(redis, fx.s.gw.deps.env.QUEUE_PREFIX));
}, 120_000);
afterAll(async () => {
  onJobProgress(null);
  await redis?.quit().catch(() => undefined);
  await fx?.close();
});

it('sees the end of an extraction within moments of it, not at the next poll', async () => {
  const client = new DocfleetClient({
    baseUrl: fx.s.gw.url,
    apiKey: fx.key,
    polling: { initialIntervalMs: 60_000, maxIntervalMs: 60_000, timeoutMs: 50_000 },
  });
  // A watcher of the job's progress, as a user's program would hold one.
  const ctl = new AbortController();
  const progress: Array<{ job_id: string; status: string; percent: number }> = [];
  let opened!: () => void;
  const open = new Promise<void>((r) => (opened = r));
  const watching = (async () => {
    for await (const e of client.events.stream({
      fileId: fx.fileId,
      types: ['job.progress'],
      signal: ctl.signal,
      onOpen: opened,
    }))
      progress.push((e.data as { data: (typeof progress)[number] }).data);
  })().catch(() => undefined);
  await open;
  const { job } = await client.files.extract(fx.fileId, { schema: SCHEMA });
  const done = await client.waitForJob(fx.fileId, job.job_id);
  const seenAt = Date.now();
  expect(done).toMatchObject({ status: 'completed', kind: 'extract', percent: 100 });
  // completed_at is the database's clock, the same host's: the wait ended just after it (polling
  // alone would have polled once and given up at the 50 s budget with DocfleetTimeoutError).
  expect(seenAt - new Date(done.completed_at!).getTime()).toBeLessThan(5_000);
  // The job's progress ran with status `running`, and its last message says it completed, at 100 %.
  // (The watcher's own connection may hold the last message a moment after the wait's.)
  await waitUntil(
    "the watcher's last progress message, one not running",
    () => progress.some((p) => p.status !== 'running'),
    {
      timeoutMs: 5_000,
      intervalMs: 20,
      detail: () => `progress: ${JSON.stringify(progress.slice(-5))}`,
    },
  );
  const mine = progress.filter((p) => p.job_id === job.job_id);
  expect(mine.slice(0, -1).every((p) => p.status === 'running')).toBe(true);
  expect(mine.at(-1)).toMatchObject({ status: 'completed', percent: 100 });
  ctl.abort();
  await watching;
}, 120_000);
