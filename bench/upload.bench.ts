// Upload throughput of one 50 MiB PDF through POST /v1/files (multipart, streamed both ways),
// beside copies of the same bytes on the same disk in the same run.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform } from 'node:stream';
import { Worker } from 'node:worker_threads';
import { pipeline } from 'node:stream/promises';
import { median, round, startBenchGateway, withSlowdown, type Row } from './lib';

export const name = 'upload';

const MIB = 1024 * 1024;
const SIZE = 50 * MIB;
/** Measured repetitions per case, after one unmeasured round. */
const REPS = Number(process.env.BENCH_REPS ?? 15);
const CHUNK = 64 * 1024;

/**
 * The HTTP client, in a worker thread so that it does not share the event loop with the gateway
 * under test: on request it streams a multipart/form-data body (the given fields, then the shared
 * buffer as field 'file') to the target URL in 64 KiB writes, and answers with the status and reply.
 */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { request } = require('node:http');
const { randomBytes } = require('node:crypto');
const { Readable } = require('node:stream');
const { pipeline } = require('node:stream/promises');
const data = Buffer.from(workerData.shared);
parentPort.on('message', ({ target, key, fields, filename }) => {
  const boundary = '----docfleetbench' + randomBytes(12).toString('hex');
  const head = Object.entries(fields).map(([k, v]) => '--' + boundary + '\\r\\nContent-Disposition: form-data; name="' + k + '"\\r\\n\\r\\n' + v + '\\r\\n').join('')
    + '--' + boundary + '\\r\\nContent-Disposition: form-data; name="file"; filename="' + filename + '"\\r\\nContent-Type: application/pdf\\r\\n\\r\\n';
  const tail = '\\r\\n--' + boundary + '--\\r\\n';
  function* parts() {
    yield Buffer.from(head);
    for (let off = 0; off < data.length; off += ${CHUNK}) yield data.subarray(off, off + ${CHUNK});
    yield Buffer.from(tail);
  }
  const length = Buffer.byteLength(head) + data.length + Buffer.byteLength(tail);
  const fail = (err) => parentPort.postMessage({ status: 0, body: String(err && err.message) });
  const req = request(target, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'multipart/form-data; boundary=' + boundary, 'content-length': String(length) },
  }, (res) => {
    const chunks = [];
    res.on('data', (c) => chunks.push(c));
    res.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body = text;
      try { body = JSON.parse(text); } catch {}
      parentPort.postMessage({ status: res.statusCode, body });
    });
    res.on('error', fail);
  });
  req.on('error', fail);
  pipeline(Readable.from(parts()), req).catch(fail);
});
`;

function startClient(data: Buffer) {
  const shared = new SharedArrayBuffer(data.length);
  data.copy(Buffer.from(shared));
  const worker = new Worker(CLIENT, { eval: true, workerData: { shared } });
  return {
    /** POSTs the multipart body to `target` (a full URL). */
    upload(target: string, key: string, fields: Record<string, string>, filename: string) {
      return new Promise<{ status: number; body: any }>((resolve, reject) => {
        const onError = (err: Error) => reject(err);
        worker.once('error', onError);
        worker.once('message', (m: { status: number; body: any }) => {
          worker.off('error', onError);
          resolve(m);
        });
        worker.postMessage({ target, key, fields, filename });
      });
    },
    close: () => worker.terminate(),
  };
}

/** Seconds fn took; then its cleanup, untimed. */
async function timed(fn: () => Promise<() => Promise<unknown>>): Promise<number> {
  const t0 = process.hrtime.bigint();
  const cleanup = await fn();
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  await cleanup();
  return s;
}

export async function run(): Promise<Row[]> {
  const gw = await startBenchGateway({ MAX_UPLOAD_BYTES: String(256 * MIB) });
  const scratch = path.join(gw.dataDir, 'bench-copies');
  let client: ReturnType<typeof startClient> | undefined;
  let bare: Server | undefined;
  try {
    const { key } = await gw.createOrg({ credits: 10 });
    const kbId = (await gw.createKnowledgeBase(key, 'Bench uploads')).id;

    const data = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(SIZE - 9)]);
    const sha256 = createHash('sha256').update(data).digest('hex');
    // The copies read this file and write next to the gateway's storage (same directory tree, same disk).
    const src = path.join(gw.dataDir, 'bench-source.pdf');
    await writeFile(src, data);
    await mkdir(scratch, { recursive: true });
    client = startClient(data);

    // Attribution: the same client against a bare node:http server in this process, which either
    // drops the body (loopback transport alone) or hands the raw body to the gateway's own
    // storage.putStream (sha256 + disk, no multipart parsing, no express, no database).
    bare = createServer((req, res) => {
      const done = (status: number, body: object) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/discard') {
        req.resume();
        req.on('end', () => done(201, {}));
      } else {
        gw.deps.storage.putStream(`staging/bench/${randomBytes(6).toString('hex')}`, req, { maxBytes: 256 * MIB }).then(
          (r) => done(201, r),
          (err: Error) => done(500, { error: err.message }),
        );
      }
    });
    await new Promise<void>((r) => bare!.listen(0, '127.0.0.1', r));
    const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

    let n = 0;
    const cases: Array<{
      label: string;
      note: string;
      baseline?: boolean;
      once: () => Promise<() => Promise<unknown>>;
    }> = [
      {
        label: 'stream copy, read stream -> write stream (baseline)',
        note: 'fs.createReadStream piped to fs.createWriteStream',
        baseline: true,
        once: async () => {
          const dst = path.join(scratch, `stream-${n}`);
          await pipeline(createReadStream(src), createWriteStream(dst));
          return () => rm(dst);
        },
      },
      {
        label: 'fs.copyFile',
        note: 'kernel-side copy',
        once: async () => {
          const dst = path.join(scratch, `copy-${n}`);
          await copyFile(src, dst);
          return () => rm(dst);
        },
      },
      {
        label: 'stream copy + sha256',
        note: 'what storage.putStream adds: hashing every chunk',
        once: async () => {
          const dst = path.join(scratch, `hash-${n}`);
          const hash = createHash('sha256');
          const t = new Transform({
            transform(c: Buffer, _e, cb) {
              hash.update(c);
              cb(null, c);
            },
          });
          await pipeline(createReadStream(src), t, createWriteStream(dst));
          if (hash.digest('hex') !== sha256) throw new Error('hash mismatch in the copy');
          return () => rm(dst);
        },
      },
      {
        label: 'HTTP POST to a bare server, body dropped',
        note: 'loopback transport alone',
        once: async () => {
          const r = await client!.upload(`${bareUrl}/discard`, key, {}, 'x.pdf');
          if (r.status !== 201) throw new Error(`bare server answered ${r.status}`);
          return async () => undefined;
        },
      },
      {
        label: 'HTTP POST to a bare server -> storage.putStream',
        note: 'raw body -> sha256 -> disk, no multipart parsing',
        once: async () => {
          const r = await client!.upload(`${bareUrl}/store`, key, {}, 'x.pdf');
          if (r.status !== 201 || !(r.body.byteSize > SIZE))
            throw new Error(`bare server answered ${r.status}: ${JSON.stringify(r.body)}`);
          return () => gw.deps.storage.removePrefix(r.body.key);
        },
      },
      {
        label: 'POST /v1/files, 50 MiB PDF',
        note: 'multipart over loopback HTTP from a worker thread; multer/busboy -> sha256 -> disk, then DB rows',
        once: async () => {
          const r = await client!.upload(
            `${gw.url}/v1/files`,
            key,
            { knowledge_base_id: kbId, filename: `big-${n}.pdf` },
            `big-${n}.pdf`,
          );
          if (r.status !== 201) throw new Error(`upload answered ${r.status}: ${JSON.stringify(r.body).slice(0, 300)}`);
          const file = r.body.file;
          if (file.current_version.byte_size !== SIZE)
            throw new Error(`stored ${file.current_version.byte_size} bytes, sent ${SIZE}`);
          const v = await gw.db.fileVersion.findUniqueOrThrow({ where: { id: file.current_version.id } });
          if (v.sha256 !== sha256) throw new Error('stored sha256 differs from the bytes sent');
          const onDisk = await stat(gw.deps.storage.localPath(v.storage_path));
          if (onDisk.size !== SIZE) throw new Error(`file on disk has ${onDisk.size} bytes`);
          // Like the copies, the stored bytes go again before the next case (untimed).
          return () => gw.req('DELETE', `/v1/files/${file.id}/permanent?confirm_permanent=true`, { key });
        },
      },
    ];

    // Round-robin: one unmeasured round, then REPS rounds of every case in turn, so background
    // load and disk write-back hit every case alike.
    const seconds: number[][] = cases.map(() => []);
    for (let rep = 0; rep <= REPS; rep++) {
      for (const [i, c] of cases.entries()) {
        n++;
        const s = await timed(c.once);
        if (rep > 0) seconds[i].push(s);
      }
    }

    return withSlowdown(
      cases.map((c, i) => {
        const med = median(seconds[i]);
        return {
          case: c.label,
          ...(c.baseline ? { baseline: true } : {}),
          throughput: round(SIZE / MIB / med, 1),
          unit: 'MiB/s',
          p50_ms: round(med * 1000, 0),
          samples: seconds[i].length,
          note: c.note,
          extra: {
            bytes: SIZE,
            seconds: seconds[i].map((s) => round(s, 4)),
            mib_per_s: seconds[i].map((s) => round(SIZE / MIB / s, 1)),
          },
        } satisfies Row;
      }),
    );
  } finally {
    await client?.close();
    if (bare) await new Promise((r) => bare!.close(r));
    await gw.close();
  }
}
