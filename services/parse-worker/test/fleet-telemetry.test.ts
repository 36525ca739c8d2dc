// Traces and metrics across real processes: the gateway, the parse worker and the index worker
// each run as `node --import tsx services/<name>/src/main.ts`, exporting spans over OTLP/HTTP
// (JSON) to a local receiver. One upload with auto_parse must give one trace from the gateway's
// request span through the parse job to the index job, and every service's /metrics must show
// the work it did.
import { randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createOrganization, createOrgApiKey } from '@docfleet/auth';
import { grantCredits } from '@docfleet/billing';
import { sampleValue } from '@docfleet/runtime';
import { KIND, startOtlpReceiver, type ReceivedSpan } from '../../../libs/telemetry/test/otlp-receiver';
import { NDA3 } from './fixtures';
import { createTestDb, freePort, spawnService, waitUntil, type ServiceProcess, type TestDb } from '@docfleet/testing';

let tdb: TestDb;
let dataDir: string;
let rx: Awaited<ReturnType<typeof startOtlpReceiver>>;
const procs: ServiceProcess[] = [];
beforeAll(async () => {
  tdb = await createTestDb();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-fleet-otel-'));
  rx = await startOtlpReceiver();
});
afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await rx.close();
  await tdb.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const scrape = async (url: string) => (await fetch(url)).text();

