// waitUntil, the one poll of the test suites: it returns the first value a check yields, fails on
// timeout with an error that names what was awaited, and does not retry a check that throws.
import { WaitTimeoutError, waitUntil } from '../src/wait';

it('returns the first value the check yields, skipping undefined, null and false', async () => {
  const seen = [undefined, null, false, 0, 'late'];
  let i = 0;
  expect(await waitUntil('a value', () => seen[i++], { intervalMs: 1 })).toBe(0);
  expect(i).toBe(4);
  expect(await waitUntil('a condition', async () => true)).toBe(true);
});

it('times out with an error naming what was awaited, how long and how often, and the detail', async () => {
  let checks = 0;
  const t0 = Date.now();
  const err = await waitUntil(
    'the index job to complete',
    () => {
      checks++;
      return false;
    },
    { timeoutMs: 200, intervalMs: 20, detail: () => 'last state: waiting' },
  ).catch((e: unknown) => e);
  expect(Date.now() - t0).toBeGreaterThanOrEqual(200);
  expect(Date.now() - t0).toBeLessThan(2000);
  expect(err).toBeInstanceOf(WaitTimeoutError);
  expect((err as Error).message).toBe(
    `timed out after 200 ms (${checks} checks) waiting for the index job to complete\nlast state: waiting`,
  );
  expect(checks).toBeGreaterThan(2);
});

it('reads an asynchronous detail on timeout, and names a detail that fails rather than losing the timeout', async () => {
  const read = waitUntil('a row', () => false, {
    timeoutMs: 30,
    intervalMs: 10,
    detail: async () => `rows: ${await Promise.resolve(3)}`,
  });
  await expect(read).rejects.toThrow(/waiting for a row\nrows: 3$/);
  const broken = waitUntil('a row', () => false, {
    timeoutMs: 30,
    intervalMs: 10,
    detail: async () => {
      throw new Error('database gone');
    },
  });
  await expect(broken).rejects.toThrow(
    expect.objectContaining({
      name: 'WaitTimeoutError',
      message: expect.stringMatching(/waiting for a row\n\(the detail could not be read: database gone\)$/),
    }),
  );
});

it('ends at once when the check throws', async () => {
  let checks = 0;
  await expect(
    waitUntil('a broken check', () => {
      checks++;
      throw new Error('boom');
    }),
  ).rejects.toThrow('boom');
  expect(checks).toBe(1);
});
