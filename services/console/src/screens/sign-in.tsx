import { useState, type FormEvent } from 'react';
import { ErrorBanner } from '../lib/errors';
import { clientFor, type Session } from '../lib/session';

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  const [mode, setMode] = useState<'key' | 'password'>('key');
  const [apiKey, setApiKey] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      if (mode === 'key') {
        const s: Session = { kind: 'key', apiKey: apiKey.trim() };
        await clientFor(s).billing.credits(); // proves the key before anything is stored
        onSignedIn(s);
      } else {
        const r = await clientFor(null).auth.login({ email: email.trim(), password });
        const m = r.user.memberships[0];
        if (!m) throw new Error('This account belongs to no organisation.');
        onSignedIn({
          kind: 'user',
          token: r.token,
          orgId: m.org_id,
          email: r.user.email,
          role: m.role,
          expiresAt: r.expires_at,
        });
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main className="sign-in">
      <h1>docfleet console</h1>
      <div className="tabs" role="tablist" aria-label="Sign-in method">
        <button type="button" role="tab" aria-selected={mode === 'key'} onClick={() => setMode('key')}>
          API key
        </button>
        <button type="button" role="tab" aria-selected={mode === 'password'} onClick={() => setMode('password')}>
          Email and password
        </button>
      </div>
      <form onSubmit={submit} aria-label="Sign in">
        {mode === 'key' ? (
          <label>
            API key
            <input
              name="api-key"
              type="password"
              autoComplete="off"
              required
              value={apiKey}
              onChange={(e) => setApiKey(e.target.value)}
            />
          </label>
        ) : (
          <>
            <label>
              Email
              <input
                name="email"
                type="email"
                autoComplete="username"
                required
                value={email}
                onChange={(e) => setEmail(e.target.value)}
              />
            </label>
            <label>
              Password
              <input
                name="password"
                type="password"
                autoComplete="current-password"
                required
                value={password}
                onChange={(e) => setPassword(e.target.value)}
              />
            </label>
          </>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ErrorBanner error={error} />
      <p className="muted small">
        The key stays in this tab only (session storage) and is sent as a header, never in a URL.
      </p>
    </main>
  );
}
