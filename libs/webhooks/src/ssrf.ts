// Webhook URLs are requests the service makes on a customer's behalf: without these checks a
// webhook could reach the cloud metadata service, Redis or PostgreSQL. The check runs when an
// endpoint is created or changed and again before every delivery (a name may resolve elsewhere by
// then: DNS rebinding); the delivery then connects to the very address that was checked.
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ApiError } from '@docfleet/errors';
import ipaddr from 'ipaddr.js';

export interface UrlPolicy {
  /** WEBHOOK_ALLOW_HTTP: plain http is accepted (local development, tests). */
  allowHttp: boolean;
  /** WEBHOOK_ALLOW_PRIVATE: loopback and private addresses are accepted (tests, local development). */
  allowPrivate: boolean;
}

export interface CheckedUrl {
  url: URL;
  /** Every address the host resolved to, each allowed; a delivery connects to the first. */
  addresses: { address: string; family: 4 | 6 }[];
}

// Metadata services that sit on ordinary-looking addresses (AWS IPv6, Alibaba); the IPv4 link-local
// one (169.254.169.254) is refused as link-local already.
const METADATA = new Set(['fd00:ec2::254', '100.100.100.200']);

/** Why an address may not be a webhook target, or null when it may. */
export function forbiddenAddress(address: string): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let ip = ipaddr.parse(address);
  if (ip.kind() === 'ipv6' && (ip as ipaddr.IPv6).isIPv4MappedAddress()) ip = (ip as ipaddr.IPv6).toIPv4Address();
  if (METADATA.has(ip.toString())) return 'a cloud metadata address';
  const range = ip.range();
  return range === 'unicast' ? null : `a ${range} address`;
}

const refuse = (why: string) => new ApiError('invalid_webhook_url', `The webhook URL is refused: ${why}.`);

/** Parses and checks a webhook URL, resolving its host; throws 400 invalid_webhook_url. */
export async function checkWebhookUrl(raw: string, policy: UrlPolicy): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse('not an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp))
    throw refuse(policy.allowHttp ? 'only http and https are delivered to' : 'it must use https');
  if (url.username || url.password) throw refuse('credentials in the URL are not allowed');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: CheckedUrl['addresses'];
  if (isIP(host)) addresses = [{ address: host, family: isIP(host) as 4 | 6 }];
  else {
    try {
      addresses = (await lookup(host, { all: true, verbatim: true })).map((a) => ({
        address: a.address,
        family: a.family as 4 | 6,
      }));
    } catch {
      throw refuse(`the host ${host} does not resolve`);
    }
    if (!addresses.length) throw refuse(`the host ${host} does not resolve`);
  }
  if (!policy.allowPrivate) {
    for (const a of addresses) {
      const why = forbiddenAddress(a.address);
      if (why) throw refuse(`${host} resolves to ${a.address}, ${why}`);
    }
  }
  return { url, addresses };
}

/**
 * checkWebhookUrl for the delivery loop, each accepted answer remembered for `ttlMs` (0: none), so
 * a busy endpoint's host is resolved once per window instead of once per delivery. Rebinding
 * protection holds: a delivery connects to the first address of the answer it was given, and every
 * address of a remembered answer passed the policy when it was resolved; a name that resolves
 * elsewhere now is sent to the old, checked address until the entry expires, never to the new one
 * unchecked. Refusals are not remembered (each is checked again), and at most `maxEntries` URLs are
 * kept (the oldest go first).
 */
export function cachedUrlChecker(
  policy: UrlPolicy,
  o: { ttlMs: number; maxEntries?: number; check?: typeof checkWebhookUrl; now?: () => number },
): (raw: string) => Promise<CheckedUrl> {
  const check = o.check ?? checkWebhookUrl;
  const now = o.now ?? Date.now;
  const max = o.maxEntries ?? 1000;
  const known = new Map<string, { checked: CheckedUrl; until: number }>();
  return async (raw) => {
    const hit = known.get(raw);
    if (hit && hit.until > now()) return hit.checked;
    known.delete(raw);
    const checked = await check(raw, policy);
    if (o.ttlMs > 0) {
      if (known.size >= max) known.delete(known.keys().next().value!);
      known.set(raw, { checked, until: now() + o.ttlMs });
    }
    return checked;
  };
}
