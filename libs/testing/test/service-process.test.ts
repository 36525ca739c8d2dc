// startServiceProcess waits for readiness through waitUntil: a service that never gets ready fails the
// start with what was awaited and the last answer (not a bare "not ready"), and is killed, not left running.
import { freePort } from '../src/private-redis';
import { startServiceProcess } from '../src/service-process';
import { WaitTimeoutError, waitUntil } from '../src/wait';

it('names the last readiness answer of a service that never gets ready, and kills it', async () => {
  const port = await freePort();
  const server = `require('node:http').createServer((q, r) => { r.statusCode = 503; r.end(); }).listen(${port}, () => console.log('listening'));`;
  const err = await startServiceProcess('gateway', {
    env: {},
    readyUrl: `http://127.0.0.1:${port}/readyz`,
    readyTimeoutMs: 1500,
    pollMs: 50,
    supervised: false,
    wrap: () => [process.execPath, '-e', server],
  }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(WaitTimeoutError);
  expect((err as Error).message).toMatch(
    new RegExp(`waiting for gateway ready at http://127\\.0\\.0\\.1:${port}/readyz\\nanswered 503\\nlistening`),
  );
  await waitUntil(
    'the service that never got ready to be gone',
    () =>
      fetch(`http://127.0.0.1:${port}/readyz`).then(
        () => false,
        () => true,
      ),
    { timeoutMs: 5000 },
  );
});
