// A webhook receiver on loopback for tests and benches: records every request (raw body and
// headers) and answers what the test says (a status, a delay, or nothing at all).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook {
  body: string;
  headers: IncomingHttpHeaders;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  port: number;
  /** Accepted requests (2xx answers). */
  received: ReceivedHook[];
  /** Every request, whatever it was answered. */
  attempts: ReceivedHook[];
  /** What the next requests get: a status (default 200) and a delay before answering. */
  respond: (r: { status?: number; delayMs?: number }) => void;
  /** Resolves once `n` requests arrived (optionally matching `filter`), or rejects after `timeoutMs`. */
  waitFor(n: number, timeoutMs?: number, filter?: (h: ReceivedHook) => boolean): Promise<ReceivedHook[]>;
  /** Stops listening (connections refused) until start() again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const received: ReceivedHook[] = [];
  const attempts: ReceivedHook[] = [];
  let answer: { status?: number; delayMs?: number } = {};
  const waiters = new Set<() => void>();
  let server: Server;
  const make = () =>
    createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const { status = 200, delayMs = 0 } = answer;
        const hook = { body: Buffer.concat(chunks).toString('utf8'), headers: req.headers, at: Date.now() };
        attempts.push(hook);
        const reply = () => {
          if (status < 300) {
            received.push({ ...hook, at: Date.now() });
            for (const w of waiters) w();
          }
          res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'nope');
        };
        if (delayMs) setTimeout(reply, delayMs);
        else reply();
      });
    });
  const listen = () =>
    new Promise<void>((resolve) => {
      server = make();
      server.keepAliveTimeout = 1000;
      server.listen(port, '127.0.0.1', () => {
        port = (server.address() as AddressInfo).port;
        resolve();
      });
    });
  await listen();
  const r: WebhookReceiver = {
    get url() {
      return `http://127.0.0.1:${port}/hook`;
    },
    get port() {
      return port;
    },
    received,
    attempts,
    respond: (a) => void (answer = a),
    waitFor(n, timeoutMs = 30_000, filter = () => true) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const got = received.filter(filter);
          if (got.length >= n) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(got);
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`only ${received.filter(filter).length} of ${n} webhooks arrived within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    start: listen,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return r;
}
