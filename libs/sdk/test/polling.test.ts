import {
  backoffDelays,
  DEFAULT_POLLING,
  DocfleetApiError,
  DocfleetClient,
  DocfleetTimeoutError,
  type IndexEnvelope,
  type Job,
  type Operation,
} from '../src';
import { corpus, fakeClock, json, scriptedFetch, startGateway, type Gateway } from './helpers';

const FILE = '11111111-1111-4111-8111-111111111111';
const JOB = '22222222-2222-4222-8222-222222222222';
const OP = '33333333-3333-4333-8333-333333333333';

function job(status: Job['status'], percent = 0, extra: Partial<Job> = {}): Job {
  return {
    job_id: JOB,
    file_id: FILE,
    file_version_id: FILE,
    status,
    raw_status: status,
    kind: 'parse',
    stage: status === 'completed' ? 'completed' : 'parse',
    percent,
    total_pages: 2,
    completed_pages: 0,
    error: status === 'failed' ? 'parser finished without expected artifacts' : null,
    error_code: status === 'failed' ? 'internal_error' : null,
    result: null,
    created_at: '2025-01-01T00:00:00.000Z',
    started_at: null,
    options: {},
    idempotency_key: 'k',
    cancel_requested_at: null,
    completed_at: null,
    updated_at: '2025-01-01T00:00:00.000Z',
    ...extra,
  };
}

function operation(status: Operation['status'], output: unknown = null): Operation {
  return {
    operation_id: OP,
    operation_type: 'split_run',
    status,
    progress: { done: 0, total: 0, phase: null },
    output,
    error: null,
    created_at: '2025-01-01T00:00:00.000Z',
    completed_at: null,
  };
}

const take = (n: number, it: Iterator<number>) => Array.from({ length: n }, () => it.next().value as number);

describe('backoff schedule', () => {
  it('starts at 2 s and multiplies up to the 10 s ceiling', () => {
    expect(DEFAULT_POLLING).toMatchObject({ initialIntervalMs: 2000, maxIntervalMs: 10000 });
    expect(take(8, backoffDelays())).toEqual([2000, 3000, 4500, 6750, 10000, 10000, 10000, 10000]);
    expect(take(5, backoffDelays({ initialIntervalMs: 10, maxIntervalMs: 40, factor: 2 }))).toEqual([
      10, 20, 40, 40, 40,
    ]);
  });
});

