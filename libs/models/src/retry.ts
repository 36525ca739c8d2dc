// One retry policy for every remote provider, so Anthropic and OpenAI-compatible servers behave the
// same: exponential backoff with jitter on 429, 5xx and connection failures, `retry-after` honoured
// (and a retry-after longer than `maxRetryAfterMs` ends the call instead of parking a worker), a
// fresh timeout per attempt, and the caller's AbortSignal cancelling both the call and the wait.
// The SDKs' own retry loops are switched off (maxRetries: 0) so there is exactly one policy.
import { ModelError } from './errors';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A server asking for a longer pause than this is not retried. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8000,
  maxRetryAfterMs: 60_000,
};
export const DEFAULT_TIMEOUT_MS = 120_000;

/** What a provider learned from one failed attempt. */
export interface AttemptFailure {
  retryable: boolean;
  status?: number;
  retryAfterMs?: number;
  message: string;
  cause?: unknown;
}

export interface RetryContext {
  attempt: number;
  signal: AbortSignal;
}

export async function withRetries<T>(
  run: (ctx: RetryContext) => Promise<T>,
  classify: (err: unknown) => AttemptFailure,
  opts: { policy: RetryPolicy; timeoutMs: number; signal?: AbortSignal; provider: string; modelId: string },
): Promise<T> {
  const { policy, provider, modelId } = opts;
  for (let attempt = 0; ; attempt++) {
    if (opts.signal?.aborted) throw cancelled(provider, modelId);
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort(new Error('timeout'));
    }, opts.timeoutMs);
    const onAbort = () => ctl.abort(opts.signal?.reason);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await run({ attempt, signal: ctl.signal });
    } catch (err) {
      if (err instanceof ModelError) throw err;
      if (opts.signal?.aborted) throw cancelled(provider, modelId);
      // A timed-out attempt is not retried: the timeout is the caller's latency budget, and the
      // worker's job retry decides whether a slow model deserves another go.
      if (timedOut) {
        throw new ModelError(
          'model_timeout',
          `${provider} model ${modelId} did not answer within ${opts.timeoutMs} ms`,
          { provider, modelId, attempts: attempt + 1, retryable: true },
        );
      }
      const f = classify(err);
      const delay = f.retryable ? nextDelay(policy, attempt, f.retryAfterMs) : undefined;
      if (delay === undefined || attempt >= policy.maxRetries) {
        throw new ModelError(
          'model_call_failed',
          `${provider} model ${modelId} failed${f.status ? ` with HTTP ${f.status}` : ''}: ${f.message}`,
          {
            provider,
            modelId,
            status: f.status,
            attempts: attempt + 1,
            retryable: f.retryable,
            cause: f.cause,
          },
        );
      }
      await sleep(delay, opts.signal).catch(() => {
        throw cancelled(provider, modelId);
      });
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** Backoff for the given (0-based) failed attempt; undefined when retry-after exceeds the cap. */
export function nextDelay(policy: RetryPolicy, attempt: number, retryAfterMs?: number): number | undefined {
  if (retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs) return undefined;
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  const jittered = exp * (0.75 + Math.random() * 0.25);
  return Math.max(jittered, retryAfterMs ?? 0);
}

/** `retry-after-ms` (Anthropic/OpenAI extension) or `retry-after` as seconds or an HTTP date. */
export function parseRetryAfter(get: (name: string) => string | null | undefined): number | undefined {
  const ms = get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const ra = get('retry-after');
  if (!ra) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(ra)) return Math.max(0, Number(ra) * 1000);
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

export function isRetryableStatus(status: number | undefined): boolean {
  return status === 408 || status === 409 || status === 429 || (status !== undefined && status >= 500);
}

function cancelled(provider: string, modelId: string): ModelError {
  return new ModelError('model_cancelled', `${provider} model ${modelId} call was cancelled`, {
    provider,
    modelId,
    retryable: false,
  });
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new Error('aborted'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
