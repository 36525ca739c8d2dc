import {
  cachedUrlChecker,
  checkWebhookUrl,
  forbiddenAddress,
  nextAttemptAt,
  retryDelayMs,
  signingSecrets,
} from '../src';

const strict = { allowHttp: false, allowPrivate: false };

describe('webhook URL policy', () => {
  it.each([
    ['https://127.0.0.1/hook', 'loopback'],
    ['https://169.254.169.254/latest/meta-data', 'linkLocal'],
    ['https://10.0.0.1/hook', 'private'],
    ['https://192.168.1.5/hook', 'private'],
    ['https://[::1]/hook', 'loopback'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['https://localhost/hook', 'loopback'],
  ])('refuses %s', async (url, range) => {
    await expect(checkWebhookUrl(url, strict)).rejects.toMatchObject({
      code: 'invalid_webhook_url',
      message: expect.stringContaining(range),
    });
  });

  it('refuses http unless allowed, and credentials in the URL', async () => {
    await expect(checkWebhookUrl('http://93.184.216.34/x', strict)).rejects.toMatchObject({
      message: expect.stringContaining('https'),
    });
    await expect(checkWebhookUrl('ftp://93.184.216.34/x', { ...strict, allowHttp: true })).rejects.toMatchObject({
      code: 'invalid_webhook_url',
    });
    await expect(checkWebhookUrl('https://u:p@93.184.216.34/x', strict)).rejects.toMatchObject({
      message: expect.stringContaining('credentials'),
    });
    await expect(checkWebhookUrl('http://93.184.216.34/x', { ...strict, allowHttp: true })).resolves.toMatchObject({
      addresses: [{ address: '93.184.216.34', family: 4 }],
    });
  });

  it('accepts loopback only with WEBHOOK_ALLOW_PRIVATE', async () => {
    const ok = await checkWebhookUrl('http://localhost:8080/x', { allowHttp: true, allowPrivate: true });
    expect(ok.addresses.length).toBeGreaterThan(0);
    expect(forbiddenAddress('100.100.100.200')).toMatch(/metadata/);
    expect(forbiddenAddress('8.8.8.8')).toBeNull();
  });
});

describe('the delivery-time URL check, reused briefly', () => {
  // A resolver whose answer the test moves: public first, then loopback (DNS rebinding).
  function rebinding() {
    let address = '93.184.216.34';
    const calls: string[] = [];
    const check: typeof checkWebhookUrl = async (raw, policy) => {
      calls.push(raw);
      if (!policy.allowPrivate && forbiddenAddress(address))
        throw new Error(`refused: resolves to ${address}, ${forbiddenAddress(address)}`);
      return { url: new URL(raw), addresses: [{ address, family: 4 }] };
    };
    return { check, calls, rebind: (a: string) => void (address = a) };
  }

  it('resolves once per window, then again; a rebound name is refused, never sent to unchecked', async () => {
    const r = rebinding();
    let clock = 0;
    const checkUrl = cachedUrlChecker(strict, { ttlMs: 5000, check: r.check, now: () => clock });
    const first = await checkUrl('https://hooks.example/a');
    expect(first.addresses).toEqual([{ address: '93.184.216.34', family: 4 }]);
    r.rebind('127.0.0.1');
    clock = 4999;
    // Within the window: the answer that was checked, so the connection still goes to the public address.
    expect((await checkUrl('https://hooks.example/a')).addresses[0]!.address).toBe('93.184.216.34');
    expect(r.calls).toHaveLength(1);
    clock = 5000;
    await expect(checkUrl('https://hooks.example/a')).rejects.toThrow(/loopback/);
    // Refusals are not remembered: each attempt looks again.
    await expect(checkUrl('https://hooks.example/a')).rejects.toThrow(/loopback/);
    expect(r.calls).toHaveLength(3);
    r.rebind('93.184.216.35');
    expect((await checkUrl('https://hooks.example/a')).addresses[0]!.address).toBe('93.184.216.35');
  });

  it('keys on the whole URL, keeps at most maxEntries, and with ttl 0 resolves every time', async () => {
    const r = rebinding();
    const checkUrl = cachedUrlChecker(strict, { ttlMs: 60_000, maxEntries: 2, check: r.check });
    for (const u of ['https://a.example/1', 'https://a.example/2', 'https://a.example/1', 'https://a.example/3'])
      await checkUrl(u);
    expect(r.calls).toEqual(['https://a.example/1', 'https://a.example/2', 'https://a.example/3']);
    await checkUrl('https://a.example/1'); // the oldest entry went to make room for /3
    expect(r.calls).toHaveLength(4);
    const none = rebinding();
    const every = cachedUrlChecker(strict, { ttlMs: 0, check: none.check });
    await every('https://a.example/1');
    await every('https://a.example/1');
    expect(none.calls).toHaveLength(2);
  });
});

describe('retry schedule', () => {
  const s = { baseMs: 1000, factor: 2, maxDelayMs: 5000, windowMs: 20_000, jitter: 0.2 };
  it('grows exponentially within the jitter, capped, and gives up after the window', () => {
    expect(retryDelayMs(s, 1, () => 0.5)).toBe(1000);
    expect(retryDelayMs(s, 3, () => 0.5)).toBe(4000);
    expect(retryDelayMs(s, 9, () => 0.5)).toBe(5000);
    expect(retryDelayMs(s, 1, () => 0)).toBe(800);
    expect(retryDelayMs(s, 1, () => 1)).toBe(1200);
    const start = new Date(0);
    expect(nextAttemptAt(s, start, 1, new Date(1000))).not.toBeNull();
    expect(nextAttemptAt(s, start, 5, new Date(19_000))).toBeNull();
  });
  it('signs with the previous secret for 24 h after a rotation', () => {
    const ep = { secret: 'whsec_new', previous_secret: 'whsec_old', secret_rotated_at: new Date(0) };
    expect(signingSecrets(ep, 3600_000)).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(ep, 25 * 3600_000)).toEqual(['whsec_new']);
  });
});
