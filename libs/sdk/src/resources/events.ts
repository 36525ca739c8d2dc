// GET /v1/events/stream (Server-Sent Events) as an async iterator. A dropped connection is
// reopened with the last event id seen, so stored events are never missed across reconnects
// (job.progress is advisory and carries no id); each reopen waits the server's `retry:` delay.
import type { EventStreamMessage } from '../contract-types';
import { DocfleetRequestError } from '../errors';
import type { Transport } from '../http';
import { sleep } from '../polling';

export interface StreamedEvent {
  /** Stream position (the SSE `id:`); null for job.progress, which is never stored. */
  id: string | null;
  /** The event type (`parse.job.completed`, `job.progress`, …). */
  event: string;
  data: EventStreamMessage;
}

export interface EventStreamOptions {
  knowledgeBaseId?: string;
  fileId?: string;
  /** Event types wanted (plus `job.progress`); all when absent. */
  types?: string[];
  /** Resume after this event id (its events are replayed first). */
  lastEventId?: string;
  signal?: AbortSignal;
  /** Reopens after a dropped connection before giving up (default 5; 0 never reopens). */
  maxReconnects?: number;
  /** Called when the stream is open (its headers arrived): a caller may start what it waits on. */
  onOpen?: () => void;
}

/**
 * Parses an SSE byte stream into messages (comments and blank data are skipped). When `signal`
 * aborts, the reader is cancelled, which ends a pending read at once: fetch does not always error
 * the body of an answer whose headers had arrived (a stream waiting for its next event then hung
 * for good after its caller had stopped listening).
 */
export async function* parseEventStream(
  body: ReadableStream<Uint8Array>,
  onRetry?: (ms: number) => void,
  signal?: AbortSignal,
): AsyncGenerator<{ id: string | null; event: string; data: string }> {
  const decoder = new TextDecoder();
  let buf = '';
  let id: string | null = null;
  let event = '';
  let data: string[] = [];
  const reader = body.getReader();
  const stop = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', stop, { once: true });
  if (signal?.aborted) stop();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf[nl] === '\r' && buf[nl + 1] === '\n' ? 2 : 1));
        if (line === '') {
          if (data.length) yield { id, event: event || 'message', data: data.join('\n') };
          id = null;
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'data') data.push(val);
        else if (field === 'event') event = val;
        else if (field === 'id') id = val;
        else if (field === 'retry' && /^\d+$/.test(val)) onRetry?.(Number(val));
      }
    }
  } finally {
    signal?.removeEventListener('abort', stop);
    reader.releaseLock();
    await body.cancel().catch(() => undefined);
  }
}

export class Events {
  constructor(private readonly http: Transport) {}

  /**
   * The organisation's live events (filtered), until `signal` aborts or the reconnects run out.
   * An answer other than 200 (bad filter, unknown knowledge base) throws DocfleetApiError at once,
   * and a 200 that is not text/event-stream DocfleetRequestError `invalid_response`.
   */
  async *stream(o: EventStreamOptions = {}): AsyncGenerator<StreamedEvent> {
    let last = o.lastEventId;
    let retryMs = 2000;
    let reconnects = 0;
    const max = o.maxReconnects ?? 5;
    for (;;) {
      try {
        const res = await this.http.request<ReadableStream<Uint8Array>>({
          method: 'GET',
          path: '/v1/events/stream',
          query: {
            knowledge_base_id: o.knowledgeBaseId,
            file_id: o.fileId,
            types: o.types?.length ? o.types.join(',') : undefined,
          },
          headers: last ? { 'last-event-id': last } : undefined,
          response: 'stream',
          timeoutMs: 0,
          signal: o.signal,
        });
        // A 200 that is not an event stream (a proxy's or an older server's page) is no stream:
        // refused at once, like an error answer, rather than read, found empty and reopened.
        const ct = res.headers.get('content-type') ?? '';
        if (!/^text\/event-stream\b/i.test(ct)) {
          await res.data?.cancel().catch(() => undefined);
          throw new DocfleetRequestError({
            code: 'invalid_response',
            method: 'GET',
            path: '/v1/events/stream',
            reason: `expected text/event-stream, got ${ct || 'no content type'}`,
          });
        }
        reconnects = 0;
        o.onOpen?.();
        const messages = parseEventStream(res.data, (ms) => (retryMs = ms), o.signal);
        try {
          for (;;) {
            let next: IteratorResult<{ id: string | null; event: string; data: string }>;
            try {
              next = await messages.next();
            } catch (err) {
              if (o.signal?.aborted) return;
              // The connection was cut while the body streamed (fetch's `TypeError: terminated`, a
              // reset): a dropped connection like one refused before its answer, so it is reopened
              // from the last event id, not ended (a caller would otherwise give up on the stream).
              throw new DocfleetRequestError({
                code: 'network_error',
                method: 'GET',
                path: '/v1/events/stream',
                reason: `the event stream was cut (${(err as Error)?.message ?? String(err)})`,
              });
            }
            if (next.done) break;
            const m = next.value;
            if (m.id) last = m.id;
            yield { id: m.id, event: m.event, data: JSON.parse(m.data) as EventStreamMessage };
          }
        } finally {
          await messages.return(undefined);
        }
      } catch (err) {
        if (o.signal?.aborted) return;
        // A refusal (an error answer) ends the iteration; only a dropped connection is reopened.
        if (!(err instanceof DocfleetRequestError) || err.code === 'invalid_response') throw err;
        if (reconnects >= max) throw err;
      }
      if (o.signal?.aborted) return;
      if (reconnects++ >= max)
        throw new DocfleetRequestError({
          code: 'network_error',
          method: 'GET',
          path: '/v1/events/stream',
          reason: 'the event stream kept closing',
        });
      await sleep(retryMs, o.signal).catch(() => undefined);
      if (o.signal?.aborted) return;
    }
  }
}
