import { useState } from 'react';
import type { ArtifactKey, ArtifactManifest } from '@docfleet/sdk';
import { useConsole } from '../lib/context';
import { ErrorBanner } from '../lib/errors';

const FILES: Array<{ key: ArtifactKey; label: string; ext: string; type: string }> = [
  { key: 'result_md', label: 'Markdown', ext: 'md', type: 'text/markdown' },
  { key: 'grounding_json', label: 'Grounding JSON', ext: 'grounding.json', type: 'application/json' },
  { key: 'tables_json', label: 'Tables JSON', ext: 'tables.json', type: 'application/json' },
  { key: 'workbook_json', label: 'Workbook JSON', ext: 'workbook.json', type: 'application/json' },
];

/** Artifacts fetched with the session's credentials and saved from a blob: URL. */
export function Downloads({ manifest, filename }: { manifest: ArtifactManifest; filename: string }) {
  const { client } = useConsole();
  const [error, setError] = useState<unknown>();
  async function download(f: (typeof FILES)[number]) {
    setError(undefined);
    try {
      const body = await client.artifacts.get(manifest.id, f.key);
      saveBlob(
        new Blob([typeof body === 'string' ? body : JSON.stringify(body, null, 2)], { type: f.type }),
        `${filename.replace(/\.[^.]+$/, '')}.${f.ext}`,
      );
    } catch (err) {
      setError(err);
    }
  }
  return (
    <span className="downloads">
      {FILES.filter((f) => manifest.links[f.key]).map((f) => (
        <button key={f.key} type="button" onClick={() => void download(f)}>
          Download {f.label}
        </button>
      ))}
      <ErrorBanner error={error} />
    </span>
  );
}

export function saveBlob(blob: Blob, name: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
