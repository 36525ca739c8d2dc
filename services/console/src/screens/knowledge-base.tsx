import { useEffect, useMemo, useRef, useState } from 'react';
import type { FileRecord, IndexEntry, IndexEnvelope, ParseOptions } from '@docfleet/sdk';
import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';
import { newKey } from '../lib/operations';
import { href } from '../lib/router';
import { formatBytes, formatTime, useAsync } from '../lib/use-async';
import { Uploader } from './uploader';

const ACTIVE = new Set(['queued', 'running']);

/** Polls the knowledge-base listing (conditionally: an unchanged listing answers 304) while any job is in flight. */
function useKbListing(kbId: string) {
  const { client } = useConsole();
  const [listing, setListing] = useState<IndexEnvelope>();
  const [error, setError] = useState<unknown>();
  const [tick, setTick] = useState(0);
  const last = useRef<IndexEnvelope | undefined>(undefined);
  useEffect(() => {
    const ac = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const prev = last.current?.knowledge_base.id === kbId ? last.current : undefined;
        const fresh = prev
          ? ((await client.knowledgeBases.indexIfChanged(kbId, prev.index_version, { signal: ac.signal })) ?? prev)
          : await client.knowledgeBases.index(kbId, { signal: ac.signal });
        if (ac.signal.aborted) return;
        last.current = fresh;
        setListing(fresh);
        setError(undefined);
        const busy = fresh.files.some(
          (f) => ACTIVE.has(f.latest_parse_job?.status ?? '') || ACTIVE.has(f.latest_extract_job?.status ?? ''),
        );
        timer = setTimeout(poll, busy ? 1000 : 5000);
      } catch (err) {
        if (ac.signal.aborted) return;
        setError(err);
        timer = setTimeout(poll, 5000);
      }
    };
    void poll();
    return () => {
      ac.abort();
      clearTimeout(timer);
    };
  }, [client, kbId, tick]);
  return { listing, error, refresh: () => setTick((t) => t + 1) };
}

