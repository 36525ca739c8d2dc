// Webhooks end to end with real processes (gateway and webhook worker, `node --import tsx …/main.ts`)
// over a private database and queue prefix, delivering to real receivers on loopback.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createOrganization, createOrgApiKey } from '@docfleet/auth';
import { WebhookVerificationError, verifyWebhook } from '@docfleet/sdk';
import {
  createTestDb,
  freePort,
  spawnFleetService,
  startWebhookReceiver,
  type FleetServiceProcess,
  type TestDb,
  type WebhookReceiver,
  waitUntil,
} from '@docfleet/testing';

let t: TestDb;
let gw: FleetServiceProcess;
let worker: FleetServiceProcess;
let rx: WebhookReceiver;
let env: Record<string, string>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  t = await createTestDb();
  env = {
    DATABASE_URL: t.url,
    QUEUE_PREFIX: `wh${randomUUID().slice(0, 8)}`,
    RATE_LIMIT_POINTS: '100000',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // The schedule in seconds: 300 ms, 600 ms, 1.2 s … for 8 s.
    WEBHOOK_RETRY_BASE_MS: '300',
    WEBHOOK_RETRY_FACTOR: '2',
    WEBHOOK_RETRY_JITTER: '0',
    WEBHOOK_RETRY_WINDOW_MS: '8000',
    WEBHOOK_TIMEOUT_MS: '1000',
    WEBHOOK_JOB_LOCK_MS: '2000',
    WEBHOOK_SWEEP_INTERVAL_MS: '500',
  };
  [gw, worker, rx] = await Promise.all([
    spawnFleetService('gateway', env),
    spawnFleetService('webhook-worker', env),
    startWebhookReceiver(),
  ]);
}, 120_000);
// Each stop is bounded (SIGKILL 40 s after SIGTERM, the process named on stderr), then the drop.
afterAll(async () => {
  await Promise.all([gw?.stop(), worker?.stop(), rx?.close()]);
  await t?.drop();
}, 90_000);

async function org() {
  const o = await createOrganization(t.db, `org-${randomUUID().slice(0, 6)}`);
  const key = await createOrgApiKey(t.db, o.id);
  return { orgId: o.id, key: key.secret };
}

