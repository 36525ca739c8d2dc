// Restarts under load (issue 13.3), against the real fleet (`pnpm start`): with parses, index jobs
// and operations in flight, Redis (non-persistent, as the quickstart runs it) and, separately,
// PostgreSQL are restarted under it. Every service reconnects by itself (the gateway's readiness
// goes false and back, no service is restarted), nothing is lost without being detected (each job
// and operation ends completed, or failed with its credits released or refunded), every completed
// parse reaches the search index, the ledger still explains every balance and nothing stays held.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startFakeOpenAiServer, type FakeOpenAiServer } from '@docfleet/models/test-servers';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { Client } from 'pg';
import { DocfleetClient } from '@docfleet/sdk';
import { createTestDb, startPrivatePostgres, startPrivateRedis, waitUntil } from '@docfleet/testing';
import { root, sleep, startFleet, type Fleet } from './fleet-process';

const CORPUS = process.env.DOCFLEET_CORPUS ?? path.resolve(root, '../shared/corpus');
const SERVICES = ['gateway', 'parse-worker', 'index-worker', 'workflow-worker', 'billing'];
const cleanups: Array<() => Promise<unknown> | unknown> = [];
let fake: FakeOpenAiServer;
beforeAll(async () => {
  fake = await startFakeOpenAiServer({ models: ['remote-small'] });
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => undefined);
  await fake.close();
});

async function onePagePdf(text: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([400, 300]).drawText(text, { x: 20, y: 200, size: 12, font });
  return doc.save();
}

/** Polls the gateway's /readyz every 150 ms and keeps the sequence of distinct answers. */
function watchReadiness(url: string) {
  const seen: string[] = [];
  let on = true;
  const loop = (async () => {
    while (on) {
      let s: string;
      try {
        s = String((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) })).status);
      } catch {
        s = 'no answer';
      }
      if (seen.at(-1) !== s) seen.push(s);
      await sleep(150);
    }
  })();
  return {
    seen,
    stop: async () => {
      on = false;
      await loop;
    },
  };
}

interface Load {
  c: DocfleetClient;
  orgId: string;
  fileIds: string[];
  parseJobs: Array<{ fileId: string; jobId: string }>;
  opIds: string[];
  big: { fileId: string; jobId: string };
}

/** An organisation with parses (one of 16 pages) and extraction runs in flight. */
async function startLoad(f: Fleet): Promise<Load> {
  const { apiKey, orgId } = await f.createOrg(1000);
  const c = new DocfleetClient({ baseUrl: f.baseUrl, apiKey });
  const kb = (await c.knowledgeBases.create({ name: 'restarts' })).knowledge_base.id;
  const fileIds: string[] = [];
  for (let i = 0; i < 6; i++)
    fileIds.push(
      (
        await c.files.upload(await onePagePdf(`INVOICE ${1000 + i} total ${i * 17}.00 EUR`), {
          knowledgeBaseId: kb,
          filename: `inv-${i}.pdf`,
          contentType: 'application/pdf',
        })
      ).file.id,
    );
  const bigFile = (
    await c.files.upload(readFileSync(path.join(CORPUS, 'a_born_digital/pypdf-bench/2201.00178.pdf')), {
      knowledgeBaseId: kb,
      filename: 'big.pdf',
      contentType: 'application/pdf',
    })
  ).file.id;
  // One file parsed before the load, for the extraction runs.
  const first = (await c.files.parse(fileIds[0])).job.job_id;
  expect(await c.waitForJob(fileIds[0], first, { timeoutMs: 120_000 })).toMatchObject({ status: 'completed' });
  const parseJobs = [{ fileId: fileIds[0], jobId: first }];
  const big = { fileId: bigFile, jobId: (await c.files.parse(bigFile)).job.job_id };
  parseJobs.push(big);
  for (const id of fileIds.slice(1)) parseJobs.push({ fileId: id, jobId: (await c.files.parse(id)).job.job_id });
  // Six runs, each model call 3 s: some run while the restart happens, some still wait in the queue.
  fake.enqueue(...Array.from({ length: 6 }, () => ({ delayMs: 3000 })));
  const opIds: string[] = [];
  for (let i = 0; i < 6; i++) {
    const r = await c.extract.run({
      file_id: fileIds[0],
      schema: { fields: [{ name: 'total', type: 'number' }] },
      idempotency_key: `run-${i}`,
    });
    if (r.status !== 202) throw new Error(`run ${i} was not queued`);
    opIds.push(r.body.operation_id);
  }
  // Restart while the big parse is under way.
  let bigStatus = '';
  await waitUntil(
    `the big parse (job ${big.jobId}) running`,
    async () => (bigStatus = (await c.files.job(bigFile, big.jobId)).job.status) === 'running',
    { timeoutMs: 60_000, intervalMs: 100, detail: () => `job ${bigStatus}\n${f.out()}` },
  );
  return { c, orgId, fileIds, parseJobs, opIds, big };
}

