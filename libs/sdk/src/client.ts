import type { IndexEnvelope, WebhookEventType } from './contract-types';
import { Transport, type Credentials, type RequestOptions, type TransportOptions } from './http';
import { poll, sleep as plainSleep, type PollingOptions } from './polling';
import { ApiKeys, Auth, Billing } from './resources/account';
import { Artifacts } from './resources/artifacts';
import { Events } from './resources/events';
import { Files } from './resources/files';
import { KnowledgeBases } from './resources/knowledge-bases';
import { Classify, Edit, Extract, Operations, Split } from './resources/workflows';
import type { Job, Operation, SearchBody, SearchResponse } from './types';

export interface DocfleetClientOptions extends TransportOptions {
  /** Defaults for the wait helpers (backoff and budget); each call may override them. */
  polling?: PollingOptions;
  /** Default of JobWaitOptions.jobEvents for waitForJob (true; false polls only). */
  jobEvents?: boolean;
}

export interface WaitOptions<T> extends PollingOptions {
  /** Called with every state polled, including the final one. */
  onProgress?: (state: T) => void;
  /** Limit for each poll request (the client's timeoutMs otherwise). */
  requestTimeoutMs?: number;
}

export interface JobWaitOptions extends WaitOptions<Job> {
  /**
   * Also listen on the event stream (GET /v1/events/stream, this file's job events and progress),
   * opened at the first wait (a job the first poll finds finished opens none) and closed before the
   * wait returns: a message announcing the job's end (its stored `*.job.*` event, or progress at
   * 100 %) ends the current wait between polls at once, so the end is seen when it happens rather
   * than up to a polling interval later. The job's own GET stays the only source of its state, and
   * polling continues on its schedule: a gateway without the stream, a refused (404/403) or dropped
   * stream or a lost message only means waiting as without it. Default: the client's `jobEvents`
   * option (true); `false` polls only (no stream request).
   */
  jobEvents?: boolean;
}

/** Event types about a job (the stored ends, and progress straight from the workers). */
const JOB_EVENT_TYPES = [
  'job.progress',
  'parse.job.completed',
  'parse.job.failed',
  'parse.job.cancelled',
  'extract.job.completed',
  'extract.job.failed',
  'extract.job.cancelled',
] satisfies Array<WebhookEventType | 'job.progress'>; // names checked against the contracts' list at compile time

/**
 * Whether a stream message may mean the job has ended: its stored end event, or progress whose
 * `status` is terminal (the worker's report of a job that completed, failed or was cancelled; a
 * server from before `status` said only a completed end, at 100 %). Other progress does not wake
 * the wait: a parse reports every page, and a GET per page would cost the gateway more than polling.
 */
function announcesEnd(event: string, message: unknown, jobId: string): boolean {
  const data = (message as { data?: { job_id?: unknown; percent?: unknown; status?: unknown } } | null)?.data;
  if (data?.job_id !== jobId) return false;
  if (event !== 'job.progress') return true;
  if (typeof data.status === 'string') return JOB_TERMINAL.has(data.status);
  return typeof data.percent === 'number' && data.percent >= 100;
}

/**
 * A wait that a ring ends early; a ring while nobody waits (a poll request in flight) ends the
 * next wait at once, so a message arriving between two polls is never slept through.
 */
class Doorbell {
  #rung = false;
  #wake: (() => void) | null = null;

  ring(): void {
    this.#rung = true;
    this.#wake?.();
  }

  async wait(ms: number, signal: AbortSignal | undefined, base: PollingOptions['sleep']): Promise<void> {
    if (this.#rung) {
      this.#rung = false;
      return;
    }
    const stop = new AbortController();
    const onAbort = () => stop.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      await Promise.race([
        (base ?? plainSleep)(ms, stop.signal).catch((err) => {
          if (signal?.aborted) throw err;
        }),
        new Promise<void>((resolve) => (this.#wake = resolve)),
      ]);
    } finally {
      this.#wake = null;
      this.#rung = false;
      signal?.removeEventListener('abort', onAbort);
      stop.abort();
    }
    signal?.throwIfAborted();
  }
}

const JOB_TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const OPERATION_TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * Typed client for the docfleet HTTP API. Every method returns the response body as the API
 * defines it; every non-2xx answer throws DocfleetApiError (branch on `code`).
 */
export class DocfleetClient {
  readonly knowledgeBases: KnowledgeBases;
  readonly files: Files;
  readonly artifacts: Artifacts;
  readonly extract: Extract;
  readonly operations: Operations;
  readonly split: Split;
  readonly classify: Classify;
  readonly edit: Edit;
  readonly billing: Billing;
  readonly auth: Auth;
  readonly apiKeys: ApiKeys;
  /** The live event stream (Server-Sent Events). */
  readonly events: Events;
  readonly #options: DocfleetClientOptions;
  readonly #http: Transport;

