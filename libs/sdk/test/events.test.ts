// events.stream (GET /v1/events/stream) against scripted answers: a connection cut while the body
// streams (fetch's `TypeError: terminated`) is reopened from the last event id, like one refused
// before its answer, instead of ending the iteration (which sent `parse --watch` to polling).
import { DocfleetClient } from '../src';
import { scriptedFetch } from './helpers';

const enc = new TextEncoder();
const sse = (id: number, type: string) =>
  `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ id: `e${id}`, type })}\n\n`;

/** An SSE answer that sends `chunks`, then is cut (errors) or stays open until the request is aborted (as fetch does). */
function stream(chunks: string[], end: 'cut' | 'open', signal?: AbortSignal | null): Response {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
      c.enqueue(enc.encode('retry: 5\n: connected\n\n'));
      for (const x of chunks) c.enqueue(enc.encode(x));
      if (end === 'cut') setTimeout(() => c.error(new TypeError('terminated')), 10);
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

it('reopens a stream cut mid-body from the last event id, and calls onOpen again', async () => {
  const { fetch, calls } = scriptedFetch(
    () => stream([sse(5, 'parse.job.started')], 'cut'),
    (r) => stream([sse(6, 'parse.job.completed')], 'open', r.init.signal),
  );
  const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_events_key', fetch });
  const ctl = new AbortController();
  let opens = 0;
  const seen: string[] = [];
  for await (const e of client.events.stream({ signal: ctl.signal, onOpen: () => opens++ })) {
    seen.push(`${e.id} ${e.event}`);
    if (seen.length === 2) ctl.abort();
  }
  expect(seen).toEqual(['5 parse.job.started', '6 parse.job.completed']);
  expect(calls).toHaveLength(2);
  expect(calls[0]!.headers['last-event-id']).toBeUndefined();
  expect(calls[1]!.headers['last-event-id']).toBe('5');
  expect(opens).toBe(2);
});

it('gives up after maxReconnects cuts in a row with a network_error', async () => {
  const { fetch, calls } = scriptedFetch(() => stream([], 'cut'));
  const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_events_key', fetch });
  const iterate = async () => {
    for await (const _ of client.events.stream({ maxReconnects: 0 })) void _;
  };
  await expect(iterate()).rejects.toMatchObject({ code: 'network_error' });
  expect(calls).toHaveLength(1);
});

it('ends at once when the signal aborts, even while a read waits on a body that ignores the abort', async () => {
  // A body fetch did not error on abort (seen: `upload --parse --watch` hung after its jobs had ended).
  const { fetch } = scriptedFetch(() => stream([sse(7, 'parse.job.started')], 'open', null));
  const client = new DocfleetClient({ baseUrl: 'http://docfleet.test', apiKey: 'dfk_events_key', fetch });
  const ctl = new AbortController();
  const seen: string[] = [];
  const started = Date.now();
  const iterate = (async () => {
    for await (const e of client.events.stream({ signal: ctl.signal })) {
      seen.push(`${e.id} ${e.event}`);
      setTimeout(() => ctl.abort(), 20); // while the next read is pending
    }
  })();
  let guard: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      iterate,
      new Promise((_, reject) => (guard = setTimeout(() => reject(new Error('still reading')), 3000))),
    ]);
  } finally {
    clearTimeout(guard); // the guard itself is no open handle once the stream has ended
  }
  expect(seen).toEqual(['7 parse.job.started']);
  expect(Date.now() - started).toBeLessThan(3000);
});
