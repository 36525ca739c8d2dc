// GET /v1/events/stream end to end with real processes: two gateway replicas (a stream held by one
// sees what the other and the workers did: events come through the webhook worker's relay, job
// progress straight from the parse worker, both over Redis), the webhook worker and a parse worker,
// read through the SDK's stream client as a user's program would.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrganization, createOrgApiKey } from '@docfleet/auth';
import { grantCredits } from '@docfleet/billing';
import { DocfleetApiError, DocfleetClient, type StreamedEvent, type EventStreamOptions } from '@docfleet/sdk';
import {
  corpus,
  createTestDb,
  repeatPages,
  spawnFleetService,
  type FleetServiceProcess,
  type TestDb,
  waitUntil,
} from '@docfleet/testing';

let t: TestDb;
let dataDir: string;
let gwA: FleetServiceProcess;
let gwB: FleetServiceProcess;
let relay: FleetServiceProcess;
let parser: FleetServiceProcess;
let env: Record<string, string>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  t = await createTestDb();
  dataDir = await mkdtemp(path.join(tmpdir(), 'docfleet-sse-'));
  env = {
    DATABASE_URL: t.url,
    DATA_DIR: dataDir,
    QUEUE_PREFIX: `sse${randomUUID().slice(0, 8)}`,
    RATE_LIMIT_POINTS: '100000',
    EVENT_STREAM_HEARTBEAT_SECONDS: '1',
    OMP_THREAD_LIMIT: '1',
  };
  [gwA, gwB, relay, parser] = await Promise.all([
    spawnFleetService('gateway', env),
    spawnFleetService('gateway', env),
    spawnFleetService('webhook-worker', env),
    spawnFleetService('parse-worker', env),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([gwA?.stop(), gwB?.stop(), relay?.stop(), parser?.stop()]);
  await t?.drop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 90_000);

async function org() {
  const o = await createOrganization(t.db, `org-${randomUUID().slice(0, 6)}`);
  const key = await createOrgApiKey(t.db, o.id);
  await grantCredits(t.db, { orgId: o.id, amount: 1000, idempotencyKey: `g:${o.id}`, reason: 'test' });
  const a = new DocfleetClient({ baseUrl: gwA.url, apiKey: key.secret });
  const b = new DocfleetClient({ baseUrl: gwB.url, apiKey: key.secret });
  return { orgId: o.id, key: key.secret, a, b };
}

interface Collector {
  events: StreamedEvent[];
  /** Resolves once `check` holds for the events so far (rejects after timeoutMs). */
  until(check: (e: StreamedEvent[]) => boolean, timeoutMs?: number): Promise<StreamedEvent[]>;
  stop(): void;
}

/** Reads a stream in the background; resolves once its headers arrived (so later events reach it). */
async function collect(client: DocfleetClient, o: EventStreamOptions = {}): Promise<Collector> {
  const ctl = new AbortController();
  const events: StreamedEvent[] = [];
  let failure: unknown;
  let opened!: () => void;
  const open = new Promise<void>((r) => (opened = r));
  void (async () => {
    try {
      for await (const e of client.events.stream({ ...o, signal: ctl.signal, onOpen: opened })) events.push(e);
    } catch (err) {
      failure = err;
      opened();
    }
  })();
  await open;
  if (failure) throw failure;
  return {
    events,
    async until(check, timeoutMs = 30_000) {
      await waitUntil(
        `streamed events to satisfy ${String(check)}`,
        () => {
          if (check(events)) return true;
          if (failure) throw failure;
          return false;
        },
        {
          timeoutMs,
          intervalMs: 20,
          detail: () => `got ${events.length}: ${[...new Set(events.map((e) => e.event))].join(', ')}`,
        },
      );
      return events;
    },
    stop: () => ctl.abort(),
  };
}

const csv = (rows: number) =>
  Buffer.from(
    ['region,quarter,revenue', ...Array.from({ length: rows }, (_, i) => `r${i},Q${(i % 4) + 1},${i}`)].join('\n'),
  );
const stored = (es: StreamedEvent[]) => es.filter((e) => e.id !== null);
/** The data of the last `job.progress` message of a job, if any came. */
const lastProgress = (es: StreamedEvent[], jobId: string) =>
  es
    .filter((e) => e.event === 'job.progress' && (e.data as any).data.job_id === jobId)
    .map((e) => (e.data as any).data)
    .at(-1);
/** Stops a stream once its job's stored end event and its terminal progress message both came. */
const ended = (jobId: string, status: string) => (es: StreamedEvent[]) =>
  es.some((e) => e.event === `parse.job.${status}` && (e.data as any).data.job_id === jobId) &&
  lastProgress(es, jobId)?.status === status;
const types = (es: StreamedEvent[]) => es.map((e) => e.event);

describe('GET /v1/events/stream', () => {
  it("carries a parse's progress and ending to a stream on another replica; filters; never another org's", async () => {
    const me = await org();
    const other = await org();
    const kb1 = (await me.a.knowledgeBases.create({ name: 'sse-one' })).knowledge_base.id;
    const kb2 = (await me.a.knowledgeBases.create({ name: 'sse-two' })).knowledge_base.id;

    const onKb1 = await collect(me.b, { knowledgeBaseId: kb1 }); // replica B; the work goes through A
    const onKb2 = await collect(me.b, { knowledgeBaseId: kb2 });
    const uploadsOnly = await collect(me.a, { types: ['file.uploaded'] });
    const otherOrg = await collect(other.b);

    const up = await me.a.files.upload(csv(40), {
      knowledgeBaseId: kb1,
      filename: 'sales.csv',
      autoParse: true,
    });
    const jobId = up.parse_job!.job_id;
    const fileId = up.file.id;
    const seen = await onKb1.until(
      (es) => es.some((e) => e.event === 'parse.job.completed') && lastProgress(es, jobId)?.status === 'completed',
    );

    // The upload's event first, then the job's progress (stage, percent never going down), then the end.
    expect(seen[0]).toMatchObject({ event: 'file.uploaded', data: { type: 'file.uploaded', data: { id: fileId } } });
    const progress = seen.filter((e) => e.event === 'job.progress').map((e) => e.data as any);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    for (const p of progress) {
      expect(p).toMatchObject({ type: 'job.progress', org_id: me.orgId });
      expect(p.data).toMatchObject({ job_id: jobId, kind: 'parse', file_id: fileId, knowledge_base_id: kb1 });
      expect(typeof p.data.stage).toBe('string');
    }
    const pcts = progress.map((p) => p.data.percent as number);
    expect(pcts).toEqual([...pcts].sort((x, y) => x - y));
    // Running until the last message, which says the job completed, at 100 %.
    expect(progress.slice(0, -1).every((p) => p.data.status === 'running')).toBe(true);
    expect(progress.at(-1).data).toMatchObject({ status: 'completed', percent: 100 });
    expect(new Set(progress.map((p) => p.data.stage)).size).toBeGreaterThanOrEqual(2);
    const done = seen.find((e) => e.event === 'parse.job.completed')!;
    expect(done.data).toMatchObject({ org_id: me.orgId, data: { job_id: jobId, status: 'completed' } });
    // Stored events carry increasing stream positions; progress carries none.
    const ids = stored(seen).map((e) => BigInt(e.id!));
    expect(ids).toEqual([...ids].sort((x, y) => (x < y ? -1 : 1)));
    expect(seen.filter((e) => e.event === 'job.progress').every((e) => e.id === null)).toBe(true);

    // A marker in kb2, and one in the other organisation: each stream's first (and only) event.
    const up2 = await me.a.files.upload(csv(2), { knowledgeBaseId: kb2, filename: 'marker.csv' });
    await onKb2.until((es) => es.length >= 1);
    expect(onKb2.events.map((e) => (e.data as any).data.id)).toEqual([up2.file.id]);
    const otherKb = (await other.a.knowledgeBases.create({ name: 'theirs' })).knowledge_base.id;
    const theirs = await other.a.files.upload(csv(2), { knowledgeBaseId: otherKb, filename: 'x.csv' });
    await otherOrg.until((es) => es.length >= 1);
    await sleep(300);
    expect(otherOrg.events.map((e) => (e.data as any).data.id)).toEqual([theirs.file.id]);
    expect(otherOrg.events.every((e) => (e.data as any).org_id === other.orgId)).toBe(true);
    // types=file.uploaded: my two uploads, nothing else, never the other organisation's.
    await uploadsOnly.until((es) => es.length >= 2);
    expect(types(uploadsOnly.events)).toEqual(['file.uploaded', 'file.uploaded']);
    expect(uploadsOnly.events.map((e) => (e.data as any).data.id)).toEqual([fileId, up2.file.id]);

    // file_id filter with a resume from the start: only that file's events, replayed in order.
    const byFile = await collect(me.a, { fileId, lastEventId: '0' });
    await byFile.until((es) => es.some((e) => e.event === 'parse.job.completed'));
    expect(stored(byFile.events).map((e) => e.id)).toEqual(
      stored(seen)
        .filter((e) => (e.data as any).data.file_id === fileId || (e.data as any).data.id === fileId)
        .map((e) => e.id),
    );

    // Another organisation's knowledge base or file is unknown; a bad filter is refused.
    for (const o of [{ knowledgeBaseId: kb1 }, { fileId }]) {
      const err = await collect(other.a, o).catch((e) => e);
      expect(err).toBeInstanceOf(DocfleetApiError);
      expect({ status: err.status, code: err.code }).toEqual({
        status: 404,
        code: o.fileId ? 'file_not_found' : 'knowledge_base_not_found',
      });
    }
    const bad = await collect(me.a, { types: ['parse.job.completed', 'nope'] }).catch((e) => e);
    expect({ status: bad.status, code: bad.code }).toEqual({ status: 400, code: 'invalid_request' });

    for (const c of [onKb1, onKb2, uploadsOnly, otherOrg, byFile]) c.stop();
  }, 120_000);

  it("ends a failed or cancelled job's progress with its status, at the percent it reached", async () => {
    const me = await org();
    const kb = (await me.a.knowledgeBases.create({ name: 'sse-ends' })).knowledge_base.id;
    const stream = await collect(me.b, { knowledgeBaseId: kb });

    // A damaged PDF fails: its last progress says `failed`, short of 100 %, like the stored job.
    const bad = await me.a.files.upload(
      Buffer.concat([Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog'), Buffer.alloc(2000, 0x41)]),
      { knowledgeBaseId: kb, filename: 'damaged.pdf', autoParse: true },
    );
    const failedId = bad.parse_job!.job_id;
    await stream.until(ended(failedId, 'failed'));
    const failedJob = (await me.a.files.job(bad.file.id, failedId)).job;
    expect(failedJob.status).toBe('failed');
    expect(lastProgress(stream.events, failedId)).toMatchObject({
      status: 'failed',
      percent: failedJob.percent,
      stage: failedJob.stage,
    });
    expect(lastProgress(stream.events, failedId).percent).toBeLessThan(100);

    // Scanned pages take long enough to cancel once the parse has started: it ends `cancelled`.
    const scanned = await repeatPages(corpus('c_scanned_images/docling/ocr_test.pdf'), 12);
    const up = await me.a.files.upload(scanned, { knowledgeBaseId: kb, filename: 'scans.pdf', autoParse: true });
    const jobId = up.parse_job!.job_id;
    await stream.until((es) => lastProgress(es, jobId)?.status === 'running');
    await me.a.files.cancelJob(up.file.id, jobId);
    await stream.until(ended(jobId, 'cancelled'), 60_000);
    const job = (await me.a.files.job(up.file.id, jobId)).job;
    expect(job.status).toBe('cancelled');
    const last = lastProgress(stream.events, jobId);
    expect(last).toMatchObject({ status: 'cancelled', percent: job.percent });
    expect(last.percent).toBeLessThan(100);
    stream.stop();
  }, 120_000);

  it('resumes from Last-Event-ID with the missed events in order', async () => {
    const me = await org();
    const kb = (await me.a.knowledgeBases.create({ name: 'resume' })).knowledge_base.id;
    const first = await collect(me.b, { knowledgeBaseId: kb, types: ['file.uploaded'] });
    await me.a.files.upload(csv(1), { knowledgeBaseId: kb, filename: 'f0.csv' });
    const [e0] = await first.until((es) => es.length >= 1);
    first.stop();

    // Disconnected: five more uploads, and one in another knowledge base of the same org.
    const names: string[] = [];
    for (let i = 1; i <= 5; i++) {
      names.push(`f${i}.csv`);
      await me.a.files.upload(csv(1), { knowledgeBaseId: kb, filename: `f${i}.csv` });
    }
    const elsewhere = (await me.a.knowledgeBases.create({ name: 'elsewhere' })).knowledge_base.id;
    await me.a.files.upload(csv(1), { knowledgeBaseId: elsewhere, filename: 'not-me.csv' });

    // Reconnect to the other replica with the last id seen: the five, in upload order, then live.
    const resumed = await collect(me.a, { knowledgeBaseId: kb, types: ['file.uploaded'], lastEventId: e0!.id! });
    await resumed.until((es) => es.length >= 5);
    expect(resumed.events.map((e) => (e.data as any).data.filename)).toEqual(names);
    const live = await me.a.files.upload(csv(1), { knowledgeBaseId: kb, filename: 'f6.csv' });
    await resumed.until((es) => es.length >= 6);
    expect((resumed.events[5]!.data as any).data.id).toBe(live.file.id);
    const ids = resumed.events.map((e) => BigInt(e.id!));
    expect(ids.every((id, i) => id > BigInt(e0!.id!) && (i === 0 || id > ids[i - 1]!))).toBe(true);
    expect(new Set(ids).size).toBe(6);
    resumed.stop();
  }, 60_000);

  it('with two relays racing, a burst of commits arrives complete and in position order', async () => {
    const second = await spawnFleetService('webhook-worker', env);
    try {
      const me = await org();
      const stream = await collect(me.b);
      const N = 300;
      // One commit each, as fast as they go: the two relays take turns and publish out of order.
      for (let i = 0; i < N; i++)
        await t.db.$transaction(async (tx) => {
          await tx.webhookEvent.create({
            data: { org_id: me.orgId, event_type: 'index.updated', resource_key: `burst:${i}`, payload: { i } },
          });
          await tx.$executeRaw`SELECT pg_notify('docfleet_webhook_events', '')`;
        });
      const got = await stream.until((es) => es.length >= N, 60_000);
      expect(got.map((e) => (e.data as any).data.i)).toEqual(Array.from({ length: N }, (_, i) => i));
      const ids = got.map((e) => BigInt(e.id!));
      expect(ids.every((id, k) => k === 0 || id > ids[k - 1]!)).toBe(true);
      stream.stop();
    } finally {
      await second.stop();
    }
  }, 120_000);

  it('answers with SSE headers, sends heartbeats and lets go of a stream when the client leaves', async () => {
    const me = await org();
    const metric = async () => {
      const text = await (await fetch(`${gwA.url}/metrics`)).text();
      // The registry labels every sample with its service: docfleet_event_streams_open{service="gateway"} 1
      return Number(/^docfleet_event_streams_open(?:\{[^}]*\})? (\d+)$/m.exec(text)?.[1] ?? NaN);
    };
    const before = await metric();
    // A gauge the regular expression missed would read NaN, which toBe (Object.is) takes as equal to NaN.
    expect(Number.isInteger(before)).toBe(true);
    const ctl = new AbortController();
    const res = await fetch(`${gwA.url}/v1/events/stream`, { headers: { 'x-api-key': me.key }, signal: ctl.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('cache-control')).toMatch(/no-cache/);
    const reader = res.body!.getReader();
    let text = '';
    const deadline = Date.now() + 5000;
    while (!text.includes(': ping') && Date.now() < deadline)
      text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toMatch(/^retry: \d+\n/);
    expect(text).toContain(': ping\n\n'); // EVENT_STREAM_HEARTBEAT_SECONDS=1
    expect(await metric()).toBe(before + 1);
    ctl.abort();
    let open = NaN;
    await waitUntil(
      'the aborted stream to leave docfleet_event_streams_open',
      async () => (open = await metric()) === before,
      {
        timeoutMs: 5000,
        detail: () => `docfleet_event_streams_open ${open}, ${before} before it opened`,
      },
    );

    const badId = await fetch(`${gwA.url}/v1/events/stream`, {
      headers: { 'x-api-key': me.key, 'last-event-id': 'abc' },
    });
    expect(badId.status).toBe(400);
    expect(((await badId.json()) as { code: string }).code).toBe('invalid_request');
  }, 30_000);
});
