// An extraction job's end reaches a client waiting on the event stream (libs/sdk waitForJob, on by
// default) as soon as the workflow worker commits it: the worker reports the ended row as progress
// after the commit, the way the parse worker does. No webhook worker runs here (no relay), so the
// stored extract.job.completed event never reaches the stream; with a minute between polls only the
// worker's own report can end the wait within moments of completed_at.
import { createRedis } from '@docfleet/queue';
import { onJobProgress, publishJobProgressTo } from '@docfleet/jobs';
import { DocfleetClient } from '@docfleet/sdk';
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
  const { job } = await client.files.extract(fx.fileId, { schema: SCHEMA });
  const done = await client.waitForJob(fx.fileId, job.job_id);
  const seenAt = Date.now();
  expect(done).toMatchObject({ status: 'completed', kind: 'extract', percent: 100 });
  // completed_at is the database's clock, the same host's: the wait ended just after it (polling
  // alone would have polled once and given up at the 50 s budget with DocfleetTimeoutError).
  expect(seenAt - new Date(done.completed_at!).getTime()).toBeLessThan(5_000);
}, 120_000);
