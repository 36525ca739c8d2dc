import { z } from 'zod';

export const Uuid = z.string().uuid();
export const Timestamp = z.string().describe('ISO 8601 UTC timestamp');
export const JsonObject = z.record(z.string(), z.unknown());

export const ErrorEnvelope = z.object({
  error: z.string().describe('human sentence; may change'),
  code: z.string().describe('stable code; branch on this'),
  message: z.string().optional(),
  request_id: z.string().optional(),
});

/** "true" / "false" query strings. */
export const BoolString = z.enum(['true', 'false']).transform((v) => v === 'true');
