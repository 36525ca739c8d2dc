// One HTTP POST to a receiver: to the address that passed the URL policy (no second DNS answer),
// no redirects followed (a 3xx is a failed attempt), at most WEBHOOK_TIMEOUT_MS, at most
// WEBHOOK_MAX_RESPONSE_BYTES of the answer read.
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { CheckedUrl } from '@docfleet/webhooks';

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

export function send(
  target: CheckedUrl,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; maxResponseBytes: number },
): Promise<SendResult> {
  const t0 = performance.now();
  const pinned = target.addresses[0]!;
  // Connect to the checked address whatever the resolver would say now (DNS rebinding).
  const lookup: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all) (cb as any)(null, [pinned]);
    else cb(null, pinned.address, pinned.family);
  };
  const secure = target.url.protocol === 'https:';
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const done = (r: Omit<SendResult, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, durationMs: Math.round(performance.now() - t0) });
    };
    const req = (secure ? https : http).request(
      target.url,
      {
        method: 'POST',
        lookup,
        agent: secure ? agents.https : agents.http,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'docfleet-webhooks/1',
          ...headers,
        },
      },
      (res) => {
        const status = res.statusCode ?? 0;
        let read = 0;
        const finish = () =>
          done({
            ok: status >= 200 && status < 300,
            statusCode: status,
            error:
              status >= 200 && status < 300 ? null : status >= 300 && status < 400 ? 'redirect not followed' : null,
          });
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (read > opts.maxResponseBytes) {
            // Enough: the status is what counts. Stop reading and drop the connection.
            finish();
            res.destroy();
          }
        });
        res.on('end', finish);
        res.on('error', () => finish());
        res.on('close', finish);
      },
    );
    const timer = setTimeout(() => {
      done({ ok: false, statusCode: null, error: `no answer within ${opts.timeoutMs} ms` });
      req.destroy();
    }, opts.timeoutMs);
    req.on('error', (err) => done({ ok: false, statusCode: null, error: err.message.slice(0, 500) }));
    req.end(body);
  });
}
