import { MAX_JSON_DEPTH, formatJsonPath, tooDeepPath } from '@docfleet/contracts';
import { ApiError } from '@docfleet/errors';
import type { NextFunction, Request, Response } from 'express';

/** Content encodings the JSON body parser decodes; other bodies (multipart uploads) are taken only as sent. */
const JSON_ENCODINGS = new Set(['identity', 'gzip', 'deflate', 'br']);

const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

function knownCharset(label: string): boolean {
  try {
    new TextDecoder(label);
    return true;
  } catch {
    return false;
  }
}

/**
 * Refuses bodies the gateway cannot read, before credentials are looked up (so it costs no database
 * or Redis call): an unknown Content-Encoding, a compressed non-JSON body, an unknown charset.
 * A body that claims an encoding it is not in is caught by the JSON parser (errorHandler: 415).
 */
export function bodyGuard() {
  return (req: Request, _res: Response, next: NextFunction) => {
    if (!hasBody(req)) return next();
    const type = req.headers['content-type'] ?? '';
    const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding !== 'identity') {
      const json = Boolean(req.is('application/json'));
      if (!JSON_ENCODINGS.has(encoding)) {
        return next(
          new ApiError(
            'unsupported_media_type',
            `Content-Encoding '${encoding.slice(0, 40)}' is not supported; send identity, gzip, deflate or br.`,
          ),
        );
      }
      if (!json)
        return next(
          new ApiError('unsupported_media_type', 'Only JSON bodies may be compressed; send uploads uncompressed.'),
        );
    }
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(type)?.[1];
    if (charset !== undefined && !knownCharset(charset)) {
      return next(
        new ApiError('unsupported_media_type', `Charset '${charset.slice(0, 40)}' is not supported; send UTF-8.`),
      );
    }
    next();
  };
}

/**
 * After the JSON parser: a body nested deeper than MAX_JSON_DEPTH is refused with the path where it
 * gets too deep (also before credentials are looked up).
 */
export function jsonDepthLimit() {
  return (req: Request, _res: Response, next: NextFunction) => {
    const at = tooDeepPath(req.body, MAX_JSON_DEPTH);
    if (!at) return next();
    const where = formatJsonPath(at);
    next(
      new ApiError(
        'invalid_request_body',
        `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels at ${where}.`,
        {
          details: [{ path: where, message: `nested deeper than ${MAX_JSON_DEPTH} levels` }],
        },
      ),
    );
  };
}
