import { DocfleetApiError, DocfleetRequestError, redact, redactValue } from './errors';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface Credentials {
  /** Organisation API key, sent as `x-api-key`. */
  apiKey?: string;
  /** Session token from `auth.login`, sent as `authorization: Bearer`. */
  bearerToken?: string;
  /** Sent as `x-service-org-id`; required with a session, optional (must match) with a key. */
  orgId?: string;
}

export interface TransportOptions extends Credentials {
  baseUrl: string;
  fetch?: FetchLike;
  /** Per-request limit in ms covering the whole exchange (0 disables). */
  timeoutMs?: number;
  userAgent?: string;
}

/** Per-call controls every method accepts as its last argument. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's timeoutMs for this call (0 disables). */
  timeoutMs?: number;
  /** Sent as `x-request-id`; the gateway echoes it in logs and error envelopes. */
  requestId?: string;
}

export type Query = Record<string, string | number | boolean | null | undefined>;

/** `stream`: the body unread (a ReadableStream), for answers that never end (the event stream). */
export type ResponseKind = 'json' | 'buffer' | 'auto' | 'stream';

export interface HttpRequest extends RequestOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query;
  json?: unknown;
  /** A prepared body (multipart); `contentType` goes with it when the body does not set its own. */
  body?: RequestBody;
  contentType?: string;
  response?: ResponseKind;
  /** Extra request headers (e.g. If-None-Match). */
  headers?: Record<string, string>;
  /** Accept 304 Not Modified as a success with `data: null` (conditional requests). */
  notModifiedOk?: boolean;
}

/** What fetch accepts as a body in Node and in browsers (Node's fetch also streams async iterables). */
export type RequestBody = NonNullable<RequestInit['body']> | AsyncIterable<Uint8Array>;

export interface HttpResponse<T> {
  status: number;
  headers: Headers;
  data: T;
}

/** Synchronous workflows hold the connection for the whole model call, so the default is generous. */
export const DEFAULT_TIMEOUT_MS = 5 * 60_000;

/** Encodes interpolated path segments: an id can never change which route a call reaches. */
export function path(strings: TemplateStringsArray, ...values: Array<string | number>): string {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? encodeURIComponent(String(values[i])) : ''), '');
}

/**
 * The one place requests are made: base URL, auth headers, timeout, response decoding, and the
 * mapping of every failure to DocfleetApiError / DocfleetRequestError with credentials scrubbed.
 * Credentials live in private fields so neither inspect() nor JSON shows them.
 */
export class Transport {
  readonly baseUrl: string;
  readonly timeoutMs: number;
  readonly userAgent: string;
  readonly orgId: string | undefined;
  readonly #apiKey: string | undefined;
  readonly #bearerToken: string | undefined;
  readonly #fetch: FetchLike;

