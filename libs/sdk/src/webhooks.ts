// Standard Webhooks signing (https://www.standardwebhooks.com): a delivery carries `webhook-id`,
// `webhook-timestamp` (seconds) and `webhook-signature`, a space-separated list of
// `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, one per secret in force (two during the
// 24 h after a rotation). The secret is `whsec_<base64 key>`.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './contract-types';

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/** `v1,<base64>` for one secret. */
export function signWebhook(secret: string, id: string, timestamp: number, body: string | Uint8Array): string {
  const mac = createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.`).update(body).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of a delivery signed with every secret given. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  body: string | Uint8Array,
  timestamp = Math.floor(Date.now() / 1000),
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((s) => signWebhook(s, id, timestamp, body)).join(' '),
  };
}

type HeaderBag = Headers | Record<string, string | string[] | undefined>;
function header(h: HeaderBag, name: string): string | undefined {
  if (typeof (h as Headers).get === 'function') return (h as Headers).get(name) ?? undefined;
  const rec = h as Record<string, string | string[] | undefined>;
  const v = rec[name] ?? Object.entries(rec).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Checks a delivery against the endpoint's secret and returns the event. Throws
 * WebhookVerificationError when a header is missing, the timestamp is further than
 * `toleranceSeconds` (default 300) from now, or no signature matches the raw body. Pass the body
 * exactly as received (bytes or string): re-serialised JSON will not match.
 */
export function verifyWebhook(
  body: string | Uint8Array,
  headers: HeaderBag,
  secret: string,
  opts: { toleranceSeconds?: number; now?: number } = {},
): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const ts = header(headers, 'webhook-timestamp');
  const sigs = header(headers, 'webhook-signature');
  if (!id || !ts || !sigs)
    throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  const t = Number(ts);
  if (!/^\d+$/.test(ts) || !Number.isSafeInteger(t)) throw new WebhookVerificationError('invalid webhook-timestamp');
  const now = Math.floor((opts.now ?? Date.now()) / 1000);
  const tolerance = opts.toleranceSeconds ?? 300;
  if (Math.abs(now - t) > tolerance) throw new WebhookVerificationError('webhook-timestamp outside the tolerance');
  const expected = Buffer.from(signWebhook(secret, id, t, body).slice(3), 'base64');
  const ok = sigs.split(' ').some((s) => {
    const [version, mac] = s.split(',', 2);
    if (version !== 'v1' || !mac) return false;
    const got = Buffer.from(mac, 'base64');
    return got.length === expected.length && timingSafeEqual(got, expected);
  });
  if (!ok) throw new WebhookVerificationError('no signature matches');
  const text = typeof body === 'string' ? body : Buffer.from(body).toString('utf8');
  return JSON.parse(text) as WebhookEvent;
}