async function call(method: string, path: string, key: string, body?: unknown) {
  const r = await fetch(gw.url + path, {
    method,
    headers: { 'x-api-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

const idOf = (h: { body: string }) => JSON.parse(h.body).id as string;

// The receiver answers before the worker records the attempt: what the API shows is waited for
// (libs/testing waitUntil).
const wait = { timeoutMs: 20_000, intervalMs: 100 };
/** The newest delivery of an endpoint, once `ok` holds for it (a timeout shows the last one read). */
const newestDelivery = (what: string, list: () => Promise<any>, ok: (d: any) => boolean) => {
  let last: unknown;
  return waitUntil(
    what,
    async () => {
      const d = (last = (await list()).body.deliveries[0]);
      return ok(d) && d;
    },
    { ...wait, detail: () => `newest delivery: ${JSON.stringify(last)}` },
  );
};

describe('webhook endpoints', () => {
  it('delivers a signed test event that verifies; a tampered body or an old timestamp does not', async () => {
    const { key } = await org();
    const created = await call('POST', '/v1/webhooks', key, { url: rx.url, description: 'sig' });
    expect(created.status).toBe(201);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    const secret = created.body.secret as string;
    const id = created.body.webhook.id as string;
    expect((await call('GET', `/v1/webhooks/${id}`, key)).body.webhook).not.toHaveProperty('secret');

    const sent = await call('POST', `/v1/webhooks/${id}/test`, key);
    expect(sent.status).toBe(202);
    const [hook] = await rx.waitFor(1, 15_000, (h) => idOf(h) === sent.body.event_id);
    expect(hook!.headers['webhook-id']).toBe(sent.body.event_id);
    const event = verifyWebhook(hook!.body, hook!.headers as Record<string, string>, secret);
    expect(event).toMatchObject({ type: 'webhook.test', data: { webhook_id: id } });

    expect(() => verifyWebhook(hook!.body.replace('test', 'tset'), hook!.headers as any, secret)).toThrow(
      WebhookVerificationError,
    );
    expect(() =>
      verifyWebhook(hook!.body, hook!.headers as any, secret, { now: Date.now() + 3600_000, toleranceSeconds: 300 }),
    ).toThrow(/tolerance/);

    // After a rotation both signatures are sent: the old secret still verifies, so does the new.
    const rotated = await call('POST', `/v1/webhooks/${id}/rotate-secret`, key);
    const again = await call('POST', `/v1/webhooks/${id}/test`, key);
    const [h2] = await rx.waitFor(1, 15_000, (h) => idOf(h) === again.body.event_id);
    expect(String(h2!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWebhook(h2!.body, h2!.headers as any, secret).id).toBe(again.body.event_id);
    expect(verifyWebhook(h2!.body, h2!.headers as any, rotated.body.secret).id).toBe(again.body.event_id);

    const deliveries = await waitUntil(
      'the test delivery to succeed',
      async () => {
        const r = await call('GET', `/v1/webhooks/${id}/deliveries`, key);
        return r.body.deliveries[0]?.status === 'succeeded' && r;
      },
      wait,
    );
    expect(deliveries.body.deliveries[0]).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 200 });
  });

  it("answers another organisation's endpoints and deliveries 404; refuses bad URLs", async () => {
    const a = await org();
    const b = await org();
    const id = (await call('POST', '/v1/webhooks', a.key, { url: rx.url })).body.webhook.id;
    const sent = await call('POST', `/v1/webhooks/${id}/test`, a.key);
    await rx.waitFor(1, 15_000, (h) => idOf(h) === sent.body.event_id);
    const delivery = (await call('GET', `/v1/webhooks/${id}/deliveries`, a.key)).body.deliveries[0].id;
    for (const [m, p] of [
      ['GET', `/v1/webhooks/${id}`],
      ['PATCH', `/v1/webhooks/${id}`],
      ['DELETE', `/v1/webhooks/${id}`],
      ['POST', `/v1/webhooks/${id}/test`],
      ['POST', `/v1/webhooks/${id}/rotate-secret`],
      ['GET', `/v1/webhooks/${id}/deliveries`],
      ['POST', `/v1/webhooks/${id}/deliveries/${delivery}/redeliver`],
    ] as const) {
      const r = await call(m, p, b.key, m === 'PATCH' ? { enabled: false } : undefined);
      expect({ m, p, status: r.status, code: r.body.code }).toEqual({ m, p, status: 404, code: 'webhook_not_found' });
    }
    expect((await call('GET', '/v1/webhooks', b.key)).body.webhooks).toEqual([]);
    const bad = await call('POST', '/v1/webhooks', a.key, { url: 'ftp://example.com/x' });
    expect({ status: bad.status, code: bad.body.code }).toEqual({ status: 400, code: 'invalid_webhook_url' });
    const redo = await call('POST', `/v1/webhooks/${id}/deliveries/${delivery}/redeliver`, a.key);
    expect(redo.status).toBe(202);
    const copies = await rx.waitFor(2, 15_000, (h) => idOf(h) === sent.body.event_id);
    expect(new Set(copies.map((h) => h.headers['webhook-id']))).toEqual(new Set([sent.body.event_id]));
  });

  it('a receiver down for a while then back gets every event, in order per resource', async () => {
    const down = await startWebhookReceiver();
    const { key } = await org();
    const id = (await call('POST', '/v1/webhooks', key, { url: down.url })).body.webhook.id;
    await down.stop();
    const sent: string[] = [];
    for (let i = 0; i < 5; i++) sent.push((await call('POST', `/v1/webhooks/${id}/test`, key)).body.event_id);
    await sleep(1500); // a few attempts hit a closed port
    await down.start();
    const got = await down.waitFor(5, 20_000);
    expect(got.map(idOf)).toEqual(sent); // one resource (the endpoint's test events): in order
    const page = await waitUntil(
      'every delivery to succeed',
      async () => {
        const p: any[] = (await call('GET', `/v1/webhooks/${id}/deliveries`, key)).body.deliveries;
        return p.every((d) => d.status === 'succeeded') && p;
      },
      wait,
    );
    expect(page.every((d: any) => d.status === 'succeeded')).toBe(true);
    expect(page.some((d: any) => d.attempts > 1 && /ECONNREFUSED/.test(d.attempt_log[0].error))).toBe(true);
    await down.close();
  });

  it('500s and timeouts are retried on the schedule, each attempt recorded', async () => {
    const flaky = await startWebhookReceiver();
    const { key } = await org();
    const id = (await call('POST', '/v1/webhooks', key, { url: flaky.url })).body.webhook.id;
    flaky.respond({ status: 500 });
    const ev = (await call('POST', `/v1/webhooks/${id}/test`, key)).body.event_id;
    await sleep(1200); // attempts at ~0, +300 ms, +600 ms: three 500s
    flaky.respond({ delayMs: 1500 }); // then a timeout (WEBHOOK_TIMEOUT_MS 1 s)
    await sleep(1500);
    flaky.respond({});
    await flaky.waitFor(1, 20_000);
    const d = await newestDelivery(
      'the delivery to succeed after the failures',
      () => call('GET', `/v1/webhooks/${id}/deliveries`, key),
      (x) => x?.status === 'succeeded',
    );
    expect(d).toMatchObject({ event_id: ev, status: 'succeeded' });
    const log = d.attempt_log as { status_code: number | null; error: string | null; created_at: string }[];
    expect(log.filter((a) => a.status_code === 500).length).toBeGreaterThanOrEqual(2);
    expect(log.some((a) => /no answer within 1000 ms/.test(a.error ?? ''))).toBe(true);
    // Waits grow: 300 ms, then 600 ms (no jitter here), measured between recorded attempts.
    const at = log.map((a) => Date.parse(a.created_at));
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(250);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(550);
    await flaky.close();
  });

  it('kill -9 of the worker mid-delivery loses nothing; the duplicate carries the same webhook-id', async () => {
    const slow = await startWebhookReceiver();
    const { key } = await org();
    const id = (await call('POST', '/v1/webhooks', key, { url: slow.url })).body.webhook.id;
    slow.respond({ delayMs: 800 });
    const ev = (await call('POST', `/v1/webhooks/${id}/test`, key)).body.event_id;
    // Wait until the worker is inside the POST, then kill it.
    await waitUntil('the worker to be inside the POST', () => slow.attempts.length > 0, {
      timeoutMs: 15_000,
      intervalMs: 20,
    });
    expect(slow.attempts.length).toBe(1);
    await worker.kill9();
    slow.respond({});
    worker = await spawnFleetService('webhook-worker', env);
    // The killed attempt reached the receiver; a new worker sends it again once the lease runs out.
    await waitUntil('two attempts at the slow receiver', () => slow.attempts.length >= 2, {
      ...wait,
      timeoutMs: 30_000,
    });
    const d = await newestDelivery(
      'the delivery to succeed after the kill',
      () => call('GET', `/v1/webhooks/${id}/deliveries`, key),
      (x) => x?.status === 'succeeded',
    );
    expect(d).toMatchObject({ event_id: ev, status: 'succeeded' });
    expect(slow.attempts.every((h) => h.headers['webhook-id'] === ev)).toBe(true);
    expect(slow.attempts.length).toBeGreaterThanOrEqual(2);
    await slow.close();
  });
});

describe('server-side request forgery (WEBHOOK_ALLOW_PRIVATE off)', () => {
  let t2: TestDb;
  let strictGw: FleetServiceProcess;
  let strictWorker: FleetServiceProcess;
  beforeAll(async () => {
    t2 = await createTestDb();
    const strict = {
      ...env,
      DATABASE_URL: t2.url,
      QUEUE_PREFIX: `whs${randomUUID().slice(0, 8)}`,
      WEBHOOK_ALLOW_PRIVATE: 'false',
    };
    [strictGw, strictWorker] = await Promise.all([
      spawnFleetService('gateway', strict),
      spawnFleetService('webhook-worker', strict),
    ]);
  }, 120_000);
  afterAll(async () => {
    await Promise.all([strictGw?.stop(), strictWorker?.stop()]);
    await t2?.drop();
  }, 90_000);

  const strictCall = async (method: string, p: string, key: string, body?: unknown) => {
    const r = await fetch(strictGw.url + p, {
      method,
      headers: { 'x-api-key': key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
    return { status: r.status, body: (await r.json()) as any };
  };

  it('refuses loopback, metadata, private and loopback-resolving URLs at create and on change', async () => {
    const o = await createOrganization(t2.db, 'strict');
    const key = (await createOrgApiKey(t2.db, o.id)).secret;
    for (const [url, why] of [
      ['https://127.0.0.1/hook', /loopback/],
      ['https://169.254.169.254/latest/meta-data/', /linkLocal|metadata/],
      ['https://10.0.0.1/hook', /private/],
      ['https://localhost/hook', /localhost resolves to .*loopback/],
      [rx.url, /loopback/],
    ] as const) {
      const r = await strictCall('POST', '/v1/webhooks', key, { url });
      expect({ url, status: r.status, code: r.body.code }).toEqual({ url, status: 400, code: 'invalid_webhook_url' });
      expect(r.body.error ?? r.body.message).toMatch(why);
    }
    expect((await strictCall('GET', '/v1/webhooks', key)).body.webhooks).toEqual([]);
    const ep = await t2.db.webhookEndpoint.create({
      data: { org_id: o.id, url: 'https://93.184.216.34/hook', events: [], secret: 'whsec_dGVzdA==' },
    });
    const moved = await strictCall('PATCH', `/v1/webhooks/${ep.id}`, key, { url: 'https://10.0.0.1/hook' });
    expect({ status: moved.status, code: moved.body.code }).toEqual({ status: 400, code: 'invalid_webhook_url' });
  });

  it('refuses again at delivery time: a stored URL that resolves to loopback now is never sent to', async () => {
    const o = await createOrganization(t2.db, 'rebind');
    const key = (await createOrgApiKey(t2.db, o.id)).secret;
    const target = await startWebhookReceiver();
    // As if the host had resolved to a public address when it was registered (DNS rebinding).
    const ep = await t2.db.webhookEndpoint.create({
      data: { org_id: o.id, url: target.url.replace('127.0.0.1', 'localhost'), events: [], secret: 'whsec_dGVzdA==' },
    });
    const sent = await strictCall('POST', `/v1/webhooks/${ep.id}/test`, key);
    expect(sent.status).toBe(202);
    const d = await newestDelivery(
      'two attempts at the loopback endpoint',
      () => strictCall('GET', `/v1/webhooks/${ep.id}/deliveries`, key),
      (x) => x?.attempts >= 2,
    );
    expect(d.attempt_log[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/loopback/) });
    expect(target.attempts).toHaveLength(0);
    await target.close();
  });
});

describe('redirects', () => {
  it('are not followed: a 3xx is a failed attempt, retried', async () => {
    const moved = await startWebhookReceiver();
    const { key } = await org();
    const id = (await call('POST', '/v1/webhooks', key, { url: moved.url })).body.webhook.id;
    moved.respond({ status: 302 });
    await call('POST', `/v1/webhooks/${id}/test`, key);
    const d = await newestDelivery(
      'two attempts at the redirecting endpoint',
      () => call('GET', `/v1/webhooks/${id}/deliveries`, key),
      (x) => x?.attempts >= 2,
    );
    expect(d.attempt_log[0]).toMatchObject({ status_code: 302, error: 'redirect not followed' });
    expect(d.status).toBe('pending');
    await moved.close();
  });
});

describe('the Python receiver of docs/webhooks.md', () => {
  it('verifies a real signed delivery and refuses a tampered one', async () => {
    const doc = readFileSync(path.join(__dirname, '../../../docs/webhooks.md'), 'utf8');
    const code = /<!-- python-receiver[\s\S]*?```python\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(code).toBeDefined();
    const dir = mkdtempSync(path.join(tmpdir(), 'docfleet-pyrx-'));
    writeFileSync(path.join(dir, 'receiver.py'), code!);
    const { key } = await org();
    const port = await freePort();
    const created = await call('POST', '/v1/webhooks', key, { url: `http://127.0.0.1:${port}/hook` });
    const py = spawn('python3', [path.join(dir, 'receiver.py')], {
      env: { ...process.env, PORT: String(port), DOCFLEET_WEBHOOK_SECRET: created.body.secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    py.stdout.on('data', (b) => (out += b));
    py.stderr.on('data', (b) => (out += b));
    try {
      // Sent until the receiver listens (its first attempts may find the port closed and are retried).
      const sent = await call('POST', `/v1/webhooks/${created.body.webhook.id}/test`, key);
      const d = await newestDelivery(
        'the delivery to the Python receiver to succeed',
        () => call('GET', `/v1/webhooks/${created.body.webhook.id}/deliveries`, key),
        (x) => x?.status === 'succeeded',
      );
      expect(d).toMatchObject({ status: 'succeeded', last_status_code: 204 });
      expect(out).toContain(`verified webhook.test ${sent.body.event_id}`);
      // The same headers over a changed body: refused.
      const body = JSON.stringify({ id: sent.body.event_id, type: 'webhook.test' });
      const forged = await fetch(`http://127.0.0.1:${port}/hook`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': sent.body.event_id,
          'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
          'webhook-signature': 'v1,AAAA',
        },
        body,
      });
      expect(forged.status).toBe(400);
      await waitUntil('the Python receiver to log the refusal', () => out.includes('refused: no matching signature'), {
        ...wait,
        timeoutMs: 5000,
      });
      expect(out).toContain('refused: no matching signature');
    } finally {
      py.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
