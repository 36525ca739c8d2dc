import { createHash } from 'node:crypto';
import { api } from '@docfleet/contracts';
import { ApiError } from '@docfleet/errors';

/** Options with every default filled in, so `{}` and `{ dpi: 150 }` are the same request. */
export function normaliseParseOptions(raw: unknown): api.ParseOptions {
  const r = api.ParseOptions.safeParse(raw ?? {});
  if (!r.success) {
    const i = r.error.issues[0];
    throw new ApiError(
      'invalid_request_body',
      `Invalid parse options: ${i?.path.length ? `${i.path.join('.')}: ` : ''}${i?.message ?? 'malformed'}`,
    );
  }
  return r.data;
}

/** Stable hash of normalised options (keys sorted), part of the default idempotency key. */
export function optionsHash(o: api.ParseOptions): string {
  const canonical = JSON.stringify(Object.fromEntries(Object.entries(o).sort(([a], [b]) => a.localeCompare(b))));
  return createHash('sha256').update(canonical).digest('hex').slice(0, 16);
}

/** docs/api.md, Idempotency: the default key is derived from the file version and the options. */
export const defaultParseKey = (fileVersionId: string, o: api.ParseOptions) =>
  `parse:${fileVersionId}:${optionsHash(o)}`;
