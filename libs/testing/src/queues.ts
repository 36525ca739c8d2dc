// A queue namespace of a test file's own on the shared test Redis, for the tests of the queue
// registry and of what rides on it (tracing): jobs of two files running at once never meet.
import { randomUUID } from 'node:crypto';
import { QueueClient, createRedis } from '@docfleet/queue';

export interface PrivateQueues {
  /** The client connection (enqueue, inspection). */
  redis: ReturnType<typeof createRedis>;
  /** A connection for createWorker (blocking commands). */
  workerRedis: ReturnType<typeof createRedis>;
  /** `tag` and six random characters: every key of the namespace starts `prefix:`. */
  prefix: string;
  queues: QueueClient;
  /** afterAll: closes the queues, removes the namespace's keys and closes both connections. */
  close(): Promise<void>;
}

/** Connects to REDIS_URL (default the local server) under a fresh prefix. */
export function privateQueues(tag: string): PrivateQueues {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = createRedis(url);
  const workerRedis = createRedis(url, { forWorker: true });
  const prefix = `${tag}${randomUUID().slice(0, 6)}`;
  const queues = new QueueClient(redis, prefix);
  return {
    redis,
    workerRedis,
    prefix,
    queues,
    async close() {
      await queues.close();
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
      await workerRedis.quit();
    },
  };
}
