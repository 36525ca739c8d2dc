import { useEffect, useState } from 'react';
import type { DocfleetClient } from '@docfleet/sdk';

/**
 * Page images come through the SDK with the same credentials as every call (never a key in a
 * URL) and are shown from a blob: URL, revoked as soon as the page is left so memory stays bounded.
 */
export function useArtifactImage(
  client: DocfleetClient,
  manifestId: string | undefined,
  dir: 'pages' | 'imgs',
  name: string | undefined,
) {
  // The URL is kept with the artifact it shows, so a render after `name` changed never offers the
  // previous page's image as this one's.
  const want = manifestId && name ? `${manifestId}/${dir}/${name}` : undefined;
  const [state, setState] = useState<{ key: string; url: string }>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    if (!manifestId || !name) return;
    const ac = new AbortController();
    let objectUrl: string | undefined;
    const key = `${manifestId}/${dir}/${name}`;
    setError(undefined);
    client.artifacts.get(manifestId, dir, { file: name, signal: ac.signal }).then(
      (bytes) => {
        if (ac.signal.aborted) return;
        objectUrl = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mimeOf(name) }));
        setState({ key, url: objectUrl });
      },
      (err) => {
        if (!ac.signal.aborted) setError(err);
      },
    );
    return () => {
      ac.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [client, manifestId, dir, name]);
  return { url: state && state.key === want ? state.url : undefined, error };
}

const mimeOf = (name: string) =>
  /\.png$/i.test(name)
    ? 'image/png'
    : /\.jpe?g$/i.test(name)
      ? 'image/jpeg'
      : /\.webp$/i.test(name)
        ? 'image/webp'
        : 'application/octet-stream';
