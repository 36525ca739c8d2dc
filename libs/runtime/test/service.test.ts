import { closeWorkerConnections } from '../src';

// The end of every worker's shutdown (services/*/src/main.ts): the order, and which failures stop it.
describe('closeWorkerConnections', () => {
  function parts(fail: { queues?: boolean; redis?: boolean; db?: boolean } = {}) {
    const calls: string[] = [];
    const step =
      (name: string, failing = false) =>
      async () => {
        calls.push(name);
        if (failing) throw new Error(`${name} failed`);
      };
    return {
      calls,
      c: {
        health: { close: step('health') },
        queues: { close: step('queues', fail.queues) },
        redis: [{ quit: step('redis', fail.redis) }, { quit: step('workerRedis') }],
        db: { $disconnect: step('db', fail.db) },
        telemetry: { shutdown: step('telemetry') },
      },
    };
  }

  it('closes health, queues, both Redis connections, the database, then telemetry', async () => {
    const { calls, c } = parts();
    await closeWorkerConnections(c);
    expect(calls).toEqual(['health', 'queues', 'redis', 'workerRedis', 'db', 'telemetry']);
  });

  it('goes on past a failed queue close or Redis quit: nothing is left to lose there', async () => {
    const { calls, c } = parts({ queues: true, redis: true });
    await closeWorkerConnections(c);
    expect(calls).toEqual(['health', 'queues', 'redis', 'workerRedis', 'db', 'telemetry']);
  });

  it('rejects on a failed database disconnect, so onShutdown exits 1', async () => {
    const { calls, c } = parts({ db: true });
    await expect(closeWorkerConnections(c)).rejects.toThrow('db failed');
    expect(calls).toEqual(['health', 'queues', 'redis', 'workerRedis', 'db']);
  });
});
