// Parses uploaded files through the real fleet: the parse worker and the index worker run as their
// own processes (their main.ts, started by libs/testing) on the gateway's database, storage and
// queue prefix; files are queued with POST /v1/files/{id}/parse and watched through the jobs endpoint and the index state.
import { spawnWorker, type WorkerProcess, type WorkerTarget } from '../../libs/testing/src';

type Gateway = WorkerTarget & {
  url: string;
  db: { evidenceIndexSegment: { groupBy(args: object): Promise<unknown[]> } };
  req<T = any>(method: string, p: string, o?: { key?: string; body?: unknown }): Promise<{ status: number; body: T }>;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A worker process (libs/testing) on the gateway's stores, its output relayed line by line to `log`. */
async function startService(name: string, gw: Gateway, log: (s: string) => void): Promise<WorkerProcess> {
  const w = await spawnWorker(gw, { LOG_LEVEL: 'warn' }, name);
  const relay = (d: Buffer) =>
    d
      .toString()
      .split('\n')
      .filter(Boolean)
      .forEach((l) => log(`${name}| ${l.slice(0, 300)}`));
  w.child.stdout!.on('data', relay);
  w.child.stderr!.on('data', relay);
  return w;
}

async function stop(w: WorkerProcess) {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return;
  w.child.kill('SIGTERM');
  await Promise.race([w.exited, sleep(30_000)]);
  if (w.child.exitCode === null && w.child.signalCode === null) w.child.kill('SIGKILL');
}

export async function fleetParse(
  gw: Gateway,
  key: string,
  fileIds: string[],
  log: (s: string) => void,
  timeoutMs = 15 * 60_000,
): Promise<{ completed: string[]; failed: Array<{ fileId: string; error: string }> }> {
  const services = await Promise.all([startService('parse-worker', gw, log), startService('index-worker', gw, log)]);
  try {
    const jobs = new Map<string, string>();
    for (const id of fileIds) {
      const r = await gw.req('POST', `/v1/files/${id}/parse`, { key, body: {} });
      if (r.status !== 202) throw new Error(`parse ${id}: ${r.status} ${JSON.stringify(r.body)}`);
      jobs.set(id, r.body.job.job_id ?? r.body.job.id);
    }
    const deadline = Date.now() + timeoutMs;
    const completed: string[] = [];
    const failed: Array<{ fileId: string; error: string }> = [];
    const pending = new Set(fileIds);
    while (pending.size && Date.now() < deadline) {
      for (const id of [...pending]) {
        const r = await gw.req('GET', `/v1/files/${id}/jobs/${jobs.get(id)}`, { key });
        const status = r.body?.job?.status;
        if (status === 'completed') completed.push(id);
        else if (status === 'failed' || status === 'cancelled') failed.push({ fileId: id, error: r.body.job.error });
        else continue;
        pending.delete(id);
      }
      if (pending.size) await sleep(500);
    }
    if (pending.size) throw new Error(`${pending.size} parses did not finish in time`);
    log(`parsed ${completed.length}, failed ${failed.length}${failed.length ? `: ${JSON.stringify(failed)}` : ''}`);
    // The index worker picks up each completed parse; wait until every completed file has segments.
    // (A parse can yield no segment at all, so also stop once the count has not moved for 5 s.)
    const want = new Set(completed);
    let last = -1;
    let since = Date.now();
    while (Date.now() < deadline) {
      const rows = (await gw.db.evidenceIndexSegment.groupBy({
        by: ['file_id'],
        where: { file_id: { in: [...want] } },
      })) as Array<{ file_id: string }>;
      if (rows.length >= want.size) break;
      if (rows.length !== last) [last, since] = [rows.length, Date.now()];
      else if (Date.now() - since > 5000) break;
      await sleep(300);
    }
    return { completed, failed };
  } finally {
    await Promise.all(services.map(stop));
  }
}
