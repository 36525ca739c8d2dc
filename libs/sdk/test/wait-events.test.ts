// waitForJob with `jobEvents`: the event stream wakes the wait between polls. Through the real
// gateway and the real parse worker (no webhook worker, so no relay: the worker's own report of
// the job's end is what reaches the stream), with a polling interval of a minute, the wait must
// still end within moments of the job's completion. Against scripted answers: a gateway without
// the stream leaves plain polling, and a message that arrives while a poll is in flight is not
// slept through.
import { DocfleetClient, type Job } from '../src';
import { spawnWorker, type WorkerProcess } from '@docfleet/testing';
import { corpus, fakeClock, json, scriptedFetch, startGateway, type Gateway } from './helpers';

const PNG = corpus('c_scanned_images/tesseract.js/testocr.png');
const FILE = '11111111-1111-4111-8111-111111111111';
const JOB = '22222222-2222-4222-8222-222222222222';
const job = (status: string, percent = 0) => ({ job_id: JOB, file_id: FILE, status, percent }) as unknown as Job;
const enc = new TextEncoder();

describe('through the real gateway and parse worker', () => {
  let gw: Gateway;
  let worker: WorkerProcess;
  let client: DocfleetClient;
  let kbId: string;
  beforeAll(async () => {
    gw = await startGateway();
    worker = await spawnWorker(gw, { LOG_LEVEL: 'warn' });
    const { key } = await gw.createOrg({ credits: 100 });
    // A minute between polls: only the event stream can end a wait sooner.
    client = new DocfleetClient({
      baseUrl: gw.url,
      apiKey: key,
      polling: { initialIntervalMs: 60_000, maxIntervalMs: 60_000, timeoutMs: 50_000 },
    });
    kbId = (await client.knowledgeBases.create({ name: 'Wait' })).knowledge_base.id;
  }, 60_000);
  afterAll(async () => {
    worker?.child.kill('SIGTERM');
    await worker?.exited;
    await gw?.close();
  });

  it('sees the end of a parse within moments of it, not at the next poll', async () => {
    const { file } = await client.files.upload(PNG, { knowledgeBaseId: kbId, filename: 'testocr.png' });
    const { job: queued } = await client.files.parse(file.id, {});
    let polls = 0;
    const done = await client.waitForJob(file.id, queued.job_id, { jobEvents: true, onProgress: () => polls++ });
    const seenAt = Date.now();
    expect(done.status).toBe('completed');
    expect(done.completed_at).toBeTruthy();
    // completed_at is the database's clock, the same host's: the wait ended just after it.
    expect(seenAt - new Date(done.completed_at!).getTime()).toBeLessThan(5_000);
    // The first poll, the one when the stream opened, and the ones its messages started; polling
    // alone would have made one and then given up after the 50 s budget (DocfleetTimeoutError).
    expect(polls).toBeGreaterThan(1);
    expect(polls).toBeLessThan(20);
  }, 60_000);
});

describe('against scripted answers', () => {
  it('polls as before when the gateway has no event stream', async () => {
    const states = [job('queued'), job('running', 40), job('completed', 100)];
    let n = 0;
    const { fetch, calls } = scriptedFetch((r) =>
      r.url.pathname === '/v1/events/stream'
        ? json(404, { error: 'Not found.', code: 'not_found' })
        : json(200, { job: states[Math.min(n++, states.length - 1)] }),
    );
    const clock = fakeClock();
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_k', fetch, jobEvents: true });
    const done = await client.waitForJob(FILE, JOB, { sleep: clock.sleep, now: clock.now });
    expect(done.status).toBe('completed');
    expect(clock.sleeps).toEqual([2000, 3000]);
    expect(calls.filter((c) => c.url.pathname === '/v1/events/stream')).toHaveLength(1);
  });

  it('a message that arrives while a poll is in flight ends the next wait at once', async () => {
    let n = 0;
    let push: ((s: string) => void) | undefined;
    const { fetch } = scriptedFetch(async (r) => {
      if (r.url.pathname === '/v1/events/stream') {
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            r.init.signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
            push = (s) => c.enqueue(enc.encode(s));
          },
        });
        return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
      }
      // Polls 1 and 2 (the first, and the one the stream's opening starts) find the job running; the
      // job's end is announced while poll 2 is in flight; poll 3 must follow without the minute's wait.
      n++;
      if (n === 2) {
        push!(
          `event: job.progress\ndata: ${JSON.stringify({ type: 'job.progress', data: { job_id: JOB, percent: 100 } })}\n\n`,
        );
        await new Promise((res) => setTimeout(res, 50));
      }
      return json(200, { job: n >= 3 ? job('completed', 100) : job('running', 50) });
    });
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_k', fetch });
    const started = Date.now();
    const done = await client.waitForJob(FILE, JOB, {
      jobEvents: true,
      initialIntervalMs: 60_000,
      maxIntervalMs: 60_000,
      timeoutMs: 10_000,
    });
    expect(done.status).toBe('completed');
    expect(n).toBe(3);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
