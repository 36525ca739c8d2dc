import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DocfleetClient } from '@docfleet/sdk';
import { createTestDb, waitUntil, type TestDb } from '@docfleet/testing';
import { alive, root, sleep, startFleet as start, type Fleet } from './fleet-process';

// DOCFLEET_CORPUS first: from a worktree (/work/wt/NAME) ../shared does not resolve.
const corpus = (p: string) => path.resolve(process.env.DOCFLEET_CORPUS ?? path.resolve(root, '../shared/corpus'), p);

let t: TestDb;
let dataDir: string;
const fleets: Fleet[] = [];
beforeAll(async () => {
  t = await createTestDb();
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'docfleet-start-'));
});
afterAll(async () => {
  fleets.forEach((f) => f.kill()); // never leave a fleet behind, whatever an assertion did
  await t.drop();
  await rm(dataDir, { recursive: true, force: true });
});

const commandOf = (pid: number) => {
  try {
    return `${pid} ${readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ')}`;
  } catch {
    return `${pid} (gone)`;
  }
};

/** Waits (40 s at most) until none of `pids` runs; on timeout names those still running. */
const allStopped = (what: string, pids: number[]) =>
  waitUntil(what, () => !pids.some(alive), {
    timeoutMs: 40_000,
    intervalMs: 250,
    detail: () => `still running:\n${pids.filter(alive).map(commandOf).join('\n')}`,
  });

async function startFleet(env: Record<string, string> = {}) {
  const f = await start({ DATABASE_URL: t.url, DATA_DIR: dataDir, ...env });
  fleets.push(f);
  return f;
}