// The polling schedule itself: these clients opt out of the event stream (jobEvents: false), so the
// scripted answers are the job's GETs alone; wait-events.test.ts covers the default, with the stream.
describe('waitForJob', () => {
  it('polls the job path on the backoff schedule until completed, reporting every state', async () => {
    const states = [job('queued'), job('running', 10), job('running', 55), job('running', 90), job('completed', 100)];
    const { fetch, calls } = scriptedFetch(...states.map((s) => () => json(200, { job: s })));
    const clock = fakeClock();
    const client = new DocfleetClient({
      baseUrl: 'http://docfleet.test',
      apiKey: 'dfk_poll_key',
      fetch,
      jobEvents: false,
    });
    const seen: number[] = [];
    const done = await client.waitForJob(FILE, JOB, {
      sleep: clock.sleep,
      now: clock.now,
      onProgress: (j) => seen.push(j.percent),
    });
    expect(done.status).toBe('completed');
    expect(seen).toEqual([0, 10, 55, 90, 100]);
    expect(clock.sleeps).toEqual([2000, 3000, 4500, 6750]);
    expect(calls.map((c) => `${c.method} ${c.url.pathname}`)).toEqual(
      Array(5).fill(`GET /v1/files/${FILE}/jobs/${JOB}`),
    );
  });

  it.each(['failed', 'cancelled'] as const)('stops on %s and returns the job', async (status) => {
    const { fetch } = scriptedFetch(
      () => json(200, { job: job('running', 20) }),
      () => json(200, { job: job(status, 20) }),
    );
    const clock = fakeClock();
    const client = new DocfleetClient({
      baseUrl: 'http://docfleet.test',
      apiKey: 'dfk_poll_key',
      fetch,
      jobEvents: false,
    });
    const out = await client.waitForJob(FILE, JOB, { sleep: clock.sleep, now: clock.now });
    expect(out.status).toBe(status);
    expect(clock.sleeps).toEqual([2000]);
  });

  it('gives up at timeoutMs with the last state, cutting the final wait to the deadline', async () => {
    const { fetch, calls } = scriptedFetch(() => json(200, { job: job('running', 50) }));
    const clock = fakeClock();
    const client = new DocfleetClient({
      baseUrl: 'http://docfleet.test',
      apiKey: 'dfk_poll_key',
      fetch,
      jobEvents: false,
    });
    const err = await client
      .waitForJob(FILE, JOB, { timeoutMs: 10_000, sleep: clock.sleep, now: clock.now })
      .catch((e) => e);
    expect(err).toBeInstanceOf(DocfleetTimeoutError);
    expect(err.message).toBe(`job ${JOB} did not finish within 10000 ms`);
    expect(err.last).toMatchObject({ status: 'running', percent: 50 });
    expect(clock.sleeps).toEqual([2000, 3000, 4500, 500]);
    expect(calls).toHaveLength(5);
  });

  it('rides out transient failures but stops on a real error', async () => {
    const transient = scriptedFetch(
      () => json(503, { error: 'restarting', code: 'service_unavailable' }),
      () => json(429, { error: 'slow down', code: 'rate_limited' }, { 'retry-after': '5' }),
      () => json(200, { job: job('completed', 100) }),
    );
    const clock = fakeClock();
    const client = new DocfleetClient({
      baseUrl: 'http://docfleet.test',
      apiKey: 'dfk_poll_key',
      fetch: transient.fetch,
      jobEvents: false,
    });
    expect((await client.waitForJob(FILE, JOB, { sleep: clock.sleep, now: clock.now })).status).toBe('completed');
    expect(clock.sleeps).toEqual([2000, 5000]);

    const fatal = scriptedFetch(() => json(404, { error: 'Job not found.', code: 'job_not_found' }));
    const c2 = new DocfleetClient({
      baseUrl: 'http://docfleet.test',
      apiKey: 'dfk_poll_key',
      fetch: fatal.fetch,
      jobEvents: false,
    });
    const err = await c2.waitForJob(FILE, JOB, { sleep: clock.sleep, now: clock.now }).catch((e) => e);
    expect(err).toBeInstanceOf(DocfleetApiError);
    expect(err.code).toBe('job_not_found');
    expect(fatal.calls).toHaveLength(1);
  });

  it('takes polling defaults from the client and stops when aborted', async () => {
    const { fetch } = scriptedFetch(() => json(200, { job: job('running') }));
    const clock = fakeClock();
    const client = new DocfleetClient({
      baseUrl: 'http://docfleet.test',
      apiKey: 'k',
      fetch,
      jobEvents: false,
      polling: {
        initialIntervalMs: 10,
        maxIntervalMs: 40,
        factor: 2,
        timeoutMs: 100,
        sleep: clock.sleep,
        now: clock.now,
      },
    });
    await expect(client.waitForJob(FILE, JOB)).rejects.toBeInstanceOf(DocfleetTimeoutError);
    expect(clock.sleeps).toEqual([10, 20, 40, 30]);

    const ac = new AbortController();
    const real = new DocfleetClient({
      baseUrl: 'http://docfleet.test',
      apiKey: 'k',
      fetch,
      jobEvents: false,
      polling: { initialIntervalMs: 5, maxIntervalMs: 5 },
    });
    setTimeout(() => ac.abort(new Error('stop polling')), 30);
    await expect(real.waitForJob(FILE, JOB, { signal: ac.signal })).rejects.toThrow('stop polling');
  });

  it('works with real timers and tiny intervals', async () => {
    const { fetch } = scriptedFetch(
      () => json(200, { job: job('running') }),
      () => json(200, { job: job('running') }),
      () => json(200, { job: job('completed', 100) }),
    );
    const client = new DocfleetClient({
      baseUrl: 'http://docfleet.test',
      apiKey: 'k',
      fetch,
      jobEvents: false,
      polling: { initialIntervalMs: 5, maxIntervalMs: 10 },
    });
    const started = Date.now();
    expect((await client.waitForJob(FILE, JOB)).status).toBe('completed');
    expect(Date.now() - started).toBeGreaterThanOrEqual(10);
  });
});