/** Waits for every job and operation of the organisation to end, then checks the money and the index. */
async function settle(f: Fleet, dbUrl: string, load: Load) {
  const db = new Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const q = async <T>(sql: string, params: unknown[] = []) => (await db.query(sql, params)).rows as T[];
    await waitUntil(
      'every job and operation of the organisation to end',
      async () => {
        const [open] = await q<{ jobs: string; ops: string }>(
          `SELECT
          (SELECT count(*) FROM jobs WHERE org_id = $1 AND status NOT IN ('completed', 'failed', 'cancelled')) AS jobs,
          (SELECT count(*) FROM operations WHERE org_id = $1 AND status NOT IN ('completed', 'failed', 'cancelled')) AS ops`,
          [load.orgId],
        );
        return Number(open.jobs) + Number(open.ops) === 0;
      },
      {
        timeoutMs: 360_000,
        intervalMs: 500,
        detail: async () => {
          const rows = await q(
            `SELECT id, kind, status, stage, completed_pages, total_pages, heartbeat_at, updated_at FROM jobs WHERE org_id = $1 AND status NOT IN ('completed', 'failed', 'cancelled')
            UNION ALL SELECT id, operation_type, status, NULL, attempt, NULL, heartbeat_at, updated_at FROM operations WHERE org_id = $1 AND status NOT IN ('completed', 'failed', 'cancelled')`,
            [load.orgId],
          );
          return `still open: ${JSON.stringify(rows)}\n${f.out().slice(-3000)}`;
        },
      },
    );
    const jobs = await q<{
      id: string;
      status: string;
      error: string | null;
      reservation: string | null;
      net: string | null;
    }>(
      `SELECT j.id, j.status, j.error, r.status AS reservation,
        (SELECT SUM(amount_credits) FROM ledger_entries l WHERE l.job_id = j.id) AS net
      FROM jobs j LEFT JOIN credit_reservations r ON r.job_id = j.id WHERE j.org_id = $1 AND j.kind = 'parse'`,
      [load.orgId],
    );
    expect(jobs).toHaveLength(load.parseJobs.length);
    for (const j of jobs) {
      if (j.status === 'completed') expect(j.reservation).toBe('committed');
      else
        expect({ id: j.id, reservation: j.reservation, net: Number(j.net ?? 0) }).toEqual({
          id: j.id,
          reservation: expect.stringMatching(/^(failed|released|cancelled)$/),
          net: 0,
        });
    }
    const ops = await q<{ id: string; status: string; net: string | null; attempt: number }>(
      `SELECT o.id, o.status, o.attempt,
        (SELECT SUM(amount_credits) FROM ledger_entries l WHERE l.operation_id = o.id) AS net FROM operations o WHERE o.org_id = $1`,
      [load.orgId],
    );
    for (const o of ops) {
      // a queued workflow pays for its completed attempt only: every failed attempt was refunded
      expect({ id: o.id, net: Number(o.net ?? 0) }).toEqual({ id: o.id, net: o.status === 'completed' ? -1 : 0 });
    }
    // Every completed parse reached the search index (its index job ran, or was run again).
    let missing: Array<{ id: string }> = [];
    await waitUntil(
      'every completed parse of the organisation in the search index',
      async () =>
        (missing = await q<{ id: string }>(
          `SELECT j.id FROM jobs j JOIN artifact_manifests m ON m.job_id = j.id AND m.artifact_type = 'parse'
          WHERE j.org_id = $1 AND j.status = 'completed'
            AND NOT EXISTS (SELECT 1 FROM evidence_index_segments s WHERE s.artifact_manifest_id = m.id)`,
          [load.orgId],
        )).length === 0,
      {
        timeoutMs: 90_000,
        intervalMs: 1000,
        detail: () => `not indexed: ${missing.map((m) => m.id).join(', ')}\n${f.out().slice(-4000)}`,
      },
    );
    expect(await q(`SELECT id FROM credit_reservations WHERE status = 'reserved'`)).toEqual([]);
    expect(
      await q(`SELECT a.org_id, a.balance_credits, (SELECT SUM(amount_credits) FROM ledger_entries l WHERE l.org_id = a.org_id) AS ledger
      FROM credit_accounts a WHERE a.balance_credits <> COALESCE((SELECT SUM(amount_credits) FROM ledger_entries l WHERE l.org_id = a.org_id), 0)`),
    ).toEqual([]);
    return { jobs, ops };
  } finally {
    await db.end();
  }
}

