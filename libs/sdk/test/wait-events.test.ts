// waitForJob on the event stream (the default; `jobEvents: false` opts out): the stream wakes the
// wait between polls at the job's end. Through the real
// gateway and the real parse worker (no webhook worker, so no relay: the worker's own report of
// the job's end is what reaches the stream), with a polling interval of a minute, the wait must
// still end within moments of the job's completion. Against scripted answers: a gateway without
// the stream, a refusal, a dropped or closed stream leave plain polling on its schedule; the stream
// opens only once a wait begins, only the job's end wakes the wait, a message that arrives while a
// poll is in flight is not slept through, and the stream is closed before the wait returns.
import { DocfleetClient, DocfleetTimeoutError, type Job } from '../src';
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
    const done = await client.waitForJob(file.id, queued.job_id, { onProgress: () => polls++ });
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

/** How a gateway may refuse the event stream: each must leave the wait polling on schedule. */
const REFUSALS: Array<[string, () => Response]> = [
  ['a 404 (no event stream)', () => json(404, { error: 'Not found.', code: 'not_found' })],
  ['a 403 (no access)', () => json(403, { error: 'No access.', code: 'knowledge_base_access_denied' })],
  ['a page that is no event stream', () => new Response('<html></html>', { headers: { 'content-type': 'text/html' } })],
];

