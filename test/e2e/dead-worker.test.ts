// Dead workers are noticed in seconds (issue 13.2), against the real fleet (`pnpm start`) and a
// model provider that speaks the OpenAI wire format: the workflow worker is killed (-9) in the
// middle of a synchronous classify run; a retry with the same idempotency key is answered within a
// minute, from a fresh run, and the key is charged once.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '@docfleet/models/test-servers';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { DocfleetClient } from '@docfleet/sdk';
import { createTestDb, waitUntil, type TestDb } from '@docfleet/testing';
import { alive, sleep, startFleet, type Fleet } from './fleet-process';

let t: TestDb;
let dataDir: string;
let fleet: Fleet | undefined;
let fake: FakeOpenAiServer;
beforeAll(async () => {
  t = await createTestDb();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-deadworker-'));
  fake = await startFakeOpenAiServer({
    models: ['remote-small'],
    respond: () => ({
      json: {
        document: { class: 'invoice', confidence: 0.9, rationale: 'says invoice' },
        pages: [{ page_number: 1, class: 'invoice', confidence: 0.9 }],
      },
    }),
  });
});
afterAll(async () => {
  fleet?.kill();
  await fake.close();
  await t.drop();
  await rm(dataDir, { recursive: true, force: true });
});

async function onePagePdf(): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([400, 300]).drawText('INVOICE 2024-117  Total due: 1,250.00 EUR', { x: 20, y: 200, size: 12, font });
  return doc.save();
}

describe('a workflow worker killed mid-run', () => {
  it('a same-key retry of the synchronous run is answered within 60 s, charged once', async () => {
    fleet = await startFleet({
      DATABASE_URL: t.url,
      DATA_DIR: dataDir,
      RATE_LIMIT_POINTS: '100000',
      OPENAI_BASE_URL: `${fake.url}/v1`,
      OPENAI_MODELS: 'remote-small',
      MODEL_DEFAULT: 'remote-small',
      MODEL_MAX_RETRIES: '0',
      MODEL_TIMEOUT_MS: '600000',
    });
    const f = fleet;
    const { apiKey, orgId } = await f.createOrg(20);
    const c = new DocfleetClient({ baseUrl: f.baseUrl, apiKey });
    const kb = (await c.knowledgeBases.create({ name: 'dead worker' })).knowledge_base.id;
    const fileId = (
      await c.files.upload(await onePagePdf(), {
        knowledgeBaseId: kb,
        filename: 'invoice.pdf',
        contentType: 'application/pdf',
      })
    ).file.id;
    const job = (await c.files.parse(fileId)).job.job_id;
    expect(await c.waitForJob(fileId, job, { timeoutMs: 120_000 })).toMatchObject({ status: 'completed' });
    const afterParse = (await c.billing.credits()).credits.balance_credits;

    // The first model call hangs: the worker is inside the run when it is killed.
    fake.enqueue({ delayMs: 600_000 });
    const body = { file_id: fileId, classes: ['invoice', 'letter'], idempotency_key: 'killed-run' };
    const call = () =>
      fetch(`${f.baseUrl}/v1/classify/runs`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    const first = call();
    await waitUntil('the classify run to reach the model', () => fake.requests.length >= 1, {
      timeoutMs: 60_000,
      intervalMs: 100,
      detail: () => f.out(),
    });
    const op = await t.db.operation.findFirstOrThrow({ where: { org_id: orgId, idempotency_key: 'killed-run' } });
    expect(op).toMatchObject({ status: 'in_progress', attempt: 1, heartbeat_at: expect.any(Date) });
    const pid = f.pidsOf('workflow-worker').at(-1)!;
    process.kill(pid, 'SIGKILL');
    const killedAt = Date.now();
    await waitUntil(`the killed workflow worker (pid ${pid}) gone`, () => !alive(pid), { timeoutMs: 10_000 });

    // The retry with the same key: answered within a minute, not charged again.
    const retry = await call();
    const waited = Date.now() - killedAt;
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({
      document: { class: 'invoice' },
      credit: { debited: false, idempotency_key: 'killed-run' },
    });
    expect(waited).toBeLessThan(60_000);
    // The request that was waiting when the worker died is answered too, with the charge it made.
    const original = await first;
    expect(original.status).toBe(200);
    expect(original.body.credit).toMatchObject({ debited: true });

    expect((await c.billing.credits()).credits.balance_credits).toBe(afterParse - 1);
    const debits = await t.db.ledgerEntry.findMany({ where: { org_id: orgId, operation_id: op.id } });
    expect(debits.map((d) => [d.kind, d.amount_credits])).toEqual([['debit', -1]]);
    expect(f.out()).toMatch(/workflow-worker\s*\| crashed; restart 1/);
    // Served either by the queue running attempt 1 again (lock expiry) or, when the heartbeat went
    // stale first, by a fresh attempt 2 after attempt 1 was ended worker_lost.
    const end = await t.db.operation.findUniqueOrThrow({ where: { id: op.id } });
    expect(end.status).toBe('completed');
    process.stdout.write(
      `dead worker: retry answered ${(waited / 1000).toFixed(1)} s after kill -9 (limit 60 s), by attempt ${end.attempt}\n`,
    );
    process.kill(-f.child.pid!, 'SIGTERM');
    expect((await f.exited).code).toBe(0);
  }, 300_000);
});
