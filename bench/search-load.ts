// Latency probe for the search benchmark. Runs a list of requests from a worker thread, so the
// client's work never shares an event loop with the gateway under test (main thread). An item is
// either an HTTP search or the same search's SQL through node-postgres; mixing them in one list
// (A B A B …) makes both see the same background load on a shared machine.
import path from 'node:path';
import { Worker } from 'node:worker_threads';

export type ProbeItem =
  { kind: 'http'; path: string; body: unknown } | { kind: 'sql'; text: string; values: unknown[] };

export interface Probe {
  url: string;
  key: string;
  databaseUrl: string;
  items: ProbeItem[];
}

export interface ProbeResult {
  latencies: Record<'http' | 'sql', number[]>;
  errors: number;
  seconds: number;
  firstError?: string;
}

// Plain CommonJS so the worker needs no TypeScript loader; `pg` is resolved from the repository.
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createRequire } = require('node:module');
const req = createRequire(workerData.root + '/package.json');
(async () => {
  const { probe, concurrency } = workerData;
  const latencies = { http: [], sql: [] }; let errors = 0; let firstError;
  const pg = req('pg');
  const pool = new pg.Pool({ connectionString: probe.databaseUrl, max: concurrency });
  const one = async (item) => {
    if (item.kind === 'http') {
      const r = await fetch(probe.url + item.path, { method: 'POST', headers: { 'x-api-key': probe.key, 'content-type': 'application/json' }, body: JSON.stringify(item.body) });
      const text = await r.text();
      if (r.status !== 200) throw new Error('HTTP ' + r.status + ' ' + text.slice(0, 200));
    } else {
      await pool.query(item.text, item.values);
    }
  };
  // warm-up: the first 20 items, unmeasured
  for (const item of probe.items.slice(0, 20)) await one(item).catch(() => {});
  let next = 0;
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < probe.items.length) {
      const item = probe.items[next++];
      const s = process.hrtime.bigint();
      try { await one(item); latencies[item.kind].push(Number(process.hrtime.bigint() - s) / 1e6); }
      catch (e) { errors++; firstError = firstError || String(e && e.message || e); }
    }
  }));
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  await pool.end();
  parentPort.postMessage({ latencies, errors, seconds, firstError });
})().catch((e) => parentPort.postMessage({ latencies: { http: [], sql: [] }, errors: 1, seconds: 0, firstError: String(e && e.stack || e) }));
`;

export function runProbe(probe: Probe, concurrency: number): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, {
      eval: true,
      workerData: { probe, concurrency, root: path.resolve(__dirname, '..') },
    });
    w.once('message', (m: ProbeResult) => {
      void w.terminate();
      resolve(m);
    });
    w.once('error', reject);
  });
}
