import { z } from 'zod';
import { MAX_JSON_DEPTH, tooDeepPath } from '../json-depth';

export const Uuid = z.string().uuid();
export const Timestamp = z.string().describe('ISO 8601 UTC timestamp');
/** Any JSON object, at most MAX_JSON_DEPTH levels deep (counting itself): nothing deeper is stored. */
export const JsonObject = z.record(z.string(), z.unknown()).superRefine((v, ctx) => {
  const at = tooDeepPath(v, MAX_JSON_DEPTH);
  if (at) ctx.addIssue({ code: 'custom', path: at, message: `nested deeper than ${MAX_JSON_DEPTH} levels` });
});
export type JsonObject = z.infer<typeof JsonObject>;

export const ErrorEnvelope = z.object({
  error: z.string().describe('human sentence; may change'),
  code: z.string().describe('stable code; branch on this'),
  message: z.string().optional(),
  request_id: z.string().optional(),
});

/** "true" / "false" query strings. */
export const BoolString = z.enum(['true', 'false']).transform((v) => v === 'true');
