import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { privateQueues, waitUntil } from '@docfleet/testing';
import { createWorker, JOBS, QUEUES, jobsOfQueue, scheduleEnv, schedulesOf } from '../src';

const ns = privateQueues('qtest');
const { workerRedis, prefix, queues } = ns;
afterAll(() => ns.close());

describe('job registry', () => {
  it('maps every job to a known queue and every queue has jobs', () => {
    for (const [name, def] of Object.entries(JOBS))
      expect({ name, ok: (QUEUES as readonly string[]).includes(def.queue) }).toEqual({ name, ok: true });
    for (const q of QUEUES) expect(jobsOfQueue(q).length).toBeGreaterThan(0);
  });

  it('refuses a payload that does not match the job schema', async () => {
    await expect(queues.enqueue('parse.file', { jobId: 'not-a-uuid', orgId: randomUUID() })).rejects.toThrow();
  });

  it("declares the billing duties' schedules beside their jobs; the service's environment sets the cadence", () => {
    const env = z.object(scheduleEnv('billing'));
    expect(schedulesOf('billing', env.parse({}))).toEqual([
      { name: 'billing.reap', everyMs: 15_000 },
      { name: 'billing.rollover', everyMs: 3_600_000 },
      { name: 'billing.rollup', everyMs: 300_000 },
      { name: 'billing.reconcile', everyMs: 300_000 },
    ]);
    const fast = env.parse({ BILLING_REAP_EVERY_SECONDS: '2' });
    expect(schedulesOf('billing', fast)[0]).toEqual({ name: 'billing.reap', everyMs: 2000 });
    expect(() => env.parse({ BILLING_ROLLUP_EVERY_SECONDS: '0' })).toThrow();
    // Jobs that only run when enqueued have no schedule.
    expect(schedulesOf('parse', {})).toEqual([]);
  });

  it('refuses to start a worker with a job of its queue unhandled', () => {
    expect(() =>
      createWorker('index', { 'index.file-version': async () => undefined } as never, {
        connection: workerRedis,
        prefix,
      }),
    ).toThrow(/no handler for: index.remove-file/);
  });
});

describe('enqueue and createWorker', () => {
  it('delivers validated payloads with trace context, and close() waits for the active job', async () => {
    const seen: unknown[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let finished = false;
    const worker = createWorker(
      'index',
      {
        'index.file-version': async (p) => {
          seen.push(p);
          await gate;
          finished = true;
        },
        'index.remove-file': async (p) => {
          seen.push(p);
        },
      },
      { connection: workerRedis, prefix },
    );
    const ids = { orgId: randomUUID(), fileId: randomUUID(), fileVersionId: randomUUID(), manifestId: randomUUID() };
    await queues.enqueue('index.file-version', ids);
    const depth = await queues.depth('index');
    expect(depth.wait + depth.active + (depth.prioritized ?? 0)).toBeGreaterThanOrEqual(1);
    await waitUntil('the worker to take the index job', () => seen.length > 0, {
      timeoutMs: 5_000,
      detail: () => `payloads seen: ${JSON.stringify(seen)}`,
    });
    expect(seen[0]).toMatchObject(ids);
    expect((seen[0] as { trace: unknown }).trace).toEqual(expect.any(Object));
    const closing = worker.close();
    setTimeout(release, 200);
    await closing;
    expect(finished).toBe(true);
  });
});
