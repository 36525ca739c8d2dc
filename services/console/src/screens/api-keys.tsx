import { useState, type FormEvent } from 'react';
import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';
import { formatTime, useAsync } from '../lib/use-async';

/** API keys of the organisation: admins signed in as people create (secret shown once), list and revoke. */
export default function ApiKeys() {
  const { client } = useConsole();
  const keys = useAsync((signal) => client.apiKeys.list({ signal }), [client]);
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<{ name: string; secret: string }>();
  const [error, setError] = useState<unknown>();

  async function create(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    try {
      const r = await client.apiKeys.create({ name: name.trim() });
      setSecret({ name: r.api_key.name, secret: r.secret });
      setName('');
      keys.reload();
    } catch (err) {
      setError(err);
    }
  }
  async function revoke(id: string) {
    setError(undefined);
    try {
      await client.apiKeys.revoke(id);
      keys.reload();
    } catch (err) {
      setError(err);
    }
  }

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      <form className="inline-form" onSubmit={create} aria-label="Create an API key">
        <label>
          Name <input name="key-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <button type="submit" className="primary">
          Create key
        </button>
      </form>
      {secret && (
        <div className="notice" role="status">
          <p>
            The secret of <strong>{secret.name}</strong> is shown once. Copy it now:
          </p>
          <code className="secret" data-testid="new-secret">
            {secret.secret}
          </code>
          <button type="button" onClick={() => void navigator.clipboard?.writeText(secret.secret)}>
            Copy
          </button>
          <button type="button" className="link" onClick={() => setSecret(undefined)}>
            I have copied it
          </button>
        </div>
      )}
      <ErrorBanner error={error ?? keys.error} />
      {keys.data && (
        <div className="table-wrap">
          <table aria-label="API keys">
            <thead>
              <tr>
                <th>Name</th>
                <th>Prefix</th>
                <th>Created</th>
                <th>Last used</th>
                <th>State</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {keys.data.api_keys.map((k) => (
                <tr key={k.id} data-key-id={k.id}>
                  <td>{k.name}</td>
                  <td>
                    <code>{k.prefix}</code>
                  </td>
                  <td>{formatTime(k.created_at)}</td>
                  <td>{formatTime(k.last_used_at) || 'never'}</td>
                  <td>{k.revoked_at ? `revoked ${formatTime(k.revoked_at)}` : 'active'}</td>
                  <td>
                    {!k.revoked_at && (
                      <button type="button" className="danger" onClick={() => void revoke(k.id)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
