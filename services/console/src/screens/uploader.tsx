import { useRef, useState, type DragEvent } from 'react';
import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';
import { clientFor } from '../lib/session';
import { formatBytes } from '../lib/use-async';
import { xhrFetch } from '../lib/xhr-fetch';

interface Item {
  id: number;
  name: string;
  size: number;
  loaded: number;
  state: 'waiting' | 'uploading' | 'done' | 'failed';
  error?: unknown;
}

const PARALLEL = 3;
let seq = 0;

/** Drag-and-drop (or pick) many files; each is its own request with its own progress bar. */
export function Uploader({ kbId, folderId, onUploaded }: { kbId: string; folderId?: string; onUploaded: () => void }) {
  const { session } = useConsole();
  const [items, setItems] = useState<Item[]>([]);
  const [autoParse, setAutoParse] = useState(true);
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const patch = (id: number, p: Partial<Item>) => setItems((xs) => xs.map((x) => (x.id === id ? { ...x, ...p } : x)));

  async function uploadAll(files: File[]) {
    const batch = files.map((f) => ({
      file: f,
      item: { id: ++seq, name: f.name, size: f.size, loaded: 0, state: 'waiting' as const },
    }));
    setItems((xs) => [...batch.map((b) => b.item), ...xs]);
    let next = 0;
    const worker = async () => {
      while (next < batch.length) {
        const { file, item } = batch[next++]!;
        patch(item.id, { state: 'uploading' });
        const client = clientFor(
          session,
          xhrFetch((loaded) => patch(item.id, { loaded })),
        );
        try {
          await client.files.upload(file, {
            knowledgeBaseId: kbId,
            folderId,
            autoParse,
            contentType: file.type || undefined,
          });
          patch(item.id, { state: 'done', loaded: item.size });
          onUploaded();
        } catch (err) {
          patch(item.id, { state: 'failed', error: err });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(PARALLEL, batch.length) }, worker));
  }

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setOver(false);
    void uploadAll([...e.dataTransfer.files]);
  };

  return (
    <div className="uploader">
      <div
        className={`dropzone${over ? ' over' : ''}`}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={onDrop}
      >
        <p>Drop files here to upload them{folderId ? ' into this folder' : ''}, or</p>
        <button type="button" onClick={() => input.current?.click()}>
          Choose files…
        </button>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          aria-label="Files to upload"
          name="files"
          onChange={(e) => {
            void uploadAll([...(e.target.files ?? [])]);
            e.target.value = '';
          }}
        />
        <label className="check">
          <input
            type="checkbox"
            name="auto-parse"
            checked={autoParse}
            onChange={(e) => setAutoParse(e.target.checked)}
          />{' '}
          Parse after upload
        </label>
      </div>
      {items.length > 0 && (
        <ul className="uploads" aria-label="Uploads">
          {items.map((it) => (
            <li key={it.id} data-upload-state={it.state}>
              <span className="name">{it.name}</span>{' '}
              <progress max={it.size || 1} value={it.loaded} aria-label={`Upload of ${it.name}`} />{' '}
              <span className="muted small">
                {it.state === 'uploading' ? `${formatBytes(it.loaded)} of ${formatBytes(it.size)}` : it.state}
              </span>
              {it.error !== undefined && <ErrorBanner error={it.error} />}
            </li>
          ))}
        </ul>
      )}
      {items.length > 0 && items.every((i) => i.state === 'done' || i.state === 'failed') && (
        <button type="button" className="link" onClick={() => setItems([])}>
          Clear finished uploads
        </button>
      )}
    </div>
  );
}
