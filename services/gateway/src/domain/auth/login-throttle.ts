import { createHash } from 'node:crypto';
import { isIPv6 } from 'node:net';
import { ApiError } from '@docfleet/errors';
import type { Logger } from '@docfleet/logger';
import type { Redis } from 'ioredis';

export interface LoginThrottleConfig {
  /** attempts per account before each further one waits */
  freeFailures: number;
  /** attempts per client address (any account) before each further one waits */
  ipFreeFailures: number;
  baseSeconds: number;
  maxSeconds: number;
  /** failures are forgotten this long after the last attempt */
  windowSeconds: number;
}

// One hash per account and per client address: `fails` (attempts counted, not yet cleared) and
// `until` (Redis ms time before which no attempt is taken). Redis's clock, so every replica agrees.
//
// ATTEMPT: refuses (returns the wait in ms) while any key is locked; otherwise counts the attempt as
// a failure up front and, at or past a key's free allowance, locks it for base × 2^(fails − free),
// capped. Counting before the password is checked means a burst of parallel guesses gets no more
// than the allowance: the request that reaches it locks out the rest before any verdict.
const ATTEMPT_LUA = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local wait = 0
for i, k in ipairs(KEYS) do
  local u = tonumber(redis.call('HGET', k, 'until') or '0')
  if u - now > wait then wait = u - now end
end
if wait > 0 then return wait end
local base, max, window = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
for i, k in ipairs(KEYS) do
  local free = tonumber(ARGV[3 + i])
  local n = redis.call('HINCRBY', k, 'fails', 1)
  local ttl = window
  if n >= free then
    local lock = math.min(max, base * 2 ^ math.min(n - free, 40))
    redis.call('HSET', k, 'until', now + lock)
    if lock > ttl then ttl = lock end
  end
  redis.call('PEXPIRE', k, ttl)
end
return 0
`;

// UNCOUNT: takes one attempt back (a success, or an attempt that got no verdict); below the free
// allowance the key is unlocked again. ARGV[1] = 'reset' clears the key instead (a correct password
// for that account).
const UNCOUNT_LUA = `
for i, k in ipairs(KEYS) do
  if ARGV[i * 2 - 1] == 'reset' then
    redis.call('DEL', k)
  else
    local n = redis.call('HINCRBY', k, 'fails', -1)
    if n <= 0 then redis.call('DEL', k)
    elseif n < tonumber(ARGV[i * 2]) then redis.call('HDEL', k, 'until') end
  end
end
return 0
`;

/** The client's address; an IPv6 client by its /64 (one host usually holds the whole /64). */
export function clientAddressKey(ip: string | undefined): string {
  if (!ip) return 'unknown';
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (v4) return v4[1];
  if (!isIPv6(ip)) return ip;
  const [head, tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const tl = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array(8 - h.length - tl.length).fill('0'), ...tl] : h;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

export interface LoginTicket {
  keys: [string, string];
}

/**
 * Brute-force protection for POST /v1/auth/login, per account and per client address, in Redis so
 * every gateway replica shares it (docs/operations.md). A locked account or address answers 429
 * `rate_limited` with Retry-After without checking the password; other accounts and addresses are
 * unaffected. If Redis is unreachable the throttle steps aside (logged), like the request rate limit.
 */
export class LoginThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly cfg: LoginThrottleConfig,
    private readonly logger?: Logger,
  ) {}

  private keysFor(email: string, ip: string | undefined): [string, string] {
    const account = createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
    return [`${this.prefix}:login:account:${account}`, `${this.prefix}:login:address:${clientAddressKey(ip)}`];
  }

  /** Counts an attempt, or throws 429 while the account or the address must wait. */
  async attempt(email: string, ip: string | undefined): Promise<LoginTicket | undefined> {
    const keys = this.keysFor(email, ip);
    let waitMs: number;
    try {
      waitMs = Number(
        await this.redis.eval(
          ATTEMPT_LUA,
          2,
          ...keys,
          this.cfg.baseSeconds * 1000,
          this.cfg.maxSeconds * 1000,
          this.cfg.windowSeconds * 1000,
          this.cfg.freeFailures,
          this.cfg.ipFreeFailures,
        ),
      );
    } catch (err) {
      this.logger?.warn({ err }, 'login throttle unavailable');
      return undefined;
    }
    if (waitMs > 0) {
      const retry = Math.max(1, Math.ceil(waitMs / 1000));
      throw new ApiError('rate_limited', 'Too many sign-in attempts; wait before trying again.', {
        headers: { 'Retry-After': String(retry) },
        message: `Retry after ${retry} s.`,
      });
    }
    return { keys };
  }

  /** The password was right: the account starts afresh; the address gets this attempt back. */
  succeeded(ticket: LoginTicket | undefined): Promise<void> {
    return this.uncount(ticket, true);
  }

  /** The attempt ended without a verdict (a server error): it does not count. */
  release(ticket: LoginTicket | undefined): Promise<void> {
    return this.uncount(ticket, false);
  }

  private async uncount(ticket: LoginTicket | undefined, resetAccount: boolean) {
    if (!ticket) return;
    try {
      await this.redis.eval(
        UNCOUNT_LUA,
        2,
        ...ticket.keys,
        resetAccount ? 'reset' : 'uncount',
        this.cfg.freeFailures,
        'uncount',
        this.cfg.ipFreeFailures,
      );
    } catch (err) {
      this.logger?.warn({ err }, 'login throttle unavailable');
    }
  }
}
