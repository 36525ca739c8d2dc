// Money under concurrency (issue 13.4), through HTTP against the real fleet (`pnpm start`): a burst
// of parse requests larger than the organisation can pay for admits exactly the payable ones, and
// once the admitted jobs finish the ledger still explains every balance and nothing stays held.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { startFakeOpenAiServer } from '@docfleet/models/test-servers';
import { DocfleetClient } from '@docfleet/sdk';
import { createTestDb, type TestDb } from '@docfleet/testing';
import { sleep, startFleet, type Fleet } from './fleet-process';

let t: TestDb;
let dataDir: string;
let fleet: Fleet | undefined;
beforeAll(async () => {
  t = await createTestDb();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-money-'));
});
afterAll(async () => {
  fleet?.kill();
  await t.drop();
  await rm(dataDir, { recursive: true, force: true });
});

async function onePagePdf(text: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  doc.addPage([300, 200]).drawText(text, { x: 20, y: 100, size: 14, font });
  return doc.save();
}

/** Runs fn over items with at most n in flight. */
async function pool<T, R>(items: T[], n: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

describe('money under concurrency', () => {
  it('200 concurrent one-page parses against 50 credits: exactly 50 accepted, 150 refused with 402, the ledger explains the balance and nothing stays reserved', async () => {
    // DB_POOL_MAX 4: the gateway meets the burst with far fewer connections than requests.
    fleet = await startFleet({ DATABASE_URL: t.url, DATA_DIR: dataDir, RATE_LIMIT_POINTS: '100000', DB_POOL_MAX: '4' });
    const { apiKey, orgId } = await fleet.createOrg(50);
    const c = new DocfleetClient({ baseUrl: fleet.baseUrl, apiKey });
    const kb = (await c.knowledgeBases.create({ name: 'burst' })).knowledge_base.id;
    const ids = await pool(
      Array.from({ length: 200 }, (_, i) => i),
      8,
      async (i) =>
        (
          await c.files.upload(await onePagePdf(`burst document number ${i}`), {
            knowledgeBaseId: kb,
            filename: `burst-${i}.pdf`,
            contentType: 'application/pdf',
          })
        ).file.id,
    );

    const answers = await Promise.all(
      ids.map(async (id) => {
        const r = await fetch(`${fleet!.baseUrl}/v1/files/${id}/parse`, {
          method: 'POST',
          headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
          body: '{}',
        });
        const body = (await r.json()) as { code?: string; job?: { job_id: string } };
        return { status: r.status, code: body.code, jobId: body.job?.job_id, fileId: id };
      }),
    );
    const byStatus = answers.reduce<Record<string, number>>(
      (m, a) => ({
        ...m,
        [`${a.status}${a.code ? ` ${a.code}` : ''}`]: (m[`${a.status}${a.code ? ` ${a.code}` : ''}`] ?? 0) + 1,
      }),
      {},
    );
    expect(byStatus).toEqual({ 202: 50, '402 insufficient_credits': 150 });

    const accepted = answers.filter((a) => a.status === 202);
    const until = Date.now() + 240_000;
    for (const a of accepted) {
      const job = await c.waitForJob(a.fileId, a.jobId!, { timeoutMs: Math.max(1000, until - Date.now()) });
      expect(job.status).toBe('completed');
    }
    // the balance never went below zero and every page was charged exactly once
    expect((await c.billing.credits()).credits.balance_credits).toBe(0);
    const [acc] = await t.db.$queryRaw<{ balance: number; ledger: bigint }[]>`SELECT a.balance_credits AS balance,
      (SELECT SUM(amount_credits) FROM ledger_entries l WHERE l.org_id = a.org_id) AS ledger FROM credit_accounts a WHERE a.org_id = ${orgId}::uuid`;
    expect(Number(acc.ledger)).toBe(acc.balance);
    const debits = await t.db.ledgerEntry.count({ where: { org_id: orgId, kind: 'debit' } });
    expect(debits).toBe(50);
    await sleep(100);
    expect(await t.db.creditReservation.count({ where: { org_id: orgId, status: 'reserved' } })).toBe(0);
    expect(await t.db.job.count({ where: { org_id: orgId } })).toBe(50);
    expect(fleet.out()).not.toMatch(/unhandled error/);
    process.kill(-fleet.child.pid!, 'SIGTERM');
    expect((await fleet.exited).code).toBe(0);
  }, 420_000);

  it('50 identical concurrent extraction runs: one operation, one charge', async () => {
    const fake = await startFakeOpenAiServer({ models: ['remote-small'] });
    try {
      fleet = await startFleet({
        DATABASE_URL: t.url,
        DATA_DIR: dataDir,
        RATE_LIMIT_POINTS: '100000',
        DB_POOL_MAX: '4',
        OPENAI_BASE_URL: `${fake.url}/v1`,
        OPENAI_MODELS: 'remote-small',
        MODEL_DEFAULT: 'remote-small',
        MODEL_MAX_RETRIES: '0',
      });
      const { apiKey, orgId } = await fleet.createOrg(10);
      const c = new DocfleetClient({ baseUrl: fleet.baseUrl, apiKey });
      const kb = (await c.knowledgeBases.create({ name: 'runs' })).knowledge_base.id;
      const fileId = (
        await c.files.upload(await onePagePdf('INVOICE 7 total 12.00'), {
          knowledgeBaseId: kb,
          filename: 'inv.pdf',
          contentType: 'application/pdf',
        })
      ).file.id;
      const job = (await c.files.parse(fileId)).job.job_id;
      expect(await c.waitForJob(fileId, job, { timeoutMs: 120_000 })).toMatchObject({ status: 'completed' });
      const before = (await c.billing.credits()).credits.balance_credits;
      const body = JSON.stringify({ file_id: fileId, schema: { fields: [{ name: 'total', type: 'number' }] } });
      const answers = await Promise.all(
        Array.from({ length: 50 }, async () => {
          const r = await fetch(`${fleet!.baseUrl}/v1/extract/runs`, {
            method: 'POST',
            headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
            body,
          });
          return { status: r.status, body: (await r.json()) as { operation_id?: string; code?: string } };
        }),
      );
      // 202 with the one operation, or 200 with its output once it completed
      expect(answers.filter((a) => a.status !== 202 && a.status !== 200)).toEqual([]);
      expect(new Set(answers.filter((a) => a.status === 202).map((a) => a.body.operation_id)).size).toBe(1);
      expect(await t.db.operation.count({ where: { org_id: orgId } })).toBe(1);
      expect(await t.db.ledgerEntry.count({ where: { org_id: orgId, operation_id: { not: null } } })).toBe(1);
      expect((await c.billing.credits()).credits.balance_credits).toBe(before - 1);
      process.kill(-fleet.child.pid!, 'SIGTERM');
      expect((await fleet.exited).code).toBe(0);
    } finally {
      await fake.close();
    }
  }, 300_000);
});
