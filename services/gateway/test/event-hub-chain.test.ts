// The event hub's chain of stream positions over real Redis pub/sub: a stream may write a live
// event straight through only when the hub heard the position before it last; messages that cross
// (two relays), skip a position or carry none break the chain, and a stream then reads PostgreSQL.
import { randomUUID } from 'node:crypto';
import { createLogger } from '@docfleet/logger';
import { createRedis } from '@docfleet/queue';
import { waitUntil } from '@docfleet/testing';
import { eventsChannel, type LiveMessage } from '@docfleet/webhooks';
import { EventHub } from '../src/domain/events/event-hub';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function event(orgId: string, seq: number, prev?: number): LiveMessage {
  return {
    kind: 'event',
    seq: String(seq),
    ...(prev === undefined ? {} : { prev_seq: String(prev) }),
    org_id: orgId,
    knowledge_base_id: null,
    file_id: null,
    event: { id: randomUUID(), type: 'index.updated', created_at: new Date().toISOString(), org_id: orgId, data: {} },
  };
}

it('marks a message contiguous only when it follows the last position heard, across organisations', async () => {
  const prefix = `hub${randomUUID().slice(0, 8)}`;
  const redis = createRedis(REDIS_URL);
  const pub = createRedis(REDIS_URL);
  const hub = new EventHub(redis, prefix, createLogger('test', 'silent'));
  const mine = randomUUID();
  const other = randomUUID();
  const seen: { seq: string; contiguous: boolean; chain: number }[] = [];
  let other_count = 0;
  try {
    const off = await hub.add(mine, {
      deliver: (m, contiguous) => m.kind === 'event' && seen.push({ seq: m.seq, contiguous, chain: hub.chain }),
      end: () => undefined,
    });
    const offOther = await hub.add(other, { deliver: () => void other_count++, end: () => undefined });
    const send = (m: LiveMessage) => pub.publish(eventsChannel(prefix), JSON.stringify(m));
    await send(event(mine, 10, 9)); // the first heard: nothing before it known
    await send(event(other, 11, 10)); // another organisation's, in order
    await send(event(mine, 12, 11)); // in order: contiguous although 11 was not this org's
    await send(event(mine, 15, 13)); // 14 skipped (crossing relays): break
    await send(event(mine, 14, 12)); // the late one: break
    await send(event(mine, 16, 15)); // follows the highest heard: contiguous again
    await send(event(mine, 17)); // no prev_seq (an older relay): break
    await waitUntil('six events heard from the hub', () => seen.length >= 6, {
      timeoutMs: 5000,
      intervalMs: 10,
      detail: () => `heard: ${JSON.stringify(seen.map((s) => [s.seq, s.contiguous]))}`,
    });
    expect(seen.map((s) => [s.seq, s.contiguous])).toEqual([
      ['10', false],
      ['12', true],
      ['15', false],
      ['14', false],
      ['16', true],
      ['17', false],
    ]);
    expect(other_count).toBe(1);
    // The chain counter moves exactly on the breaks, so a stream synced before one cannot go straight through.
    const chains = seen.map((s) => s.chain);
    expect(chains[1]).toBe(chains[0]);
    expect(chains[2]).toBeGreaterThan(chains[1]!);
    expect(chains[3]).toBeGreaterThan(chains[2]!);
    expect(chains[4]).toBe(chains[3]);
    expect(chains[5]).toBeGreaterThan(chains[4]!);
    off();
    offOther();
  } finally {
    await hub.close();
    await Promise.all([redis.quit(), pub.quit()]);
  }
});
