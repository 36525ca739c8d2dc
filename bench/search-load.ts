// Latency probe for the search benchmark. Runs a list of requests from a worker thread, so the
// client's work never shares an event loop with the gateway under test (main thread). An item is
// either an HTTP search or the same search's SQL through node-postgres; mixing them in one list
// (A B A B …) makes both see the same background load on a shared machine.
//
// HTTP goes through node:http with a keep-alive agent (one socket per caller), not fetch: on this
// machine's 2 cores the client shares the CPU with the gateway and PostgreSQL, and fetch (undici)
// spent 1.1 ms of CPU per search against 0.35 ms for node:http (issue 22.5, docs/benchmarks.md).
// BENCH_PROBE_CLIENT=fetch measures with fetch as before.
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
  const http = require('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL(probe.url);
  const post = (path, body) => new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method: 'POST', agent,
      headers: { 'x-api-key': probe.key, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
  const one = async (item) => {
    if (item.kind === 'http') {
      const body = JSON.stringify(item.body);
      const r = workerData.client === 'fetch'
        ? await fetch(probe.url + item.path, { method: 'POST', headers: { 'x-api-key': probe.key, 'content-type': 'application/json' }, body }).then(async (x) => ({ status: x.status, text: await x.text() }))
        : await post(item.path, body);
      if (r.status !== 200) throw new Error('HTTP ' + r.status + ' ' + r.text.slice(0, 200));
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
  agent.destroy();
  parentPort.postMessage({ latencies, errors, seconds, firstError });
})().catch((e) => parentPort.postMessage({ latencies: { http: [], sql: [] }, errors: 1, seconds: 0, firstError: String(e && e.stack || e) }));
`;

export function runProbe(probe: Probe, concurrency: number): Promise<ProbeResult> {
  return new Promise((resolve, reject) => {
    const w = new Worker(WORKER, {
      eval: true,
      workerData: { probe, concurrency, root: path.resolve(__dirname, '..'), client: process.env.BENCH_PROBE_CLIENT },
    });
    w.once('message', (m: ProbeResult) => {
      void w.terminate();
      resolve(m);
    });
    w.once('error', reject);
  });
}
