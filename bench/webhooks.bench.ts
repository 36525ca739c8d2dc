// Webhooks and the event stream (issue 16), with real processes: a gateway, two webhook-worker
// processes and a loopback receiver (libs/testing), over a fresh database and queue prefix.
//  1. State change → delivered at idle: a `webhook.test` event (written in the transaction of
//     POST /v1/webhooks/{id}/test) from the answer reaching this process to the receiver having the
//     whole delivery, one at a time. Beside it: one raw HTTP POST of the same body to the same
//     receiver from this process (the network floor).
//  2. Deliveries per second: N events committed at once into the outbox (distinct resources, so
//     per-resource ordering does not serialise them), until the receiver has all N; two worker
//     processes at their default concurrency. Beside it: the same N raw POSTs from this process at
//     the same concurrency (2 × 32) with keep-alive.
//  3. One event stream (GET /v1/events/stream through the SDK) while 1,000 events are committed one
//     transaction each: all received, in order; lag = received − committed (the commit's answer
//     reaching this process; the lag from before the transaction began is reported beside it).
//     Beside it: Redis pub/sub alone (publish → subscriber in this process), the channel the
//     stream rides on.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { createOrganization, createOrgApiKey } from '../libs/auth/src';
import { createRedis } from '../libs/queue/src';
import { DocfleetClient } from '../libs/sdk/src';
import {
  createTestDb,
  spawnFleetService,
  startWebhookReceiver,
  type FleetServiceProcess,
  type TestDb,
  type WebhookReceiver,
} from '../libs/testing/src';
import { ensureTemplate, percentile, round, withSlowdown, type Row } from './lib';

export const name = 'webhooks';

