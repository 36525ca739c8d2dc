import { checkWebhookUrl, forbiddenAddress, nextAttemptAt, retryDelayMs, signingSecrets } from '../src';

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