export default function KnowledgeBase({ kbId }: { kbId: string }) {
  const { client } = useConsole();
  const { listing, error: listingError, refresh } = useKbListing(kbId);
  const [error, setError] = useState<unknown>();
  const [folder, setFolder] = useState<string>('all');
  const [extraFolders, setExtraFolders] = useState<Array<{ id: string; name: string }>>([]);
  const [newFolder, setNewFolder] = useState('');
  const [showTrash, setShowTrash] = useState(false);
  const trash = useAsync(
    async (signal) => {
      if (!showTrash) return [] as FileRecord[];
      const out: FileRecord[] = [];
      for await (const f of client.files.iterate({ knowledgeBaseId: kbId, includeDeleted: true, signal }))
        if (f.deleted_at) out.push(f);
      return out;
    },
    [client, kbId, showTrash, listing?.index_version],
  );

  const folders = useMemo(() => {
    const m = new Map<string, string>();
    for (const f of listing?.files ?? []) if (f.folder_id) m.set(f.folder_id, f.folder_name ?? f.folder_id);
    for (const f of extraFolders) m.set(f.id, f.name);
    return [...m].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
  }, [listing, extraFolders]);

  const files = (listing?.files ?? []).filter(
    (f) => folder === 'all' || (folder === 'root' ? !f.folder_id : f.folder_id === folder),
  );

  const act = (fn: () => Promise<unknown>) => async () => {
    setError(undefined);
    try {
      await fn();
      refresh();
    } catch (err) {
      setError(err);
    }
  };

  async function createFolder() {
    setError(undefined);
    try {
      const { folder: f } = await client.knowledgeBases.createFolder(kbId, {
        name: newFolder.trim(),
        parent_folder_id: null,
      });
      setExtraFolders((xs) => [...xs, { id: f.id, name: f.name }]);
      setNewFolder('');
    } catch (err) {
      setError(err);
    }
  }

  return (
    <section aria-labelledby="kb-title">
      <p className="crumbs">
        <a href="#/">Knowledge bases</a> ›
      </p>
      <h1 id="kb-title">{listing?.knowledge_base.name ?? 'Knowledge base'}</h1>
      <div className="actions">
        <a className="button" href={href(['kb', kbId, 'search'])}>
          Search this knowledge base
        </a>
      </div>
      <ErrorBanner error={error ?? listingError} onClose={error ? () => setError(undefined) : undefined} />
      <Uploader
        kbId={kbId}
        folderId={folder !== 'all' && folder !== 'root' ? folder : undefined}
        onUploaded={refresh}
      />

      <div className="toolbar">
        <label>
          Folder{' '}
          <select name="folder" value={folder} onChange={(e) => setFolder(e.target.value)}>
            <option value="all">All files</option>
            <option value="root">Top level</option>
            {folders.map((f) => (
              <option key={f.id} value={f.id}>
                {f.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          New folder <input name="new-folder" value={newFolder} onChange={(e) => setNewFolder(e.target.value)} />
        </label>
        <button type="button" disabled={!newFolder.trim()} onClick={createFolder}>
          Create folder
        </button>
        <label className="check">
          <input type="checkbox" checked={showTrash} onChange={(e) => setShowTrash(e.target.checked)} /> Show trash
        </label>
      </div>

      {listing && files.length === 0 && <p className="muted">No files here yet. Drop files above to upload them.</p>}
      {files.length > 0 && (
        <div className="table-wrap">
          <table className="files" aria-label="Files">
            <thead>
              <tr>
                <th>File</th>
                <th>Folder</th>
                <th>Version</th>
                <th>Size</th>
                <th>Pages</th>
                <th>Parse</th>
                <th>Actions</th>
              </tr>
            </thead>
            <tbody>
              {files.map((f) => (
                <FileRow key={f.file_id} kbId={kbId} f={f} folders={folders} act={act} />
              ))}
            </tbody>
          </table>
        </div>
      )}

      {showTrash && (
        <section aria-labelledby="trash-title">
          <h2 id="trash-title">Trash</h2>
          <ErrorBanner error={trash.error} />
          {trash.data?.length === 0 && <p className="muted">The trash is empty.</p>}
          <ul className="plain">
            {trash.data?.map((f) => (
              <li key={f.id} data-file-id={f.id}>
                {f.filename} <span className="muted small">deleted {formatTime(f.deleted_at)}</span>{' '}
                <button type="button" onClick={act(() => client.files.restore(f.id))}>
                  Restore
                </button>{' '}
                <button
                  type="button"
                  className="danger"
                  onClick={act(() => client.files.permanentDelete(f.id, { confirmPermanent: true }))}
                >
                  Delete permanently
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
    </section>
  );
}

function FileRow({
  kbId,
  f,
  folders,
  act,
}: {
  kbId: string;
  f: IndexEntry;
  folders: Array<{ id: string; name: string }>;
  act: (fn: () => Promise<unknown>) => () => Promise<void>;
}) {
  const { client } = useConsole();
  const [options, setOptions] = useState(false);
  const [backend, setBackend] = useState<NonNullable<ParseOptions['backend']>>('auto');
  const [dpi, setDpi] = useState(150);
  const job = f.latest_parse_job;
  const active = job && ACTIVE.has(job.status);
  const parsed = Boolean(f.parse_artifacts);
  // A re-parse is new work: a fresh key, or the API returns the completed job of the same version and options.
  const parse = act(() =>
    client.files.parse(f.file_id, { options: { backend, dpi }, ...(job ? { idempotency_key: newKey() } : {}) }),
  );
  return (
    <tr data-file-id={f.file_id} data-parse-status={job?.status ?? 'none'}>
      <td>
        {parsed ? <a href={href(['kb', kbId, 'file', f.file_id])}>{f.filename}</a> : f.filename}
        <div className="muted small clip-line" title={f.content_type}>
          {f.content_type}
        </div>
      </td>
      <td>
        <select
          aria-label={`Move ${f.filename} to folder`}
          value={f.folder_id ?? ''}
          onChange={(e) => void act(() => client.files.move(f.file_id, { folder_id: e.target.value || null }))()}
        >
          <option value="">Top level</option>
          {folders.map((x) => (
            <option key={x.id} value={x.id}>
              {x.name}
            </option>
          ))}
        </select>
      </td>
      <td>v{f.version_number}</td>
      <td>{formatBytes(f.byte_size)}</td>
      <td>{f.page_count ?? ''}</td>
      <td className="parse-cell">
        {!job && <span className="muted">not parsed</span>}
        {job && (
          <>
            <span className={`status status-${job.status}`}>{job.status}</span>
            {job.stage && job.stage !== job.status && <span className="muted small"> {job.stage}</span>}
            {active && (
              <progress max={100} value={job.percent} aria-label={`Parse progress of ${f.filename}`}>
                {job.percent}%
              </progress>
            )}
            {active && <span className="percent"> {job.percent}%</span>}
            {job.status === 'queued' && <div className="muted small">waiting for a parse worker</div>}
            {job.status === 'failed' && (
              <div className="job-error" role="status">
                {job.error ?? 'failed'}
              </div>
            )}
          </>
        )}
      </td>
      <td className="actions">
        {parsed && (
          <a className="button" href={href(['kb', kbId, 'file', f.file_id])}>
            View
          </a>
        )}
        {!active && (
          <button type="button" onClick={parse}>
            {job ? 'Re-parse' : 'Parse'}
          </button>
        )}
        {!active && (
          <button type="button" aria-expanded={options} onClick={() => setOptions((o) => !o)}>
            Options
          </button>
        )}
        {active && job && (
          <button type="button" onClick={act(() => client.files.cancelJob(f.file_id, job.job_id))}>
            Cancel
          </button>
        )}
        {!active && (
          <button type="button" className="danger" onClick={act(() => client.files.delete(f.file_id))}>
            Trash
          </button>
        )}
        {options && (
          <div className="options">
            <label>
              Backend{' '}
              <select
                value={backend}
                onChange={(e) => setBackend(e.target.value as NonNullable<ParseOptions['backend']>)}
              >
                <option value="auto">auto</option>
                <option value="text">text layer</option>
                <option value="ocr">OCR</option>
              </select>
            </label>
            <label>
              DPI{' '}
              <input type="number" min={72} max={300} value={dpi} onChange={(e) => setDpi(Number(e.target.value))} />
            </label>
          </div>
        )}
      </td>
    </tr>
  );
}
