// The one way a test waits for something another process or worker does: poll a check until it
// yields, and on timeout fail with a message that names what was awaited (and how long and how
// often it was checked), rather than a bare "timed out" or a jest timeout with no cause.

export interface WaitOptions {
  /** Give up after this long (default 15 s). */
  timeoutMs?: number;
  /** Pause between checks (default 50 ms). */
  intervalMs?: number;
  /**
   * More for the timeout error: the last state seen, a process's log. It may read more state (the
   * rows around the one awaited): a detail that fails is named in the error instead of hiding it.
   */
  detail?: () => string | Promise<string>;
}

/** What waitUntil throws: `timed out after 15000 ms (212 checks) waiting for <what>`, then any detail. */
export class WaitTimeoutError extends Error {
  override name = 'WaitTimeoutError';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
    readonly checks: number,
    detail?: string,
  ) {
    super(`timed out after ${timeoutMs} ms (${checks} checks) waiting for ${what}${detail ? `\n${detail}` : ''}`);
  }
}

/**
 * Calls `check` until it yields a value — anything but `undefined`, `null` or `false` — and returns
 * that value (`true` for a plain condition). `what` completes "waiting for …" in the timeout error.
 * An error thrown by `check` ends the wait at once: a broken check is not retried into a timeout.
 */
export async function waitUntil<T>(
  what: string,
  check: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  o: WaitOptions = {},
): Promise<T> {
  const timeoutMs = o.timeoutMs ?? 15_000;
  const intervalMs = o.intervalMs ?? 50;
  const end = Date.now() + timeoutMs;
  for (let checks = 1; ; checks++) {
    const v = await check();
    if (v !== undefined && v !== null && v !== false) return v;
    if (Date.now() >= end) throw new WaitTimeoutError(what, timeoutMs, checks, await detailOf(o));
    await new Promise((r) => setTimeout(r, Math.min(intervalMs, Math.max(0, end - Date.now()))));
  }
}

async function detailOf(o: WaitOptions): Promise<string | undefined> {
  try {
    return await o.detail?.();
  } catch (e) {
    return `(the detail could not be read: ${e instanceof Error ? e.message : String(e)})`;
  }
}
