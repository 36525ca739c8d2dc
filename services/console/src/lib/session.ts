import { DocfleetClient, type FetchLike } from '@docfleet/sdk';

/**
 * Who is signed in. Kept in sessionStorage (gone when the tab closes), never in a URL or in
 * localStorage, so a key does not outlive the tab or leak through history and referrers.
 */
export type Session =
  | { kind: 'key'; apiKey: string }
  | { kind: 'user'; token: string; orgId: string; email: string; role: string; expiresAt: string };

const KEY = 'docfleet.console.session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(KEY);
    if (!raw) return null;
    const s = JSON.parse(raw) as Session;
    if (s.kind === 'user' && Date.parse(s.expiresAt) <= Date.now()) return null;
    return s.kind === 'key' || s.kind === 'user' ? s : null;
  } catch {
    return null;
  }
}

export function saveSession(s: Session | null): void {
  if (s) sessionStorage.setItem(KEY, JSON.stringify(s));
  else sessionStorage.removeItem(KEY);
}

/** The API is the console's own origin: the gateway serves both. */
export const apiBase = () => window.location.origin;

export function clientFor(s: Session | null, fetch?: FetchLike): DocfleetClient {
  const base = { baseUrl: apiBase(), timeoutMs: 10 * 60_000, userAgent: 'docfleet-console', fetch };
  if (!s) return new DocfleetClient(base);
  return s.kind === 'key'
    ? new DocfleetClient({ ...base, apiKey: s.apiKey })
    : new DocfleetClient({ ...base, bearerToken: s.token, orgId: s.orgId });
}

/** Admins manage API keys; a key is organisation-root but key management needs a signed-in admin. */
export const isAdminUser = (s: Session | null) => s?.kind === 'user' && s.role === 'admin';
