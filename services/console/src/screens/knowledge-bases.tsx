import { useState, type FormEvent } from 'react';
import type { KnowledgeBase } from '@docfleet/sdk';
import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';
import { href } from '../lib/router';
import { formatTime, useAsync } from '../lib/use-async';

export default function KnowledgeBases() {
  const { client } = useConsole();
  const list = useAsync((signal) => client.knowledgeBases.list({ signal }), [client]);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<unknown>();

  async function create(e: FormEvent) {
    e.preventDefault();
    setError(undefined);
    try {
      await client.knowledgeBases.create({
        name: name.trim(),
        ...(description.trim() ? { description: description.trim() } : {}),
      });
      setName('');
      setDescription('');
      list.reload();
    } catch (err) {
      setError(err);
    }
  }

  const kbs = list.data?.knowledge_bases ?? [];
  return (
    <section aria-labelledby="kbs-title">
      <h1 id="kbs-title">Knowledge bases</h1>
      <form className="inline-form" onSubmit={create} aria-label="Create a knowledge base">
        <label>
          Name <input name="kb-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Description{' '}
          <input name="kb-description" value={description} onChange={(e) => setDescription(e.target.value)} />
        </label>
        <button type="submit" className="primary">
          Create
        </button>
      </form>
      <ErrorBanner error={error ?? list.error} onClose={() => setError(undefined)} />
      {list.loading && !list.data && <p className="muted">Loading…</p>}
      {list.data && kbs.length === 0 && (
        <p className="muted">No knowledge bases yet: create one above, then upload files into it.</p>
      )}
      <ul className="cards" aria-label="Knowledge bases">
        {kbs.map((kb) => (
          <KbCard key={kb.id} kb={kb} onChanged={list.reload} onError={setError} />
        ))}
      </ul>
    </section>
  );
}

function KbCard({
  kb,
  onChanged,
  onError,
}: {
  kb: KnowledgeBase;
  onChanged: () => void;
  onError: (e: unknown) => void;
}) {
  const { client } = useConsole();
  const [renaming, setRenaming] = useState(false);
  const [newName, setNewName] = useState(kb.name);
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState('');

  async function rename(e: FormEvent) {
    e.preventDefault();
    try {
      await client.knowledgeBases.rename(kb.id, { name: newName.trim(), description: kb.description ?? undefined });
      setRenaming(false);
      onChanged();
    } catch (err) {
      onError(err);
    }
  }
  async function remove() {
    try {
      await client.knowledgeBases.delete(kb.id, { confirmPermanent: true });
      onChanged();
    } catch (err) {
      onError(err);
    }
  }

  return (
    <li className="card" data-kb-id={kb.id}>
      {renaming ? (
        <form onSubmit={rename} className="inline-form" aria-label={`Rename ${kb.name}`}>
          <label>
            New name{' '}
            <input name="kb-new-name" required autoFocus value={newName} onChange={(e) => setNewName(e.target.value)} />
          </label>
          <button type="submit" className="primary">
            Save
          </button>
          <button type="button" onClick={() => setRenaming(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <h2>
          <a href={href(['kb', kb.id])}>{kb.name}</a>
        </h2>
      )}
      {kb.description && <p>{kb.description}</p>}
      <p className="muted small">Created {formatTime(kb.created_at)}</p>
      <div className="actions">
        <a className="button" href={href(['kb', kb.id])}>
          Open
        </a>
        <a className="button" href={href(['kb', kb.id, 'search'])}>
          Search
        </a>
        <button
          type="button"
          onClick={() => {
            setNewName(kb.name);
            setRenaming(true);
          }}
        >
          Rename
        </button>
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          Delete…
        </button>
      </div>
      {confirming && (
        <div className="confirm" role="alertdialog" aria-label={`Delete ${kb.name} permanently`}>
          <p>
            Deleting <strong>{kb.name}</strong> is permanent: every file (live and trashed), its artifacts and jobs are
            removed. Type the name to confirm.
          </p>
          <label>
            Name <input name="confirm-name" value={typed} onChange={(e) => setTyped(e.target.value)} />
          </label>
          <button type="button" className="danger" disabled={typed !== kb.name} onClick={remove}>
            Delete permanently
          </button>
          <button
            type="button"
            onClick={() => {
              setConfirming(false);
              setTyped('');
            }}
          >
            Keep it
          </button>
        </div>
      )}
    </li>
  );
}
