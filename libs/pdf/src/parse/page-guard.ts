// Per-page time limit and cooperative cancellation. pdf.js work cannot be interrupted, so a
// timed-out page makes the whole parse fail fast (ParseError 'page_timeout'); the caller
// destroys the document, which stops pdf.js at its next await.
import { ParseError } from '../parse-error';

export async function withPageTimeout<T>(work: () => Promise<T>, timeoutMs: number, pageNumber: number): Promise<T> {
  const tooSlow = () =>
    new ParseError('page_timeout', `page ${pageNumber} took longer than ${timeoutMs / 1000}s`, { pageNumber });
  // Give timers and I/O a turn between pages: pdf.js' in-thread worker chains microtasks and
  // would otherwise starve the event loop (and this very timer) for the whole document.
  await new Promise((resolve) => setImmediate(resolve));
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(tooSlow()), timeoutMs);
  });
  try {
    const result = await Promise.race([work(), limit]);
    // CPU-bound pages can finish before the timer gets a chance to fire; the limit still holds.
    if (Date.now() - started > timeoutMs) throw tooSlow();
    return result;
  } finally {
    clearTimeout(timer);
  }
}

export async function throwIfCancelled(shouldCancel: (() => boolean | Promise<boolean>) | undefined): Promise<void> {
  if (shouldCancel && (await shouldCancel())) throw new ParseError('cancelled', 'parse cancelled by request');
}
