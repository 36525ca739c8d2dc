import { randomUUID } from 'node:crypto';
import { apiKeyCacheFor, authenticate, type ApiKeyCache } from '@docfleet/auth';
import { isDatabaseUnavailable, type Db } from '@docfleet/db';
import { ApiError, isApiError, toEnvelope } from '@docfleet/errors';
import type { Logger } from '@docfleet/logger';
import type { NextFunction, Request, Response } from 'express';
import type { Redis } from 'ioredis';
import './types';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Request id (taken from x-request-id when sane), a child logger, and one access-log line. */
export function requestContext(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction) => {
    const incoming = req.header('x-request-id');
    req.requestId = incoming && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.log = logger.child({ request_id: req.requestId });
    res.setHeader('x-request-id', req.requestId);
    const start = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      req.log.info(
        {
          method: req.method,
          path: req.originalUrl.split('?')[0],
          status: res.statusCode,
          ms: Math.round(ms * 10) / 10,
          org_id: req.principal?.orgId,
        },
        'request',
      );
    });
    next();
  };
}

/**
 * Settings of the gateway's two per-request shortcuts (docs/operations.md). Read here rather than
 * in the gateway's env schema so the middleware can be built on its own; invalid values stop the
 * gateway at start-up with one line naming the variable, like every other setting.
 */
/** `cacheTtlSeconds`: API_KEY_CACHE_TTL_SECONDS (gatewayEnv). */
export function authMiddleware(db: Db, opts: { keyCache?: ApiKeyCache; cacheTtlSeconds?: number } = {}) {
  const keyCache =
    opts.keyCache ?? apiKeyCacheFor(db, opts.cacheTtlSeconds === undefined ? undefined : opts.cacheTtlSeconds * 1000);
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      const auth = req.header('authorization');
      const bearer = auth?.toLowerCase().startsWith('bearer ') ? auth.slice(7).trim() : undefined;
      const q = req.query.org_id;
      const orgId = req.header('x-service-org-id') ?? (typeof q === 'string' ? q : undefined);
      const apiKey = req.header('x-api-key') || undefined;
      if (apiKey || bearer) req.principal = await authenticate(db, { apiKey, bearer, orgId }, { keyCache });
      next();
    } catch (err) {
      next(err);
    }
  };
}

// Atomically takes up to ARGV[2] tokens from a fixed window of ARGV[1] tokens per ARGV[3] ms.
// The counter has the same shape rate-limiter-flexible's RateLimiterRedis writes (an integer with
// a PX expiry under `<prefix>:ratelimit:<caller>`), so replicas of the previous release that still
// use it count against the same windows during a rolling update.
const RESERVE_LUA = `
local limit = tonumber(ARGV[1])
local want = tonumber(ARGV[2])
local windowMs = tonumber(ARGV[3])
local used = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('PTTL', KEYS[1])
if used >= limit then
  if ttl < 0 then redis.call('PEXPIRE', KEYS[1], windowMs); ttl = windowMs end
  return {0, used, ttl}
end
local take = math.min(want, limit - used)
used = redis.call('INCRBY', KEYS[1], take)
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], windowMs); ttl = windowMs end
return {take, used, ttl}
`;

interface Bucket {
  /** tokens reserved from Redis and not used yet */
  tokens: number;
  /** local time at which the Redis window ends (no later than Redis's own end) */
  windowEnd: number;
  /** the window is spent: refuse without asking Redis until then */
  deniedUntil: number;
  /** Redis's remaining count after the last reservation (for x-ratelimit-remaining) */
  redisRemaining: number;
  pending?: Promise<void>;
}

export type TakeResult = { ok: true; remaining: number } | { ok: false; retryMs: number };

/**
 * A fixed-window limit of `points` per `windowSeconds` per caller, counted in Redis and shared by
 * every gateway replica, with a local token bucket in front: a replica reserves up to `batch`
 * tokens in one Redis call and spends them locally until they run out or the window ends.
 *
 * Bounds, for one caller over one Redis window with R replicas serving it:
 * - never more than `points` requests are admitted (tokens are only spent inside the window they
 *   were reserved in; the local window end is computed from the time the reservation was sent,
 *   so it falls before Redis's);
 * - a request may be refused while up to (R − 1) × (batch − 1) reserved tokens sit unused in
 *   other replicas, and tokens a replica reserved but did not use before the window ended are
 *   lost: the limit errs on the strict side, by at most R × (batch − 1) requests per window.
 * - once Redis says the window is spent, the replica refuses locally until it ends (the count
 *   only grows within a window, so that answer cannot change).
 * The batch is capped at points / 50 (at least 1), so a small limit is counted request by request.
 */
export class LocalRateLimiter {
  readonly batch: number;
  private readonly buckets = new Map<string, Bucket>();
  private reservations = 0;

  constructor(
    private readonly redis: Redis,
    private readonly points: number,
    private readonly windowSeconds: number,
    private readonly keyPrefix: string,
    batch: number,
    private readonly now: () => number = Date.now,
  ) {
    this.batch = Math.max(1, Math.min(batch, Math.floor(points / 50)));
  }

  async take(caller: string): Promise<TakeResult> {
    for (let attempt = 0; ; attempt++) {
      const now = this.now();
      const b = this.buckets.get(caller);
      if (b && b.deniedUntil > now) return { ok: false, retryMs: b.deniedUntil - now };
      if (b && b.tokens > 0 && b.windowEnd > now) {
        b.tokens--;
        return { ok: true, remaining: Math.max(0, b.redisRemaining + b.tokens) };
      }
      // Requests arriving while a reservation is on its way wait for it rather than reserving too.
      if (b?.pending && attempt < 5) {
        await b.pending;
        continue;
      }
      await this.reserve(caller, attempt < 5 ? this.batch : 1);
    }
  }

