import { spawnGateway, type GatewayProcess } from '@docfleet/testing';
import type { FetchLike } from '../src/http';

/** Corpus files are read in place, never modified. */
export { corpus } from '@docfleet/testing';

/** The real gateway (libs/testing: a process over its own database, storage and queue prefix). */
export const startGateway = (env: Record<string, string> = {}) => spawnGateway({ env });
export type Gateway = GatewayProcess;

export interface Recorded {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: unknown;
  init: RequestInit;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

/**
 * A fetch that records every request and answers from a script (one responder per call, the last
 * one repeating): for the endpoints whose gateway routes have not landed yet, and for fault cases.
 */
export function scriptedFetch(...responders: Array<(r: Recorded) => Response | Promise<Response>>) {
  const calls: Recorded[] = [];
  const fetch: FetchLike = async (input, init) => {
    const headers: Record<string, string> = {};
    new Headers(init.headers as Record<string, string>).forEach((v, k) => (headers[k] = v));
    let body: unknown = init.body;
    if (typeof init.body === 'string')
      body = headers['content-type']?.startsWith('application/json') ? JSON.parse(init.body) : init.body;
    const rec: Recorded = { method: init.method ?? 'GET', url: new URL(input), headers, body, init };
    calls.push(rec);
    const respond = responders[Math.min(calls.length - 1, responders.length - 1)];
    return respond(rec);
  };
  return { fetch, calls };
}

/** A fake clock for the pollers: sleep advances time instantly and records each wait. */
export function fakeClock(onSleep?: (ms: number, n: number) => void | Promise<void>) {
  let t = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => t,
    sleep: async (ms: number) => {
      sleeps.push(ms);
      t += ms;
      await onSleep?.(ms, sleeps.length);
    },
  };
}