  constructor(options: DocfleetClientOptions) {
    this.#options = { ...options };
    const http = (this.#http = new Transport(options));
    this.knowledgeBases = new KnowledgeBases(http);
    this.files = new Files(http);
    this.artifacts = new Artifacts(http);
    this.extract = new Extract(http);
    this.operations = new Operations(http);
    this.split = new Split(http);
    this.classify = new Classify(http);
    this.edit = new Edit(http);
    this.billing = new Billing(http);
    this.auth = new Auth(http);
    this.apiKeys = new ApiKeys(http);
    this.events = new Events(http);
  }

  /** The base URL without trailing slashes. */
  get baseUrl(): string {
    return this.#http.baseUrl;
  }

  /** A client with the same settings and other credentials (e.g. the session from auth.login). */
  withCredentials(creds: Credentials): DocfleetClient {
    const { apiKey: _k, bearerToken: _t, orgId: _o, ...rest } = this.#options;
    return new DocfleetClient({ ...rest, ...creds });
  }

  /** Lexical full-text search over a knowledge base; no model, no credits. */
  search(kbId: string, body: SearchBody, o?: RequestOptions): Promise<SearchResponse> {
    return this.knowledgeBases.search(kbId, body, o);
  }

  /**
   * Polls a parse or extract job until completed, failed or cancelled, and returns it (it does not
   * throw on failure). Unless `jobEvents: false`, the event stream wakes the wait at the job's end.
   */
  async waitForJob(fileId: string, jobId: string, opts: JobWaitOptions = {}): Promise<Job> {
    const { jobEvents = this.#options.jobEvents ?? true, ...rest } = opts;
    const o = this.pollOptions(rest);
    const spec = {
      what: `job ${jobId}`,
      fetch: async () =>
        (await this.files.job(fileId, jobId, { signal: o.signal, timeoutMs: opts.requestTimeoutMs })).job,
      done: (j: Job) => JOB_TERMINAL.has(j.status),
      onProgress: opts.onProgress,
    };
    if (!jobEvents) return poll(spec, o);

    const bell = new Doorbell();
    const listening = new AbortController();
    const onAbort = () => listening.abort(o.signal?.reason);
    o.signal?.addEventListener('abort', onAbort, { once: true });
    // Opened at the first wait, not before the first poll: a job found finished costs no stream.
    let listen: Promise<void> | undefined;
    const startListening = () =>
      (listen ??= (async () => {
        const stream = this.events.stream({
          fileId,
          types: JOB_EVENT_TYPES,
          signal: listening.signal,
          // Whatever happened before the stream opened is read by the poll this ring starts.
          onOpen: () => bell.ring(),
        });
        for await (const e of stream) if (announcesEnd(e.event, e.data, jobId)) bell.ring();
      })().catch(() => undefined)); // no stream (an older gateway, a refusal, drops): polling alone
    try {
      const base = o.sleep;
      return await poll(spec, {
        ...o,
        sleep: (ms, signal) => {
          startListening();
          return bell.wait(ms, signal, base);
        },
      });
    } finally {
      o.signal?.removeEventListener('abort', onAbort);
      listening.abort();
      await listen;
    }
  }

  /** Polls an operation until completed, failed or cancelled, and returns it; `output` is set only when completed. */
  async waitForOperation<TOutput = unknown>(
    operationId: string,
    opts: WaitOptions<Operation<TOutput>> = {},
  ): Promise<Operation<TOutput>> {
    const o = this.pollOptions(opts);
    return poll(
      {
        what: `operation ${operationId}`,
        fetch: () => this.operations.get<TOutput>(operationId, { signal: o.signal, timeoutMs: opts.requestTimeoutMs }),
        done: (op) => OPERATION_TERMINAL.has(op.status),
        onProgress: opts.onProgress,
      },
      o,
    );
  }

  /**
   * Polls the knowledge-base index until `predicate` holds (the index is how the API means many
   * files to be watched), e.g. every file's latest parse job terminal. After the first poll it asks
   * conditionally (If-None-Match: index_version): an unchanged index answers 304 and the previous
   * envelope stands, so watching thousands of files stays cheap for the gateway.
   */
  async waitForIndex(
    kbId: string,
    predicate: (index: IndexEnvelope) => boolean,
    opts: WaitOptions<IndexEnvelope> & { folderId?: string } = {},
  ): Promise<IndexEnvelope> {
    const o = this.pollOptions(opts);
    const req = { folderId: opts.folderId, signal: o.signal, timeoutMs: opts.requestTimeoutMs };
    let last: IndexEnvelope | undefined;
    return poll(
      {
        what: `index of knowledge base ${kbId}`,
        fetch: async () => {
          const fresh = last
            ? await this.knowledgeBases.indexIfChanged(kbId, last.index_version, req)
            : await this.knowledgeBases.index(kbId, req);
          last = fresh ?? last;
          return last!;
        },
        done: predicate,
        onProgress: opts.onProgress,
      },
      o,
    );
  }

  private pollOptions(opts: PollingOptions): PollingOptions {
    const merged: PollingOptions = { ...this.#options.polling };
    for (const [k, v] of Object.entries(opts)) if (v !== undefined) (merged as Record<string, unknown>)[k] = v;
    return merged;
  }
}
