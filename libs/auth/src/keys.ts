import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Keys carry a fixed service prefix so leaked keys are recognisable (and scannable). */
export const API_KEY_PREFIX = 'dfk_';

export function generateApiKey(): { secret: string; prefix: string; hash: string } {
  const secret = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { secret, prefix: secret.slice(0, API_KEY_PREFIX.length + 8), hash: hashToken(secret) };
}

export function generateSessionToken(): { token: string; hash: string } {
  const token = 'dfs_' + randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

// Keys and session tokens are 256-bit random values: a fast hash is enough and keeps lookups O(1).
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