describe('pnpm start', () => {
  it('runs the fleet in the foreground, becomes ready, and stops cleanly on SIGINT', async () => {
    const f = await startFleet();
    expect(f.out()).toContain('starting: gateway');
    // Ctrl-C in a terminal signals the whole foreground process group.
    process.kill(-f.child.pid!, 'SIGINT');
    const how = await f.exited;
    expect(how.code === 0 || how.signal === 'SIGINT').toBe(true);
    // every service is gone: the port no longer answers
    await sleep(500);
    await expect(fetch(`http://127.0.0.1:${f.port}/healthz`)).rejects.toThrow();
  }, 90_000);

  it('stops every service when only the pnpm process gets SIGTERM (what a process supervisor sends)', async () => {
    const f = await startFleet();
    const pids = f.pidsOf();
    // gateway, billing and the four workers (index, parse, workflow, webhook)
    expect(pids.length).toBe(6);
    f.child.kill('SIGTERM'); // pnpm alone, not its group
    await f.exited;
    await allStopped('every service to stop after SIGTERM to pnpm alone', pids);
    expect(f.out()).toContain('stopping every service: SIGTERM');
  }, 120_000);

  it('leaves nothing running when the supervisor is killed outright or the process it watches ends', async () => {
    // SIGKILL of the supervisor itself (OOM killer, kill -9): its services notice and stop.
    const f = await startFleet();
    const pids = f.pidsOf();
    expect(pids.length).toBe(6);
    const supervisor = Number(readFileSync(`/proc/${pids[0]}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
    expect(supervisor).not.toBe(f.child.pid);
    process.kill(supervisor, 'SIGKILL');
    await allStopped(`every service to stop after the supervisor (${supervisor}) was killed`, pids);
    expect(f.pidsOf().filter(alive).map(commandOf)).toEqual([]);

    // START_WATCH_PID: the fleet stops when the named process ends (a killed test runner, a wrapper).
    const watched = spawn('sleep', ['600']);
    const g = await startFleet({ START_WATCH_PID: String(watched.pid) });
    const gpids = g.pidsOf();
    watched.kill('SIGKILL');
    await g.exited;
    await allStopped(`every service to stop after the watched process ${watched.pid} ended`, gpids);
    expect(g.out()).toContain(`the watched process ${watched.pid} is gone`);
  }, 240_000);

  it('restarts a parse worker killed three times during one parse: the gateway keeps answering, the job completes, each page charged once', async () => {
    const f = await startFleet({ PARSE_LOCK_SECONDS: '2', PARSE_STALLED_INTERVAL_SECONDS: '1' });
    const { apiKey, orgId } = await f.createOrg(200);
    const c = new DocfleetClient({ baseUrl: `http://127.0.0.1:${f.port}`, apiKey });
    const kb = (await c.knowledgeBases.create({ name: 'crashes' })).knowledge_base.id;
    const fileId = (await c.files.upload(corpus('a_born_digital/pypdf-bench/2201.00178.pdf'), { knowledgeBaseId: kb }))
      .file.id;
    const jobId = (await c.files.parse(fileId)).job.job_id;
    const starts = async () =>
      (await c.files.jobEvents(fileId, jobId)).events.filter((e) => e.event_type === 'job.started').length;

    for (let kill = 1; kill <= 3; kill++) {
      // wait until a (re)started parse worker has taken the job, then kill it mid-parse
      let started = 0;
      await waitUntil(
        `a parse worker to take job ${jobId} again after kill ${kill - 1}`,
        async () => (started = await starts()) >= kill,
        { timeoutMs: 60_000, intervalMs: 200, detail: () => `job.started events: ${started}\n${f.out()}` },
      );
      const pid = f.pidsOf('parse-worker').at(-1)!;
      process.kill(pid, 'SIGKILL');
      // the gateway keeps answering while the worker is down
      expect((await fetch(`http://127.0.0.1:${f.port}/readyz`)).status).toBe(200);
      expect((await c.files.job(fileId, jobId)).job.status).not.toBe('failed');
    }
    const done = await c.waitForJob(fileId, jobId, { timeoutMs: 240_000 });
    expect(done).toMatchObject({ status: 'completed', total_pages: 16, completed_pages: 16 });
    expect(f.out()).toMatch(/parse-worker\s*\| crashed; restart 3 in \d+ s/);
    expect(f.pidsOf('parse-worker').length).toBe(4);
    const debits = await t.db.ledgerEntry.findMany({ where: { org_id: orgId, job_id: jobId, kind: 'debit' } });
    expect(new Set(debits.map((d) => d.idempotency_key)).size).toBe(debits.length);
    expect(debits.length).toBe(16);
    expect(await t.db.creditReservation.findUniqueOrThrow({ where: { job_id: jobId } })).toMatchObject({
      status: 'committed',
      debited_credits: 16,
    });
    expect((await c.billing.credits()).credits.balance_credits).toBe(200 - 16);
    // the other services never restarted
    for (const s of ['gateway', 'index-worker', 'workflow-worker', 'billing']) expect(f.pidsOf(s).length).toBe(1);
    process.kill(-f.child.pid!, 'SIGTERM');
    expect((await f.exited).code).toBe(0);
  }, 420_000);

  it('stops everything with a clear message when a service crashes in a loop', async () => {
    const f = await startFleet({ START_CRASH_LOOP_LIMIT: '2', START_CRASH_LOOP_WINDOW_SECONDS: '60' });
    process.kill(f.pidsOf('index-worker')[0], 'SIGKILL');
    await waitUntil('the index worker restarted once', () => f.pidsOf('index-worker').length >= 2, {
      timeoutMs: 30_000,
      intervalMs: 200,
      detail: () => f.out(),
    });
    process.kill(f.pidsOf('index-worker')[1], 'SIGKILL');
    const how = await f.exited;
    expect(how.code).toBe(1);
    expect(f.out()).toMatch(/stopping every service: index-worker crashed 2 times within 60 s \(a crash loop\)/);
    await sleep(500);
    expect(f.pidsOf().filter(alive)).toEqual([]);
  }, 120_000);

  it('refuses invalid configuration with one line naming the variable', async () => {
    // As `pnpm start` runs a service (node --import tsx): pnpm's own start-up adds seconds on a busy machine.
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/gateway/src/main.ts'], {
      cwd: root,
      env: { ...process.env, PORT: 'eighty', DATABASE_URL: t.url },
    });
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(err.trim().split('\n')).toEqual([expect.stringMatching(/^invalid configuration: PORT: /)]);
  }, 60_000);
});