/** After the restart the fleet still serves new work end to end. */
async function stillServes(load: Load) {
  const { c, fileIds } = load;
  const again = (await c.files.parse(fileIds[0], { idempotency_key: 'after-restart' })).job.job_id;
  expect(await c.waitForJob(fileIds[0], again, { timeoutMs: 120_000 })).toMatchObject({ status: 'completed' });
  const r = await c.extract.run({
    file_id: fileIds[0],
    schema: { fields: [{ name: 'total', type: 'number' }] },
    idempotency_key: 'after-restart',
  });
  if (r.status !== 202) throw new Error('the run after the restart was not queued');
  let op: unknown;
  await waitUntil(
    `the extract run after the restart (${r.body.operation_id}) to complete`,
    async () => {
      const o = await c.operations.get(r.body.operation_id);
      op = o;
      if (o.status === 'failed') throw new Error(`the run after the restart failed: ${JSON.stringify(o)}`);
      return o.status === 'completed';
    },
    { timeoutMs: 120_000, intervalMs: 200, detail: () => `last read: ${JSON.stringify(op)}` },
  );
}

function report(name: string, seen: string[], jobs: Array<{ status: string }>, ops: Array<{ status: string }>) {
  const count = (xs: Array<{ status: string }>) =>
    xs.reduce<Record<string, number>>((m, x) => ({ ...m, [x.status]: (m[x.status] ?? 0) + 1 }), {});
  process.stdout.write(
    `${name}: readiness ${seen.join(' → ')}; parse jobs ${JSON.stringify(count(jobs))}; operations ${JSON.stringify(count(ops))}\n`,
  );
}

const modelEnv = () => ({
  OPENAI_BASE_URL: `${fake.url}/v1`,
  OPENAI_MODELS: 'remote-small',
  MODEL_DEFAULT: 'remote-small',
  MODEL_MAX_RETRIES: '0',
});

/**
 * The scenario both restarts share: work in flight, the restart, readiness seen going 503 and back to
 * 200, every job and operation settled with the money adding up, new work still served, no service
 * restarted by the supervisor, and a clean stop.
 */
async function restartUnderLoad(name: string, f: Fleet, dbUrl: string, restart: () => Promise<void>) {
  const load = await startLoad(f);
  expect((await fetch(`${f.baseUrl}/readyz`)).status).toBe(200);
  const ready = watchReadiness(f.baseUrl);
  await restart();
  await waitUntil(
    'readiness to go 503 during the restart and back to 200',
    () => ready.seen.at(-1) === '200' && ready.seen.includes('503'),
    { timeoutMs: 60_000, intervalMs: 100, detail: () => `readiness answers seen: ${ready.seen.join(' ')}` },
  );
  const { jobs, ops } = await settle(f, dbUrl, load);
  await stillServes(load);
  await ready.stop();
  report(name, ready.seen, jobs, ops);
  expect(ready.seen).toContain('503');
  expect(ready.seen.at(-1)).toBe('200');
  for (const s of SERVICES) expect([s, f.pidsOf(s).length]).toEqual([s, 1]);
  process.kill(-f.child.pid!, 'SIGTERM');
  expect((await f.exited).code).toBe(0);
}

describe('restarts under load', () => {
  it('Redis restarted empty: every service reconnects, lost queue entries are detected, the money adds up', async () => {
    const t = await createTestDb();
    cleanups.push(() => t.drop());
    const redis = await startPrivateRedis();
    cleanups.push(() => redis.stop());
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-restart-redis-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const f = await startFleet({
      DATABASE_URL: t.url,
      DATA_DIR: dataDir,
      REDIS_URL: redis.url,
      RATE_LIMIT_POINTS: '100000',
      ...modelEnv(),
    });
    cleanups.push(() => f.kill());
    await restartUnderLoad('redis restart', f, t.url, () => redis.restart({ downMs: 3000 }));
  }, 720_000);

  it('PostgreSQL restarted: every service reconnects, interrupted work is re-run or failed and released, the money adds up', async () => {
    const pg = await startPrivatePostgres();
    cleanups.push(() => pg.stop());
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-restart-pg-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const f = await startFleet({ DATABASE_URL: pg.url, DATA_DIR: dataDir, RATE_LIMIT_POINTS: '100000', ...modelEnv() });
    cleanups.push(() => f.kill());
    await restartUnderLoad('postgres restart', f, pg.url, () => pg.restart({ downMs: 3000 }));
  }, 720_000);
});
