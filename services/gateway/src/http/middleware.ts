import { randomUUID } from 'node:crypto';
import { authenticate } from '@docfleet/auth';
import type { Db } from '@docfleet/db';
import { ApiError, isApiError, toEnvelope } from '@docfleet/errors';
import type { Logger } from '@docfleet/logger';
import type { NextFunction, Request, Response } from 'express';
import { MulterError } from 'multer';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
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
      req.log.info({ method: req.method, path: req.originalUrl.split('?')[0], status: res.statusCode, ms: Math.round(ms * 10) / 10, org_id: req.principal?.orgId }, 'request');
    });
    next();
  };
}

export function authMiddleware(db: Db) {
  return async (req: Request, _res: Response, next: NextFunction) => {
    try {
      const auth = req.header('authorization');
      const bearer = auth?.toLowerCase().startsWith('bearer ') ? auth.slice(7).trim() : undefined;
      const q = req.query.org_id;
      const orgId = req.header('x-service-org-id') ?? (typeof q === 'string' ? q : undefined);
      const apiKey = req.header('x-api-key') || undefined;
      if (apiKey || bearer) req.principal = await authenticate(db, { apiKey, bearer, orgId });
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** Per-caller rate limit in Redis (rate-limiter-flexible), shared by every gateway replica. */
export function rateLimit(redis: Redis, points: number, windowSeconds: number, prefix: string) {
  const limiter = new RateLimiterRedis({ storeClient: redis, points, duration: windowSeconds, keyPrefix: `${prefix}:ratelimit` });
  return async (req: Request, res: Response, next: NextFunction) => {
    const p = req.principal;
    const key = p ? (p.apiKeyId ? `key:${p.apiKeyId}` : `user:${p.userId}`) : `ip:${req.ip}`;
    try {
      const r = await limiter.consume(key);
      res.setHeader('x-ratelimit-limit', String(points));
      res.setHeader('x-ratelimit-remaining', String(r.remainingPoints));
      next();
    } catch (err) {
      if (err instanceof RateLimiterRes) {
        const retry = Math.max(1, Math.ceil(err.msBeforeNext / 1000));
        return next(new ApiError('rate_limited', 'Too many requests.', { headers: { 'Retry-After': String(retry) }, message: `Retry after ${retry} s.` }));
      }
      // Redis trouble must not take the API down: fail open and log.
      req.log.warn({ err }, 'rate limiter unavailable');
      next();
    }
  };
}

export function notFound(req: Request, _res: Response, next: NextFunction) {
  next(new ApiError('route_not_found', `No route for ${req.method} ${req.path}.`));
}

/** The one place errors become the envelope. Unknown errors are logged whole, answered as 500. */
export function errorHandler(err: unknown, req: Request, res: Response, _next: NextFunction) {
  let apiErr: ApiError;
  const e = err as { type?: string; status?: number; code?: string };
  if (isApiError(err)) apiErr = err;
  else if (e?.type === 'entity.too.large') apiErr = new ApiError('request_too_large', 'The request body is too large.');
  else if (e?.type === 'entity.parse.failed') apiErr = new ApiError('invalid_request_body', 'The request body is not valid JSON.');
  else if (err instanceof MulterError) {
    if (err.code === 'LIMIT_FILE_SIZE') apiErr = new ApiError('file_too_large', 'The uploaded file is larger than the upload limit.');
    else if (err.code === 'LIMIT_FIELD_VALUE' || err.code === 'LIMIT_FIELD_COUNT' || err.code === 'LIMIT_PART_COUNT') {
      apiErr = new ApiError('request_too_large', `The multipart body is too large: ${err.message}.`);
    } else apiErr = new ApiError('invalid_request_body', `Invalid multipart body: ${err.message}.`);
  } else {
    (req.log ?? console).error({ err }, 'unhandled error');
    apiErr = new ApiError('internal_error', 'Internal server error.');
  }
  if (apiErr.status >= 500 && isApiError(err)) req.log?.error({ err }, 'server error');
  for (const [k, v] of Object.entries(apiErr.extra.headers ?? {})) res.setHeader(k, v);
  if (res.headersSent) return;
  res.status(apiErr.status).json(toEnvelope(apiErr, req.requestId));
}