describe('waitForOperation', () => {
  it('polls until completed and returns the output', async () => {
    const { fetch, calls } = scriptedFetch(
      () => json(200, operation('queued')),
      () => json(200, { ...operation('in_progress'), progress: { done: 1, total: 3, phase: 'windows' } }),
      () => json(200, operation('completed', { sessionId: 's1', records: [] })),
    );
    const clock = fakeClock();
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'k', fetch });
    const phases: Array<string | null> = [];
    const op = await client.waitForOperation<{ sessionId: string }>(OP, {
      sleep: clock.sleep,
      now: clock.now,
      onProgress: (o) => phases.push(o.progress.phase),
    });
    expect(op.output?.sessionId).toBe('s1');
    expect(phases).toEqual([null, 'windows', null]);
    expect(clock.sleeps).toEqual([2000, 3000]);
    expect(calls[0].url.pathname).toBe(`/v1/operations/${OP}`);
  });

  it.each(['failed', 'cancelled'] as const)('stops on %s', async (status) => {
    const { fetch } = scriptedFetch(
      () => json(200, operation('in_progress')),
      () => json(200, { ...operation(status), error: 'split_model_unavailable: no window' }),
    );
    const clock = fakeClock();
    const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'k', fetch });
    const op = await client.waitForOperation(OP, { sleep: clock.sleep, now: clock.now });
    expect(op).toMatchObject({ status, output: null });
  });
});

describe('waitForIndex against the gateway', () => {
  let gw: Gateway;
  beforeAll(async () => {
    gw = await startGateway();
  });
  afterAll(() => gw.close());

  it('polls the index until every parse job is terminal', async () => {
    const { key } = await gw.createOrg();
    const client = new DocfleetClient({ baseUrl: gw.url, apiKey: key });
    const kb = (await client.knowledgeBases.create({ name: 'Watched' })).knowledge_base;
    const files = [
      (await client.files.upload(corpus('f_forms_invoices/invoice2data/AzureInterior.pdf'), { knowledgeBaseId: kb.id }))
        .file,
      (await client.files.upload(corpus('d_spreadsheets/docling/csv-comma.csv'), { knowledgeBaseId: kb.id })).file,
    ];
    const jobs = await Promise.all(
      files.map((f, i) =>
        gw.db.job.create({
          data: {
            org_id: f.org_id,
            knowledge_base_id: kb.id,
            file_id: f.id,
            file_version_id: f.current_version.id,
            kind: 'parse',
            status: i === 0 ? 'queued' : 'in_progress',
            idempotency_key: `k${i}`,
          },
        }),
      ),
    );
    // The "worker" idles through the first wait, then finishes one job per wait.
    const clock = fakeClock(async (_ms, n) => {
      const j = jobs[n - 2];
      if (j)
        await gw.db.job.update({
          where: { id: j.id },
          data: { status: 'completed', stage: 'completed', percent: 100, completed_at: new Date() },
        });
    });
    const snapshots: IndexEnvelope[] = [];
    const allDone = (idx: IndexEnvelope) =>
      idx.files.every(
        (f) => f.latest_parse_job && ['completed', 'failed', 'cancelled'].includes(f.latest_parse_job.status),
      );
    const idx = await client.waitForIndex(kb.id, allDone, {
      sleep: clock.sleep,
      now: clock.now,
      onProgress: (i) => snapshots.push(i),
    });
    expect(idx.files.map((f) => f.latest_parse_job?.status)).toEqual(['completed', 'completed']);
    expect(snapshots.map((s) => s.files.map((f) => f.latest_parse_job?.status).sort())).toEqual([
      ['queued', 'running'],
      ['queued', 'running'],
      ['completed', 'running'],
      ['completed', 'completed'],
    ]);
    // The unchanged poll was answered 304 (If-None-Match: index_version) and the last envelope stood.
    expect(snapshots[1]).toBe(snapshots[0]);
    expect(snapshots[2]).not.toBe(snapshots[1]);
    expect(clock.sleeps).toEqual([2000, 3000, 4500]);
  });

  it('times out with the last index when the predicate never holds', async () => {
    const { key } = await gw.createOrg();
    const client = new DocfleetClient({ baseUrl: gw.url, apiKey: key });
    const kb = (await client.knowledgeBases.create({ name: 'Never' })).knowledge_base;
    const clock = fakeClock();
    const err = await client
      .waitForIndex(kb.id, () => false, { timeoutMs: 5000, sleep: clock.sleep, now: clock.now })
      .catch((e) => e);
    expect(err).toBeInstanceOf(DocfleetTimeoutError);
    expect(err.last).toMatchObject({ knowledge_base: { id: kb.id, name: 'Never' }, files: [] });
    expect(clock.sleeps).toEqual([2000, 3000]);
  });
});