const IDLE = Number(process.env.BENCH_WEBHOOK_IDLE ?? 100);
const BURST = Number(process.env.BENCH_WEBHOOK_BURST ?? 3000);
const STREAM = Number(process.env.BENCH_WEBHOOK_STREAM ?? 1000);
const CONCURRENCY = 2 * 32; // two processes at WEBHOOK_CONCURRENCY's default
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function latency(label: string, ms: number[], baseline: boolean, note?: string): Row {
  const p50 = percentile(ms, 50);
  return {
    case: label,
    baseline,
    // 1 / p50, so that the slowdown column reads as p50 ÷ the baseline's p50.
    throughput: round(1000 / Math.max(p50, 0.001), 1),
    unit: '1/p50 s',
    p50_ms: round(p50, 2),
    p99_ms: round(percentile(ms, 99), 2),
    samples: ms.length,
    note,
    extra: { p95_ms: round(percentile(ms, 95), 2), max_ms: round(Math.max(...ms), 2) },
  };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
function rawPost(url: string, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve());
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function waitCount(rx: WebhookReceiver, n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (rx.received.length < n) {
    if (Date.now() > deadline) throw new Error(`receiver got ${rx.received.length} of ${n}`);
    await sleep(2);
  }
}

/** Commits `events` outbox rows (as emitEvent writes them) in one transaction and wakes the relay. */
async function commitEvents(t: TestDb, orgId: string, rows: { key: string; data: object }[]): Promise<void> {
  await t.db.$transaction(
    async (tx) => {
      await tx.webhookEvent.createMany({
        data: rows.map((r) => ({ org_id: orgId, event_type: 'index.updated', resource_key: r.key, payload: r.data })),
      });
      await tx.$executeRaw`SELECT pg_notify('docfleet_webhook_events', '')`;
    },
    { timeout: 120_000 },
  );
}

export async function run(): Promise<Row[]> {
  await ensureTemplate();
  const t = await createTestDb();
  const env = {
    DATABASE_URL: t.url,
    QUEUE_PREFIX: `bwh${randomUUID().slice(0, 8)}`,
    RATE_LIMIT_POINTS: '1000000',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    LOG_LEVEL: 'warn',
    DB_POOL_MAX: process.env.BENCH_WEBHOOK_DB_POOL ?? '8',
  };
  const procs: FleetServiceProcess[] = [];
  const rx = await startWebhookReceiver();
  try {
    procs.push(
      ...(await Promise.all([
        spawnFleetService('gateway', env),
        spawnFleetService('webhook-worker', env),
        spawnFleetService('webhook-worker', env),
      ])),
    );
    const gw = procs[0]!;
    const org = await createOrganization(t.db, 'bench-webhooks');
    const key = (await createOrgApiKey(t.db, org.id)).secret;
    const call = async (method: string, p: string, body?: unknown) => {
      const r = await fetch(gw.url + p, {
        method,
        headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return (await r.json()) as any;
    };
    const hook = (await call('POST', '/v1/webhooks', { url: rx.url })).webhook.id as string;
    const rows: Row[] = [];

    // 1. Idle latency, one at a time (after a few to warm both paths).
    const sample = JSON.stringify({ id: randomUUID(), type: 'webhook.test', data: { webhook_id: hook } });
    const raw: number[] = [];
    for (let i = 0; i < IDLE + 5; i++) {
      const t0 = performance.now();
      await rawPost(rx.url, sample);
      if (i >= 5) raw.push(performance.now() - t0);
    }
    rx.received.length = 0;
    rx.attempts.length = 0;
    const idle: number[] = [];
    for (let i = 0; i < IDLE + 5; i++) {
      const before = rx.received.length;
      const ans = await call('POST', `/v1/webhooks/${hook}/test`);
      const answered = Date.now();
      await waitCount(rx, before + 1, 30_000);
      const got = rx.received[before]!;
      if (JSON.parse(got.body).id !== ans.event_id) throw new Error('an unexpected delivery arrived');
      if (i >= 5) idle.push(got.at - answered);
      await sleep(20); // idle: nothing else in flight
    }
    rows.push(latency('raw HTTP POST to the receiver (this process)', raw, true));
    rows.push(
      latency(
        'state change → delivered (webhook.test, 2 workers)',
        idle,
        false,
        'from the API answer (the commit is before it) to the whole delivery received',
      ),
    );

    // 2. Throughput: BURST events at once, distinct resources.
    rx.received.length = 0;
    const rawStart = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < BURST) {
          next++;
          await rawPost(rx.url, sample);
        }
      }),
    );
    const rawRate = BURST / ((performance.now() - rawStart) / 1000);
    rx.received.length = 0;
    const t0 = performance.now();
    await commitEvents(
      t,
      org.id,
      Array.from({ length: BURST }, (_, i) => ({ key: `bench:${i}`, data: { knowledge_base_id: null, i } })),
    );
    await waitCount(rx, BURST, 300_000);
    const secs = (performance.now() - t0) / 1000;
    const ids = new Set(rx.received.map((h) => h.headers['webhook-id']));
    const burstRows = withSlowdown([
      {
        case: `raw HTTP POSTs, ${CONCURRENCY} at a time (this process)`,
        baseline: true,
        throughput: round(rawRate, 0),
        unit: 'req/s',
        samples: BURST,
      },
      {
        case: 'outbox → delivered, 2 worker processes × 32',
        throughput: round(BURST / secs, 0),
        unit: 'deliveries/s',
        samples: BURST,
        note: `${BURST} events committed in one transaction; ${ids.size} distinct webhook-ids received`,
      },
    ]);
    rows.push(...burstRows);

    // 3. One event stream, STREAM events one transaction each.
    const org2 = await createOrganization(t.db, 'bench-stream');
    const key2 = (await createOrgApiKey(t.db, org2.id)).secret;
    const client = new DocfleetClient({ baseUrl: gw.url, apiKey: key2 });
    const ctl = new AbortController();
    const got: { i: number; lag: number; at: number; id: bigint }[] = [];
    const committedAt: number[] = [];
    let opened!: () => void;
    const open = new Promise<void>((r) => (opened = r));
    const reading = (async () => {
      for await (const e of client.events.stream({ signal: ctl.signal, onOpen: opened })) {
        const d = (e.data as unknown as { data: { i: number; t: number } }).data;
        const now = Date.now();
        got.push({ i: d.i, lag: now - d.t, at: now, id: BigInt(e.id!) });
        if (got.length >= STREAM) break;
      }
    })();
    await open;
    const sent = performance.now();
    for (let i = 0; i < STREAM; i++) {
      await commitEvents(t, org2.id, [{ key: `s:${i}`, data: { i, t: Date.now() } }]);
      committedAt[i] = Date.now();
    }
    const sendSecs = (performance.now() - sent) / 1000;
    await Promise.race([
      reading,
      sleep(120_000).then(() => Promise.reject(new Error(`stream incomplete: ${got.length} of ${STREAM}`))),
    ]);
    ctl.abort();
    const inOrder = got.every((g, k) => g.i === k && (k === 0 || g.id > got[k - 1]!.id));

    const sub = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const pub = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    const channel = `${env.QUEUE_PREFIX}:bench-baseline`;
    const lags: number[] = [];
    await sub.subscribe(channel);
    const allIn = new Promise<void>((resolve) =>
      sub.on('message', (_c, m) => {
        lags.push(Date.now() - Number(JSON.parse(m).t));
        if (lags.length >= STREAM) resolve();
      }),
    );
    for (let i = 0; i < STREAM; i++) await pub.publish(channel, JSON.stringify({ i, t: Date.now() }));
    await allIn;
    await Promise.all([sub.quit(), pub.quit()]);
    rows.push(latency('Redis pub/sub alone (publish → subscriber, this process)', lags, true));
    // An event can arrive before this process has its commit's answer: a lag of 0 then.
    const fromCommit = got.map((g) => Math.max(0, g.at - (committedAt[g.i] ?? g.at)));
    const fromBegin = got.map((g) => g.lag);
    const streamRow = latency(
      `event stream: ${STREAM} events, one commit each`,
      fromCommit,
      false,
      `${got.length} received, ${inOrder ? 'in order' : 'OUT OF ORDER'}; committed at ${round(STREAM / sendSecs, 0)}/s; lag from the commit's answer`,
    );
    streamRow.extra = {
      ...streamRow.extra,
      from_transaction_start_p50_ms: round(percentile(fromBegin, 50), 2),
      from_transaction_start_p99_ms: round(percentile(fromBegin, 99), 2),
    };
    rows.push(streamRow);
    return rows.map((r) => ({
      ...r,
      extra: { ...r.extra, machine_note: 'gateway, 2 webhook workers, receiver and this process on one machine' },
    }));
  } finally {
    await Promise.all(procs.map((p) => p.stop().catch(() => undefined)));
    await rx.close();
    await t.drop();
  }
}
