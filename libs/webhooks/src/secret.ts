import { randomBytes } from 'node:crypto';

/** A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** How long after a rotation deliveries are signed with the previous secret too. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 3600 * 1000;

/** The secrets a delivery is signed with now: the current one, and the previous one within 24 h of a rotation. */
export function signingSecrets(
  ep: { secret: string; previous_secret: string | null; secret_rotated_at: Date | null },
  now = Date.now(),
): string[] {
  const grace =
    ep.previous_secret && ep.secret_rotated_at && now - ep.secret_rotated_at.getTime() < PREVIOUS_SECRET_GRACE_MS;
  return grace ? [ep.secret, ep.previous_secret!] : [ep.secret];
}