describe('against scripted answers', () => {
  it.each(REFUSALS)('polls as before, on schedule, when the gateway answers %s', async (_what, refuse) => {
    const states = [job('queued'), job('running', 40), job('completed', 100)];
    let n = 0;
    const { fetch, calls } = scriptedFetch((r) =>
      r.url.pathname === '/v1/events/stream' ? refuse() : json(200, { job: states[Math.min(n++, states.length - 1)] }),
    );
    const clock = fakeClock();
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_k', fetch });
    const done = await client.waitForJob(FILE, JOB, { sleep: clock.sleep, now: clock.now });
    expect(done.status).toBe('completed');
    // No extra wait and no extra poll: the same schedule as polling alone.
    expect(clock.sleeps).toEqual([2000, 3000]);
    expect(n).toBe(3);
    // Asked once (by default), after the first poll found the job unfinished; a refusal is not retried.
    expect(calls.map((c) => c.url.pathname)).toEqual([
      `/v1/files/${FILE}/jobs/${JOB}`,
      '/v1/events/stream',
      `/v1/files/${FILE}/jobs/${JOB}`,
      `/v1/files/${FILE}/jobs/${JOB}`,
    ]);
  });

  it.each(REFUSALS)('a stream refused with %s is asked for once and costs no poll', async (_what, refuse) => {
    let n = 0;
    const { fetch, calls } = scriptedFetch((r) =>
      r.url.pathname === '/v1/events/stream' ? refuse() : (n++, json(200, { job: job('running', 40) })),
    );
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_k', fetch });
    const err = await client
      .waitForJob(FILE, JOB, { initialIntervalMs: 60_000, maxIntervalMs: 60_000, timeoutMs: 500 })
      .catch((e) => e);
    expect(err).toBeInstanceOf(DocfleetTimeoutError);
    // The first poll and the one at the deadline; an opened stream would have started one more.
    expect(n).toBe(2);
    expect(calls.filter((c) => c.url.pathname === '/v1/events/stream')).toHaveLength(1);
  });

  it.each([
    ['cannot connect', () => Promise.reject(new TypeError('fetch failed'))],
    [
      'answers and closes at once',
      () => new Response('retry: 60000\n\n', { status: 200, headers: { 'content-type': 'text/event-stream' } }),
    ],
  ])('polls on schedule when the stream %s, and stops reopening it when the wait ends', async (_w, answer) => {
    const states = [job('queued'), job('running', 40), job('completed', 100)];
    let n = 0;
    const { fetch, calls } = scriptedFetch((r) =>
      r.url.pathname === '/v1/events/stream' ? answer() : json(200, { job: states[Math.min(n++, states.length - 1)] }),
    );
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_k', fetch });
    const started = Date.now();
    const done = await client.waitForJob(FILE, JOB, { initialIntervalMs: 100, maxIntervalMs: 100 });
    expect(done.status).toBe('completed');
    expect(Date.now() - started).toBeLessThan(1_500);
    const streams = calls.filter((c) => c.url.pathname === '/v1/events/stream');
    expect(streams).toHaveLength(1); // its reopen (after 2 s, or the answer's 60 s retry) never came
    await new Promise((res) => setTimeout(res, 50));
    expect(calls.filter((c) => c.url.pathname === '/v1/events/stream')).toHaveLength(1);
  });

  it('opens no stream when the first poll finds the job ended, nor with jobEvents: false', async () => {
    const { fetch, calls } = scriptedFetch(() => json(200, { job: job('completed', 100) }));
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_k', fetch });
    expect((await client.waitForJob(FILE, JOB)).status).toBe('completed');
    expect(calls.map((c) => c.url.pathname)).toEqual([`/v1/files/${FILE}/jobs/${JOB}`]);

    const states = [job('running', 40), job('completed', 100)];
    let n = 0;
    const polling = scriptedFetch(() => json(200, { job: states[Math.min(n++, 1)] }));
    const clock = fakeClock();
    const optedOut = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_k', fetch: polling.fetch });
    const out = await optedOut.waitForJob(FILE, JOB, { jobEvents: false, sleep: clock.sleep, now: clock.now });
    expect(out.status).toBe('completed');
    expect(polling.calls.map((c) => c.url.pathname)).toEqual(Array(2).fill(`/v1/files/${FILE}/jobs/${JOB}`));
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
      initialIntervalMs: 60_000,
      maxIntervalMs: 60_000,
      timeoutMs: 10_000,
    });
    expect(done.status).toBe('completed');
    expect(n).toBe(3);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('wakes only at the job end, not for its progress or other jobs, and closes the stream before returning', async () => {
    let n = 0;
    let push: ((s: string) => void) | undefined;
    let streamSignal: AbortSignal | undefined;
    let opened!: () => void;
    const open = new Promise<void>((res) => (opened = res));
    const msg = (event: string, data: object) =>
      push!(`event: ${event}\ndata: ${JSON.stringify({ type: event, data })}\n\n`);
    const { fetch, calls } = scriptedFetch(async (r) => {
      if (r.url.pathname === '/v1/events/stream') {
        streamSignal = r.init.signal ?? undefined;
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            push = (s) => c.enqueue(enc.encode(s));
            opened();
          },
        });
        return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
      }
      n++;
      return json(200, { job: ended ? job('completed', 100) : job('running', 50) });
    });
    let ended = false;
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_k', fetch });
    const waiting = client.waitForJob(FILE, JOB, {
      initialIntervalMs: 60_000,
      maxIntervalMs: 60_000,
      timeoutMs: 10_000,
    });
    await open;
    await new Promise((res) => setTimeout(res, 100));
    expect(n).toBe(2); // the first poll, and the one the stream's opening started
    const stream = calls.find((c) => c.url.pathname === '/v1/events/stream')!;
    expect(stream.url.searchParams.get('file_id')).toBe(FILE);
    msg('job.progress', { job_id: JOB, percent: 60 });
    msg('job.progress', { job_id: '33333333-3333-4333-8333-333333333333', percent: 100 });
    msg('parse.job.completed', { job_id: '33333333-3333-4333-8333-333333333333', status: 'completed' });
    await new Promise((res) => setTimeout(res, 200));
    expect(n).toBe(2); // neither progress nor another job's end cost a poll
    ended = true;
    msg('parse.job.completed', { job_id: JOB, status: 'completed' });
    const done = await waiting;
    expect(done.status).toBe('completed');
    expect(n).toBe(3);
    expect(streamSignal?.aborted).toBe(true); // the stream's request was cut as the wait returned
  });

  it("wakes at a failed job's last progress (its status), not at progress still running at that percent", async () => {
    let n = 0;
    let push: ((s: string) => void) | undefined;
    let opened!: () => void;
    const open = new Promise<void>((res) => (opened = res));
    const progress = (status: string) =>
      push!(
        `event: job.progress\ndata: ${JSON.stringify({ type: 'job.progress', data: { job_id: JOB, percent: 40, status } })}\n\n`,
      );
    let failed = false;
    const { fetch } = scriptedFetch(async (r) => {
      if (r.url.pathname === '/v1/events/stream') {
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            push = (s) => c.enqueue(enc.encode(s));
            opened();
          },
        });
        return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
      }
      n++;
      return json(200, { job: failed ? job('failed', 40) : job('running', 40) });
    });
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_k', fetch });
    const started = Date.now();
    const waiting = client.waitForJob(FILE, JOB, {
      initialIntervalMs: 60_000,
      maxIntervalMs: 60_000,
      timeoutMs: 10_000,
    });
    await open;
    await new Promise((res) => setTimeout(res, 100));
    expect(n).toBe(2);
    progress('running');
    await new Promise((res) => setTimeout(res, 200));
    expect(n).toBe(2); // still at 40 %, still running: no poll
    failed = true;
    progress('failed'); // the same 40 %, now the job's end
    const done = await waiting;
    expect(done.status).toBe('failed');
    expect(n).toBe(3);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('closes the stream when the wait is aborted', async () => {
    let streamSignal: AbortSignal | undefined;
    const { fetch } = scriptedFetch(async (r) => {
      if (r.url.pathname === '/v1/events/stream') {
        streamSignal = r.init.signal ?? undefined;
        return new Response(new ReadableStream<Uint8Array>(), {
          status: 200,
          headers: { 'content-type': 'text/event-stream' },
        });
      }
      return json(200, { job: job('running', 50) });
    });
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_k', fetch });
    const ac = new AbortController();
    setTimeout(() => ac.abort(new Error('stop waiting')), 100);
    await expect(client.waitForJob(FILE, JOB, { signal: ac.signal, initialIntervalMs: 60_000 })).rejects.toThrow(
      'stop waiting',
    );
    expect(streamSignal?.aborted).toBe(true);
  });
});
