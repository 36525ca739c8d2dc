const REDACTED = '[redacted]';

/**
 * Replaces every occurrence of a credential in text. Servers should never echo a key, but error
 * text travels into logs, tool output and bug reports, so the client scrubs it regardless.
 */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join(REDACTED);
  return out;
}

/** Deep-redacts strings inside JSON-like values (used for the envelope's `details`). */
export function redactValue(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redactValue(v, secrets));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, redactValue(v, secrets)]),
    );
  }
  return value;
}

export interface DocfleetApiErrorInit {
  status: number;
  code: string;
  /** The envelope's `error` sentence (may change between releases; branch on `code`). */
  error: string;
  method: string;
  path: string;
  requestId?: string;
  /** The envelope's optional extra `message`. */
  serverMessage?: string;
  details?: unknown;
  /** Seconds, from a Retry-After header (429 rate_limited). */
  retryAfter?: number;
}

/**
 * A non-2xx answer from the API, carrying the envelope's stable `code`. It holds only what the
 * response said plus method and path: never headers, the request, or any credential.
 */
export class DocfleetApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly error: string;
  readonly method: string;
  readonly path: string;
  readonly requestId: string | undefined;
  readonly serverMessage: string | undefined;
  readonly details: unknown;
  readonly retryAfter: number | undefined;

  constructor(init: DocfleetApiErrorInit) {
    super(`${init.method} ${init.path} -> ${init.status} ${init.code}: ${init.error}`);
    this.name = 'DocfleetApiError';
    this.status = init.status;
    this.code = init.code;
    this.error = init.error;
    this.method = init.method;
    this.path = init.path;
    this.requestId = init.requestId;
    this.serverMessage = init.serverMessage;
    this.details = init.details;
    this.retryAfter = init.retryAfter;
  }

  toJSON() {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      code: this.code,
      error: this.error,
      method: this.method,
      path: this.path,
      request_id: this.requestId,
      ...(this.serverMessage !== undefined ? { server_message: this.serverMessage } : {}),
      ...(this.details !== undefined ? { details: this.details } : {}),
      ...(this.retryAfter !== undefined ? { retry_after: this.retryAfter } : {}),
    };
  }
}

/** The request never produced an HTTP answer: connection refused, DNS, reset, or the client timeout. */
export class DocfleetRequestError extends Error {
  readonly code: 'network_error' | 'timeout' | 'aborted' | 'invalid_response';
  readonly method: string;
  readonly path: string;

  constructor(init: { code: DocfleetRequestError['code']; method: string; path: string; reason: string }) {
    super(`${init.method} ${init.path} -> ${init.code}: ${init.reason}`);
    this.name = 'DocfleetRequestError';
    this.code = init.code;
    this.method = init.method;
    this.path = init.path;
  }

  toJSON() {
    return { name: this.name, message: this.message, code: this.code, method: this.method, path: this.path };
  }
}

/** A poller gave up: the awaited job, operation or index state did not arrive in time. */
export class DocfleetTimeoutError extends Error {
  readonly code = 'poll_timeout' as const;
  /** The last state seen before giving up. */
  readonly last: unknown;

  constructor(what: string, timeoutMs: number, last: unknown) {
    super(`${what} did not finish within ${timeoutMs} ms`);
    this.name = 'DocfleetTimeoutError';
    this.last = last;
  }
}