describe('one upload across gateway, parse worker and index worker', () => {
  it('is one trace with correct parent links, and every service counts its work on /metrics', async () => {
    const common = {
      DATABASE_URL: tdb.url,
      DATA_DIR: dataDir,
      QUEUE_PREFIX: `otel${randomUUID().slice(0, 6)}`,
      LOG_LEVEL: 'warn',
      DB_POOL_MAX: '3',
      OMP_THREAD_LIMIT: '1',
      OTEL_EXPORTER_OTLP_ENDPOINT: rx.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    };
    const [gwPort, parsePort, indexPort] = [await freePort(), await freePort(), await freePort()];
    const gw = `http://127.0.0.1:${gwPort}`;
    procs.push(await spawnService('gateway', { ...common, PORT: String(gwPort), HOST: '127.0.0.1' }, `${gw}/healthz`));
    procs.push(
      await spawnService(
        'parse-worker',
        { ...common, HEALTH_PORT: String(parsePort) },
        `http://127.0.0.1:${parsePort}/healthz`,
      ),
    );
    procs.push(
      await spawnService(
        'index-worker',
        { ...common, HEALTH_PORT: String(indexPort) },
        `http://127.0.0.1:${indexPort}/healthz`,
      ),
    );

    const org = await createOrganization(tdb.db, 'otel');
    await grantCredits(tdb.db, { orgId: org.id, amount: 100, idempotencyKey: `g:${org.id}`, reason: 'test' });
    const key = (await createOrgApiKey(tdb.db, org.id)).secret;
    const kb = (await (
      await fetch(`${gw}/v1/knowledge-bases`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'otel' }),
      })
    ).json()) as { knowledge_base: { id: string } };
    const form = new FormData();
    form.append('knowledge_base_id', kb.knowledge_base.id);
    form.append('auto_parse', 'true');
    form.append('file', new Blob([await readFile(NDA3)], { type: 'application/pdf' }), 'nda.pdf');
    const up = await fetch(`${gw}/v1/files`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
    const upload = (await up.json()) as { parse_job?: { job_id: string; status: string } };
    expect({ status: up.status, job: upload.parse_job?.status }).toEqual({ status: 201, job: 'queued' });

    const indexMetrics = `http://127.0.0.1:${indexPort}/metrics`;
    await waitUntil(
      'the index worker to count a completed index.file-version',
      async () =>
        sampleValue(await scrape(indexMetrics), 'docfleet_jobs_completed_total', {
          queue: 'index',
          job: 'index.file-version',
        }) >= 1,
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    const span = (name: string) => rx.spans.find((s) => s.name === name);
    const last = await waitUntil('the span process index.file-version', () => span('process index.file-version'), {
      timeoutMs: 20_000,
      intervalMs: 200,
    });

    // ---- traces: gateway request → send parse.file → process parse.file → send index.file-version → process index.file-version
    const request = rx.spans.find((s) => s.name === 'POST /v1/files')!;
    const chain: ReceivedSpan[] = [
      request,
      span('send parse.file')!,
      span('process parse.file')!,
      span('send index.file-version')!,
      last,
    ];
    expect(chain.map((s) => s && [s.service, s.name, s.kind])).toEqual([
      ['gateway', 'POST /v1/files', KIND.SERVER],
      ['gateway', 'send parse.file', KIND.PRODUCER],
      ['parse-worker', 'process parse.file', KIND.CONSUMER],
      ['parse-worker', 'send index.file-version', KIND.PRODUCER],
      ['index-worker', 'process index.file-version', KIND.CONSUMER],
    ]);
    expect(new Set(chain.map((s) => s.traceId))).toEqual(new Set([request.traceId]));
    expect(request.parentSpanId).toBeUndefined();
    expect(chain.slice(1).map((s) => s.parentSpanId)).toEqual(chain.slice(0, -1).map((s) => s.spanId));
    expect(request.attributes).toMatchObject({
      'http.route': '/v1/files',
      'http.response.status_code': 201,
      'http.request.method': 'POST',
    });
    expect(chain[2].attributes).toMatchObject({
      'messaging.destination.name': 'parse',
      'messaging.message.id': upload.parse_job!.job_id,
    });

    // ---- metrics after real work
    const parse = await scrape(`http://127.0.0.1:${parsePort}/metrics`);
    expect({
      completed: sampleValue(parse, 'docfleet_jobs_completed_total', {
        queue: 'parse',
        job: 'parse.file',
        service: 'parse-worker',
      }),
      timed: sampleValue(parse, 'docfleet_job_duration_seconds_count', {
        queue: 'parse',
        job: 'parse.file',
        outcome: 'completed',
      }),
      outcome: sampleValue(parse, 'docfleet_parse_jobs_total', { outcome: 'completed' }),
      pages: sampleValue(parse, 'docfleet_parse_pages_total', { kind: 'pdf', result: 'parsed' }),
      debited: sampleValue(parse, 'docfleet_credits_debited_total'),
      refunded: sampleValue(parse, 'docfleet_credits_refunded_total'),
    }).toEqual({ completed: 1, timed: 1, outcome: 1, pages: 3, debited: 3, refunded: 0 });
    expect(sampleValue(parse, 'process_cpu_seconds_total')).toBeGreaterThan(0);
    const index = await scrape(indexMetrics);
    expect(
      sampleValue(index, 'docfleet_job_duration_seconds_count', {
        queue: 'index',
        job: 'index.file-version',
        outcome: 'completed',
      }),
    ).toBe(1);
    expect(sampleValue(index, 'docfleet_index_segments_written_total')).toBeGreaterThan(0);
    const gateway = await scrape(`${gw}/metrics`);
    expect(
      sampleValue(gateway, 'docfleet_http_request_duration_seconds_count', {
        method: 'POST',
        route: '/v1/files',
        status: '201',
      }),
    ).toBe(1);
    expect(sampleValue(gateway, 'docfleet_credits_debited_total')).toBe(0); // exposed; parse debits happen in the worker
    expect(sampleValue(gateway, 'docfleet_credits_refunded_total')).toBe(0);
    const ledger = await tdb.db.ledgerEntry.aggregate({
      where: { org_id: org.id, kind: 'debit' },
      _sum: { amount_credits: true },
    });
    expect(-(ledger._sum.amount_credits ?? 0)).toBe(3);

    // ---- SIGTERM: each service flushes its spans and exits 0
    expect(await Promise.all(procs.map((p) => p.stop()))).toEqual([0, 0, 0]);
  }, 240_000);
});
