import { ApiKeyCache, type KeyRow } from '../src/key-cache';

const row = (id: string, over: Partial<KeyRow> = {}): KeyRow => ({
  id,
  org_id: 'org',
  revoked_at: null,
  expires_at: null,
  last_used_at: null,
  ...over,
});

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms) };
}

describe('ApiKeyCache', () => {
  it('serves a row from memory until the TTL passes, then reads it again', async () => {
    const c = clock();
    const cache = new ApiKeyCache({ ttlMs: 5000, now: c.now });
    let loads = 0;
    let current = row('k1');
    const load = async () => (loads++, current);
    expect((await cache.lookup('h1', load))?.row.id).toBe('k1');
    current = row('k1', { revoked_at: new Date() });
    c.advance(4999);
    expect((await cache.lookup('h1', load))?.row.revoked_at).toBeNull();
    expect(loads).toBe(1);
    c.advance(1);
    expect((await cache.lookup('h1', load))?.row.revoked_at).toBeInstanceOf(Date);
    expect(loads).toBe(2);
  });

  it('evictKey makes the next lookup read the database', async () => {
    const cache = new ApiKeyCache({ ttlMs: 60_000 });
    let current = row('k1');
    let loads = 0;
    const load = async () => (loads++, current);
    await cache.lookup('h1', load);
    current = row('k1', { revoked_at: new Date() });
    cache.evictKey('k1');
    expect((await cache.lookup('h1', load))?.row.revoked_at).toBeInstanceOf(Date);
    expect(loads).toBe(2);
  });

  it('does not store a row read before an eviction that happened while it was in flight', async () => {
    const cache = new ApiKeyCache({ ttlMs: 60_000 });
    let release!: (r: KeyRow) => void;
    const slow = cache.lookup('h1', () => new Promise<KeyRow>((r) => (release = r)));
    cache.evictKey('k1'); // the revocation commits and evicts while the old row is on its way
    release(row('k1'));
    expect((await slow)?.row.revoked_at).toBeNull(); // that request saw the old row, as it would without a cache
    let loads = 0;
    await cache.lookup('h1', async () => (loads++, row('k1', { revoked_at: new Date() })));
    expect(loads).toBe(1);
  });

  it('shares one load between concurrent misses and does not cache unknown keys', async () => {
    const cache = new ApiKeyCache({ ttlMs: 60_000 });
    let loads = 0;
    const load = async () => {
      loads++;
      await new Promise((r) => setTimeout(r, 10));
      return row('k1');
    };
    const all = await Promise.all(Array.from({ length: 20 }, () => cache.lookup('h1', load)));
    expect(all.every((x) => x?.row.id === 'k1')).toBe(true);
    expect(loads).toBe(1);
    let misses = 0;
    expect(await cache.lookup('nope', async () => (misses++, null))).toBeNull();
    expect(await cache.lookup('nope', async () => (misses++, null))).toBeNull();
    expect(misses).toBe(2);
    expect(cache.size).toBe(1);
  });

  it('with TTL 0 reads the database every time', async () => {
    const cache = new ApiKeyCache({ ttlMs: 0 });
    let loads = 0;
    for (let i = 0; i < 3; i++) await cache.lookup('h1', async () => (loads++, row('k1')));
    expect(loads).toBe(3);
    expect(cache.size).toBe(0);
  });

  it('keeps at most maxEntries rows, dropping the oldest', async () => {
    const cache = new ApiKeyCache({ ttlMs: 60_000, maxEntries: 3 });
    for (let i = 0; i < 5; i++) await cache.lookup(`h${i}`, async () => row(`k${i}`));
    expect(cache.size).toBe(3);
    let loads = 0;
    await cache.lookup('h0', async () => (loads++, row('k0')));
    await cache.lookup('h4', async () => (loads++, row('k4')));
    expect(loads).toBe(1);
  });
});