  private reserve(caller: string, want: number): Promise<void> {
    const bucket: Bucket = this.buckets.get(caller) ?? { tokens: 0, windowEnd: 0, deniedUntil: 0, redisRemaining: 0 };
    this.buckets.set(caller, bucket);
    const sentAt = this.now();
    const p = (
      this.redis.eval(
        RESERVE_LUA,
        1,
        `${this.keyPrefix}:${caller}`,
        this.points,
        want,
        this.windowSeconds * 1000,
      ) as Promise<[number, number, number]>
    )
      .then(([taken, used, ttl]) => {
        const end = sentAt + Math.max(0, Number(ttl));
        if (Number(taken) > 0) {
          bucket.tokens = Number(taken);
          bucket.windowEnd = end;
          bucket.redisRemaining = this.points - Number(used);
        } else {
          bucket.tokens = 0;
          bucket.deniedUntil = Math.max(end, sentAt + 1);
        }
      })
      .finally(() => {
        if (bucket.pending === p) bucket.pending = undefined;
      });
    bucket.pending = p;
    if (++this.reservations % 1000 === 0) this.sweep(sentAt);
    return p;
  }

  /** Drops buckets whose window is over, so callers seen once do not stay in memory. */
  private sweep(now: number) {
    for (const [k, b] of this.buckets)
      if (!b.pending && b.windowEnd <= now && b.deniedUntil <= now) this.buckets.delete(k);
  }
}

/** Per-caller rate limit in Redis shared by every gateway replica, with a local token bucket in front (LocalRateLimiter). */
export function rateLimit(
  redis: Redis,
  points: number,
  windowSeconds: number,
  prefix: string,
  opts: { batch?: number } = {},
) {
  const limiter = new LocalRateLimiter(redis, points, windowSeconds, `${prefix}:ratelimit`, opts.batch ?? 10);
  return async (req: Request, res: Response, next: NextFunction) => {
    const p = req.principal;
    const key = p ? (p.apiKeyId ? `key:${p.apiKeyId}` : `user:${p.userId}`) : `ip:${req.ip}`;
    let r: TakeResult;
    try {
      r = await limiter.take(key);
    } catch (err) {
      // Redis trouble must not take the API down: fail open and log.
      req.log.warn({ err }, 'rate limiter unavailable');
      return next();
    }
    if (!r.ok) {
      const retry = Math.max(1, Math.ceil(r.retryMs / 1000));
      return next(
        new ApiError('rate_limited', 'Too many requests.', {
          headers: { 'Retry-After': String(retry) },
          message: `Retry after ${retry} s.`,
        }),
      );
    }
    res.setHeader('x-ratelimit-limit', String(points));
    res.setHeader('x-ratelimit-remaining', String(r.remaining));
    next();
  };
}

export function notFound(req: Request, _res: Response, next: NextFunction) {
  next(new ApiError('route_not_found', `No route for ${req.method} ${req.path}.`));
}

/** The one place errors become the envelope. Unknown errors are logged whole, answered as 500. */
export function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction) {
  let apiErr: ApiError;
  const e = err as { type?: string; status?: number; code?: string; expose?: boolean };
  if (isApiError(err)) apiErr = err;
  else if (e?.type === 'entity.too.large') apiErr = new ApiError('request_too_large', 'The request body is too large.');
  else if (e?.type === 'entity.parse.failed')
    apiErr = new ApiError('invalid_request_body', 'The request body is not valid JSON.');
  else if (e?.type === 'charset.unsupported' || e?.type === 'encoding.unsupported') {
    apiErr = new ApiError(
      'unsupported_media_type',
      'The body is in a charset or encoding the API does not read; send UTF-8 JSON (optionally gzip, deflate or br).',
    );
  } else if (e?.expose && typeof e.status === 'number' && e.status >= 400 && e.status < 500) {
    // Any other client error a body parser reports (http-errors) is the request's fault, never a 500.
    // A 400 without a type on a compressed body is the decompressor failing: the body is not what
    // its Content-Encoding says.
    const encoded = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase() !== 'identity';
    if (e.status === 413) apiErr = new ApiError('request_too_large', 'The request body is too large.');
    else if (e.status === 415 || (encoded && e.status === 400 && !e.type))
      apiErr = new ApiError('unsupported_media_type', 'The body is not encoded as its Content-Encoding says.');
    else apiErr = new ApiError('invalid_request_body', 'The request body could not be read.');
  } else if (isDatabaseUnavailable(err)) {
    // A busy, restarting or unreachable database: the client's retry can succeed, so 503, never 500
    // (docs/api.md, "Database unavailable").
    (req.log ?? console).warn({ err }, 'database unavailable');
    apiErr = new ApiError('service_unavailable', 'The database is busy or unavailable; try again shortly.', {
      headers: { 'retry-after': '2' },
    });
  } else {
    (req.log ?? console).error({ err }, 'unhandled error');
    apiErr = new ApiError('internal_error', 'Internal server error.');
  }
  if (apiErr.status >= 500 && isApiError(err)) req.log?.error({ err }, 'server error');
  for (const [k, v] of Object.entries(apiErr.extra.headers ?? {})) res.setHeader(k, v);
  if (res.headersSent) return;
  res.status(apiErr.status).json(toEnvelope(apiErr, req.requestId));
}