  constructor(opts: TransportOptions) {
    if (!opts.baseUrl) throw new TypeError('DocfleetClient: baseUrl is required');
    if (opts.apiKey && opts.bearerToken) throw new TypeError('DocfleetClient: pass apiKey or bearerToken, not both');
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.userAgent = opts.userAgent ?? 'docfleet-sdk/0.1.0';
    this.orgId = opts.orgId;
    this.#apiKey = opts.apiKey || undefined;
    this.#bearerToken = opts.bearerToken || undefined;
    this.#fetch = opts.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  private get secrets(): string[] {
    return [this.#apiKey, this.#bearerToken].filter((s): s is string => Boolean(s));
  }

  private headers(req: HttpRequest): Record<string, string> {
    const h: Record<string, string> = { 'user-agent': this.userAgent };
    if (req.response === 'stream') h.accept = 'text/event-stream';
    else if (req.response !== 'buffer') h.accept = req.response === 'auto' ? '*/*' : 'application/json';
    if (this.#apiKey) h['x-api-key'] = this.#apiKey;
    if (this.#bearerToken) h.authorization = `Bearer ${this.#bearerToken}`;
    if (this.orgId) h['x-service-org-id'] = this.orgId;
    if (req.requestId) h['x-request-id'] = req.requestId;
    Object.assign(h, req.headers);
    if (req.json !== undefined) h['content-type'] = 'application/json';
    else if (req.contentType) h['content-type'] = req.contentType;
    return h;
  }

  url(p: string, query?: Query): string {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) qs.append(k, String(v));
    const s = qs.toString();
    return `${this.baseUrl}${p}${s ? `?${s}` : ''}`;
  }

  async request<T>(req: HttpRequest): Promise<HttpResponse<T>> {
    const { method } = req;
    const routePath = req.path;
    const timeoutMs = req.timeoutMs ?? this.timeoutMs;
    const timeout = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
    const signals = [timeout, req.signal].filter((s): s is AbortSignal => Boolean(s));
    const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];

    const fail = (err: unknown): never => {
      if (err instanceof DocfleetApiError || err instanceof DocfleetRequestError) throw err;
      const code = timeout?.aborted ? 'timeout' : req.signal?.aborted ? 'aborted' : 'network_error';
      const reason = code === 'timeout' ? `no complete answer within ${timeoutMs} ms` : describe(err);
      throw new DocfleetRequestError({ code, method, path: routePath, reason: redact(reason, this.secrets) });
    };

    let res: Response;
    try {
      const init: RequestInit & { duplex?: 'half' } = {
        method,
        headers: this.headers(req),
        body: req.json !== undefined ? JSON.stringify(req.json) : (req.body as RequestInit['body']),
        signal,
        // Never follow a redirect: fetch would forward x-api-key to whatever host it names. 'error'
        // rather than 'manual' also stops undici from keeping the whole request body in memory
        // for a possible replay (nodejs/undici#4058), which would defeat streamed uploads.
        redirect: 'error',
      };
      if (req.body && isStreamBody(req.body)) init.duplex = 'half';
      res = await this.#fetch(this.url(req.path, req.query), init);
    } catch (err) {
      return fail(err);
    }

    try {
      if (res.status === 304 && req.notModifiedOk) {
        await res.body?.cancel();
        return { status: 304, headers: res.headers, data: null as T };
      }
      if (res.status >= 300) throw await this.toApiError(res, method, routePath);
      const data = await decode(res, req.response ?? 'json', method, routePath);
      return { status: res.status, headers: res.headers, data: data as T };
    } catch (err) {
      return fail(err);
    }
  }

  private async toApiError(res: Response, method: string, routePath: string): Promise<DocfleetApiError> {
    const secrets = this.secrets;
    const text = await res.text().catch(() => '');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    const env = isEnvelope(body) ? body : undefined;
    const retry = res.headers.get('retry-after');
    return new DocfleetApiError({
      status: res.status,
      code: env?.code ?? `http_${res.status}`,
      error: redact(env?.error ?? (text.trim().slice(0, 200) || res.statusText || 'no response body'), secrets),
      method,
      path: routePath,
      requestId: env?.request_id ?? res.headers.get('x-request-id') ?? undefined,
      serverMessage: env?.message !== undefined ? redact(env.message, secrets) : undefined,
      details: env?.details !== undefined ? redactValue(env.details, secrets) : undefined,
      retryAfter: retry && /^\d+$/.test(retry) ? Number(retry) : undefined,
    });
  }
}

interface Envelope {
  error: string;
  code: string;
  message?: string;
  request_id?: string;
  details?: unknown;
}
function isEnvelope(v: unknown): v is Envelope {
  const o = v as Envelope | undefined;
  return Boolean(o && typeof o === 'object' && typeof o.code === 'string' && typeof o.error === 'string');
}

function isStreamBody(b: RequestBody): boolean {
  return (
    typeof b === 'object' &&
    (Symbol.asyncIterator in b || typeof (b as { getReader?: unknown }).getReader === 'function')
  );
}

function describe(err: unknown): string {
  const e = err as { message?: string; cause?: { code?: string; message?: string } };
  const cause = e?.cause?.code ?? e?.cause?.message;
  return `${e?.message ?? String(err)}${cause ? ` (${cause})` : ''}`;
}

function isJson(ct: string) {
  return /^application\/([\w.+-]+\+)?json\b/i.test(ct);
}
function isText(ct: string) {
  return /^text\//i.test(ct) || /^application\/(xml|x-ndjson|yaml)\b/i.test(ct);
}

/** A Buffer in Node; in a browser (the console), where there is no Buffer, the same bytes as a Uint8Array. */
async function bytes(res: Response): Promise<Buffer> {
  const ab = await res.arrayBuffer();
  return (typeof Buffer === 'function' ? Buffer.from(ab) : new Uint8Array(ab)) as Buffer;
}

async function decode(res: Response, kind: ResponseKind, method: string, routePath: string): Promise<unknown> {
  const ct = res.headers.get('content-type') ?? '';
  if (kind === 'buffer') return bytes(res);
  if (kind === 'stream') return res.body;
  if (kind === 'auto' && !isJson(ct)) return isText(ct) ? res.text() : bytes(res);
  const text = await res.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    throw new DocfleetRequestError({
      code: 'invalid_response',
      method,
      path: routePath,
      reason: `expected JSON, got ${ct || 'no content type'} (${res.status})`,
    });
  }
}
