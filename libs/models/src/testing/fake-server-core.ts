// Shared plumbing of the fake provider servers: a node:http server on 127.0.0.1:0 that records
// requests and plays a script of queued replies (falling back to a default reply builder).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface ScriptedReply<T> {
  /** HTTP status for an error reply (with `error`), default 200. */
  status?: number;
  headers?: Record<string, string>;
  /** Wait before answering (tests timeouts). */
  delayMs?: number;
  /** Drop the connection without answering (tests connection errors). */
  destroy?: boolean;
  /** Raw body text (tests malformed bodies). */
  rawBody?: string;
  /** Structured reply content; meaning depends on the server. */
  reply?: T;
  /** Error type/message for status >= 400. */
  error?: { type?: string; message?: string; code?: string };
}

export interface FakeServer<T> {
  url: string;
  port: number;
  requests: RecordedRequest[];
  /** Queue replies; each request takes the next one, then the default. */
  enqueue(...replies: Array<ScriptedReply<T>>): void;
  reset(): void;
  close(): Promise<void>;
}

export async function startFakeServer<T>(
  routes: Partial<
    Record<
      string,
      (
        req: RecordedRequest,
        scripted: ScriptedReply<T> | undefined,
      ) => { status: number; headers?: Record<string, string>; body: unknown }
    >
  >,
): Promise<FakeServer<T>> {
  const queue: Array<ScriptedReply<T>> = [];
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let body: Record<string, unknown> = {};
        try {
          body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : {};
        } catch {
          body = { __invalid_json: true };
        }
        const path = (req.url ?? '/').split('?')[0]!;
        const rec: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
        requests.push(rec);
        const route = routes[`${rec.method} ${path}`];
        const scripted = route ? queue.shift() : undefined;
        if (scripted?.delayMs) await new Promise((r) => setTimeout(r, scripted.delayMs));
        if (scripted?.destroy) {
          req.socket.destroy();
          return;
        }
        if (res.destroyed || req.socket.destroyed) return;
        if (!route) {
          res
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ error: { type: 'not_found_error', message: `no route ${rec.method} ${path}` } }));
          return;
        }
        if (scripted?.rawBody !== undefined) {
          res
            .writeHead(scripted.status ?? 200, { 'content-type': 'application/json', ...scripted.headers })
            .end(scripted.rawBody);
          return;
        }
        const out = route(rec, scripted);
        res
          .writeHead(out.status, { 'content-type': 'application/json', ...out.headers, ...scripted?.headers })
          .end(JSON.stringify(out.body));
      })();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    enqueue: (...r) => {
      queue.push(...r);
    },
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        sockets.forEach((s) => s.destroy());
        server.close(() => resolve());
      }),
  };
}
