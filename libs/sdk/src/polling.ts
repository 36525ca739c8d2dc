import { DocfleetApiError, DocfleetRequestError, DocfleetTimeoutError } from './errors';

/** The API's suggested polling (docs/api.md, States): start near 2 s, back off to a 10 s ceiling. */
export const DEFAULT_POLLING = {
  initialIntervalMs: 2_000,
  maxIntervalMs: 10_000,
  factor: 1.5,
  /** Split windows take tens of seconds each and parses of big documents minutes: budget generously. */
  timeoutMs: 30 * 60_000,
} as const;

export interface PollingOptions {
  initialIntervalMs?: number;
  maxIntervalMs?: number;
  factor?: number;
  /** Overall budget; the poller throws DocfleetTimeoutError after it (0 = wait forever). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Injectable clock for tests. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  now?: () => number;
}

/** The waits between polls: initial, then multiplied by factor, capped at the ceiling. */
export function* backoffDelays(
  o: Pick<PollingOptions, 'initialIntervalMs' | 'maxIntervalMs' | 'factor'> = {},
): Generator<number, never> {
  const max = o.maxIntervalMs ?? DEFAULT_POLLING.maxIntervalMs;
  const factor = Math.max(1, o.factor ?? DEFAULT_POLLING.factor);
  let d = Math.min(o.initialIntervalMs ?? DEFAULT_POLLING.initialIntervalMs, max);
  for (;;) {
    yield d;
    d = Math.min(Math.round(d * factor), max);
  }
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Answers worth riding out while polling for minutes: a dropped connection, a slow answer, rate
 * limiting, or a gateway restarting. Everything else (unknown job, lost access) ends the wait.
 */
export function isTransient(err: unknown): boolean {
  if (err instanceof DocfleetRequestError) return err.code === 'network_error' || err.code === 'timeout';
  if (err instanceof DocfleetApiError)
    return err.status === 429 || err.status === 502 || err.status === 503 || err.status === 504;
  return false;
}

export interface PollSpec<T> {
  /** Named in the timeout error. */
  what: string;
  fetch: () => Promise<T>;
  done: (value: T) => boolean;
  onProgress?: (value: T) => void;
}

/** Polls until done, sleeping on the backoff schedule; the last wait is cut to the deadline. */
export async function poll<T>(spec: PollSpec<T>, opts: PollingOptions = {}): Promise<T> {
  const now = opts.now ?? Date.now;
  const wait = opts.sleep ?? sleep;
  const timeoutMs = opts.timeoutMs ?? DEFAULT_POLLING.timeoutMs;
  const deadline = timeoutMs > 0 ? now() + timeoutMs : Infinity;
  const delays = backoffDelays(opts);
  let last: T | undefined;
  for (;;) {
    opts.signal?.throwIfAborted();
    try {
      last = await spec.fetch();
      spec.onProgress?.(last);
      if (spec.done(last)) return last;
    } catch (err) {
      if (!isTransient(err)) throw err;
      // A 429 says how long to stay away; otherwise the schedule decides.
      if (err instanceof DocfleetApiError && err.retryAfter && now() + err.retryAfter * 1000 < deadline) {
        await wait(err.retryAfter * 1000, opts.signal);
        continue;
      }
    }
    const left = deadline - now();
    if (left <= 0) throw new DocfleetTimeoutError(spec.what, timeoutMs, last);
    await wait(Math.min(delays.next().value, left), opts.signal);
  }
}
